#!/usr/bin/env node
// The CLI is compiled TypeScript; `npm install` builds it (the `prepare` script).
import { existsSync } from "node:fs";
const main = new URL("../dist/runtime/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  console.error("clawhive: not built yet; run `npm install` (or `npm run build`) in the project folder");
  process.exit(1);
}
await import(main.href);
