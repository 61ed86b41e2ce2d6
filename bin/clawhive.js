#!/usr/bin/env node
// The CLI is compiled TypeScript; `npm install` builds it (the `prepare` script), and bundles it
// (bin/bundle-cli.js) so that a command starts in half the CPU. The bundle is used only when it
// is at least as new as the compiled files, so a bare `tsc` is never shadowed by an old bundle.
import { existsSync, statSync } from "node:fs";
const compiled = new URL("../dist/runtime/cli/main.js", import.meta.url);
const bundled = new URL("../dist/runtime/cli-bundle/main.js", import.meta.url);
if (!existsSync(compiled)) {
  console.error("clawhive: not built yet; run `npm install` (or `npm run build`) in the project folder");
  process.exit(1);
}
const mtime = (url) => statSync(url, { throwIfNoEntry: false })?.mtimeMs ?? 0;
await import((mtime(bundled) >= mtime(compiled) ? bundled : compiled).href);
