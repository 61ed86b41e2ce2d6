#!/usr/bin/env node
// `npm start` builds only when a TypeScript source (or the compiler's configuration) is newer
// than the last successful build: tsc on an up-to-date tree still takes seconds. A build is tsc,
// then the command line's bundle (bundle-cli.js), then the plugin SDK as JavaScript with its
// declarations (dist/sdk: what `clawhive/sdk` resolves to). It says what it does on stderr:
// a first build takes a while.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundleCli } from "./bundle-cli.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const stamp = join(root, "dist", ".build-stamp");
const SOURCES = ["runtime", "host-proxies", "test", "bench", join("plugins", "sdk")];
const CONFIG = ["tsconfig.json", join("plugins", "sdk", "tsconfig.build.json"), "package.json", "package-lock.json"];

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newest(path));
    else if (entry.name.endsWith(".ts")) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

const mtime = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
};
const built = mtime(stamp);
const sources = Math.max(...SOURCES.map((d) => newest(join(root, d))), ...CONFIG.map((f) => mtime(join(root, f))));
if (built > 0 && built >= sources && process.argv[2] !== "--force") process.exit(0);
const started = Date.now();
const tsc = (config) => {
  const result = spawnSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(root, config)], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
console.error("clawhive: compiling the TypeScript sources into dist/ …");
tsc("tsconfig.json");
console.error("clawhive: bundling the command line …");
await bundleCli(root);
tsc(join("plugins", "sdk", "tsconfig.build.json"));
writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
// Stamped with the build's start: a source saved while tsc ran is newer, so the next start builds.
utimesSync(stamp, new Date(started), new Date(started));
