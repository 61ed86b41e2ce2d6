#!/usr/bin/env node
// `npm pack` and `npm publish` run this first (the `prepack` script): the tarball ships dist/, so
// it builds when a source is newer than the last build (bin/build-if-stale.js), then removes from
// the shipped parts of dist/ every compiled file whose TypeScript source is gone. tsc never deletes
// an output, so a module removed or renamed since dist/ was made would otherwise ship, and be
// loadable by name, in every tarball after.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const build = spawnSync(process.execPath, [join(root, "bin", "build-if-stale.js")], { stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

/** Each shipped output folder and where its sources are; the CLI bundle has none of its own. */
const SHIPPED = [
  { out: join("dist", "runtime"), src: "runtime", skip: join("dist", "runtime", "cli-bundle") },
  { out: join("dist", "host-proxies"), src: "host-proxies" },
  { out: join("dist", "sdk"), src: join("plugins", "sdk") },
];
const OUTPUTS = [".js", ".js.map", ".d.ts", ".d.ts.map"];

let removed = 0;
function prune(dir, shipped) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (path !== shipped.skip) prune(path, shipped);
      continue;
    }
    if (!entry.name.endsWith(".js")) continue;
    const stem = relative(shipped.out, path).slice(0, -".js".length);
    if (existsSync(join(root, shipped.src, `${stem}.ts`))) continue;
    for (const ext of OUTPUTS) rmSync(join(root, shipped.out, `${stem}${ext}`), { force: true });
    console.error(`clawhive: prepack: removed ${path}, whose source ${join(shipped.src, `${stem}.ts`)} is gone`);
    removed++;
  }
}
for (const shipped of SHIPPED) if (existsSync(join(root, shipped.out))) prune(shipped.out, shipped);
if (removed > 0) console.error(`clawhive: prepack: ${removed} stale module(s) left out of the package`);
