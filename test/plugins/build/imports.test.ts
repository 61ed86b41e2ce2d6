import assert from "node:assert/strict";
import { cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { buildPlugin } from "../../../runtime/plugins/build.js";
import { importProblems, verifyComponentImports } from "../../../runtime/plugins/imports.js";
import { defaultBuildCacheDir, pluginSourceDirs } from "../../../runtime/plugins/locations.js";
import { tempDir } from "../../helpers/runtime.js";

const rows: Array<{ name: string; imports: string[]; capabilities: string[]; problem?: RegExp }> = [
  { name: "control: fs covered by fs.read", imports: ["clawhive:host/types@0.1.0", "clawhive:host/fs@0.1.0"], capabilities: ["fs.read"] },
  { name: "fs with no fs capability", imports: ["clawhive:host/fs@0.1.0"], capabilities: ["log"], problem: /clawhive:host\/fs@0\.1\.0: needs one of fs\.read, fs\.write/ },
  { name: "control: shell covered by shell.exec", imports: ["clawhive:host/shell@0.1.0"], capabilities: ["shell.exec"] },
  { name: "shell under-declared as http", imports: ["clawhive:host/shell@0.1.0"], capabilities: ["http.fetch"], problem: /shell@0\.1\.0: needs one of shell\.exec/ },
  { name: "another host version", imports: ["clawhive:host/fs@0.2.0"], capabilities: ["fs.read"], problem: /serves clawhive:host@0\.1\.0/ },
  { name: "control: the current host version (fs walk and search)", imports: ["clawhive:host/types@0.1.1", "clawhive:host/fs@0.1.1"], capabilities: ["fs.read"] },
  { name: "control: a plugin built against 0.1.0 next to one on 0.1.1", imports: ["clawhive:host/fs@0.1.0", "clawhive:host/log@0.1.1"], capabilities: ["fs.read", "log"] },
  { name: "a host version not yet released", imports: ["clawhive:host/fs@0.1.2"], capabilities: ["fs.read"], problem: /fs@0\.1\.2: this runtime serves clawhive:host@0\.1\.0, @0\.1\.1/ },
  { name: "an interface that does not exist", imports: ["clawhive:host/sockets@0.1.0"], capabilities: ["fs.read"], problem: /no such host interface/ },
  { name: "control: WASI filesystem under fs.read", imports: ["wasi:filesystem/preopens@0.2.3", "wasi:filesystem/types@0.2.12"], capabilities: ["fs.read"] },
  { name: "WASI filesystem with no fs capability", imports: ["wasi:filesystem/preopens@0.2.3"], capabilities: ["http.fetch"], problem: /wasi:filesystem\/preopens@0\.2\.3: needs one of fs\.read, fs\.write/ },
  { name: "control: WASI filesystem and http types alone need nothing (no descriptor, no request leaves)", imports: ["wasi:filesystem/types@0.2.3", "wasi:http/types@0.2.3", "wasi:io/streams@0.2.3"], capabilities: [] },
  { name: "WASI filesystem types with the preopens and no fs capability", imports: ["wasi:filesystem/types@0.2.3", "wasi:filesystem/preopens@0.2.3"], capabilities: [], problem: /wasi:filesystem\/preopens@0\.2\.3: needs one of fs\.read, fs\.write/ },
  { name: "WASI http types with the handler and no http capability", imports: ["wasi:http/types@0.2.3", "wasi:http/outgoing-handler@0.2.3"], capabilities: [], problem: /wasi:http\/outgoing-handler@0\.2\.3: needs one of http\.fetch/ },
  { name: "control: WASI http under http.fetch", imports: ["wasi:http/outgoing-handler@0.2.10", "wasi:http/types@0.2.10"], capabilities: ["http.fetch"] },
  { name: "WASI http with no http capability", imports: ["wasi:http/outgoing-handler@0.2.10"], capabilities: ["fs.read"], problem: /needs one of http\.fetch/ },
  { name: "control: WASI stdout under log", imports: ["wasi:cli/stdout@0.2.12", "wasi:io/streams@0.2.12"], capabilities: ["log"] },
  { name: "WASI stderr with no log capability", imports: ["wasi:cli/stderr@0.2.12"], capabilities: [], problem: /wasi:cli\/stderr@0\.2\.12: needs one of log/ },
  { name: "control: WASI environment, clocks, random, config need nothing", imports: ["wasi:cli/environment@0.2.3", "wasi:clocks/wall-clock@0.2.3", "wasi:random/random@0.2.0", "wasi:config/store@0.2.0-draft"], capabilities: [] },
  { name: "control: WASI sockets need nothing (served, every call refused)", imports: ["network", "instance-network", "ip-name-lookup", "tcp", "tcp-create-socket", "udp", "udp-create-socket"].map((i) => `wasi:sockets/${i}@0.2.3`), capabilities: [] },
  { name: "a wasi:sockets interface that does not exist", imports: ["wasi:sockets/raw@0.2.3"], capabilities: [], problem: /wasi:sockets\/raw@0\.2\.3: outside the plugin contract/ },
  { name: "WASI sockets 0.3", imports: ["wasi:sockets/tcp@0.3.0"], capabilities: [], problem: /serves WASI 0\.2\.x/ },
  { name: "WASI incoming HTTP handler", imports: ["wasi:http/incoming-handler@0.2.0"], capabilities: ["http.fetch"], problem: /outside the plugin contract/ },
  { name: "WASI 0.3", imports: ["wasi:clocks/wall-clock@0.3.0"], capabilities: [], problem: /serves WASI 0\.2\.x/ },
  { name: "WASI unversioned", imports: ["wasi:clocks/wall-clock"], capabilities: [], problem: /outside the plugin contract/ },
  { name: "an unknown WASI package", imports: ["wasi:keyvalue/store@0.2.0"], capabilities: ["kv"], problem: /outside the plugin contract/ },
  { name: "a bare function import", imports: ["get-secret"], capabilities: [], problem: /outside the plugin contract/ },
];
for (const row of rows) {
  test(`import coverage: ${row.name}`, () => {
    const problems = importProblems(row.imports, row.capabilities);
    if (!row.problem) assert.deepEqual(problems, []);
    else assert.match(problems.join("\n"), row.problem);
  });
}

test("every first-party and test plugin's real imports are covered by its manifest", async () => {
  for (const dir of await pluginSourceDirs({ includeTests: true })) {
    const artifact = await buildPlugin(dir, { cacheDir: defaultBuildCacheDir() });
    const imports = await verifyComponentImports(artifact);
    assert.ok(imports.every((i) => i.startsWith("clawhive:host/") || i.startsWith("wasi:")), `${dir}: ${imports.join(", ")}`);
  }
});

test("a manifest that under-declares, or a component that was altered, is refused at load", async () => {
  const files = await buildPlugin(join(defaultBuildCacheDir(), "..", "..", "plugins", "files"), { cacheDir: defaultBuildCacheDir() });
  await assert.rejects(verifyComponentImports({ ...files, manifest: { ...files.manifest, capabilities: ["log"] } }), /imports what its manifest does not declare:\n {2}clawhive:host\/fs@0\.1\.1/);
  const copy = await tempDir("clawhive-artifact-");
  try {
    await cp(files.dir, copy, { recursive: true });
    const bytes = await readFile(join(copy, "plugin.wasm"));
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await writeFile(join(copy, "plugin.wasm"), bytes);
    await assert.rejects(verifyComponentImports({ ...files, dir: copy }), { code: "artifact_tampered" });
  } finally {
    await rm(copy, { recursive: true, force: true });
  }
});
