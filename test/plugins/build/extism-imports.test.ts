/**
 * Extism plugins are refused at install when their module imports what the manifest does not
 * declare or what would bypass the policy (WASI, Extism's own HTTP and config); the tables of
 * the ABI are checked against the WIT they mirror.
 */
import assert from "node:assert/strict";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { extismHostFunction, extismName, HOST_FUNCTIONS, U64_PARAMS } from "../../../runtime/plugins/extism-abi.js";
import { extismExportProblems, extismImportProblems, verifyComponentImports, verifyPluginImports } from "../../../runtime/plugins/imports.js";
import { PROJECT_ROOT, pluginSourceDirs } from "../../../runtime/plugins/locations.js";
import { extismModulePackage } from "../../helpers/extism-modules.js";
import { buildExtismProbe, compileExtism, EXTISM_PROBE_SOURCE } from "../../helpers/extism-probe.js";
import { tempDir } from "../../helpers/runtime.js";

let cacheDir: string;
before(async () => {
  cacheDir = await tempDir("clawhive-extism-imports-");
});
after(() => rm(cacheDir, { recursive: true, force: true }));

const fn = (module: string, name: string): WebAssembly.ModuleImportDescriptor => ({ module, name, kind: "function" });
const KERNEL = "extism:host/env";
const USER = "extism:host/user";

const rows: Array<{ name: string; imports: WebAssembly.ModuleImportDescriptor[]; capabilities: string[]; problem?: RegExp }> = [
  { name: "control: the kernel's memory, input and output", imports: ["alloc", "free", "length", "load_u64", "store_u8", "input_length", "input_load_u64", "output_set", "error_set", "var_get", "var_set"].map((n) => fn(KERNEL, n)), capabilities: [] },
  { name: "control: Extism HTTP under http.fetch", imports: ["http_request", "http_status_code", "http_headers"].map((n) => fn(KERNEL, n)), capabilities: ["http.fetch"] },
  { name: "Extism HTTP (http_request) with no http capability", imports: [fn(KERNEL, "http_request")], capabilities: ["fs.read"], problem: /extism:host\/env\.http_request: served by the http proxy; needs http\.fetch/ },
  { name: "Extism HTTP (http_headers) with no http capability", imports: [fn(KERNEL, "http_headers")], capabilities: [], problem: /http_headers: served by the http proxy/ },
  { name: "control: Extism config (config_get) needs nothing", imports: [fn(KERNEL, "config_get")], capabilities: [] },
  { name: "a kernel function this runtime does not serve (the old PDKs' config_length)", imports: [fn(KERNEL, "config_length")], capabilities: ["log"], problem: /config_length: not an Extism kernel function this runtime serves/ },
  { name: "control: the Rust PDK's get_log_level needs nothing", imports: [fn(KERNEL, "get_log_level")], capabilities: [] },
  { name: "control: the Rust PDK's log_trace covered by log", imports: [fn(KERNEL, "log_trace"), fn(KERNEL, "get_log_level")], capabilities: ["log"] },
  { name: "log_trace with no log capability", imports: [fn(KERNEL, "log_trace")], capabilities: [], problem: /log_trace: served by the log proxy; needs log declared/ },
  { name: "control: kernel log covered by log", imports: [fn(KERNEL, "log_info"), fn(KERNEL, "log_error")], capabilities: ["log"] },
  { name: "kernel log with no log capability", imports: [fn(KERNEL, "log_info")], capabilities: ["fs.read"], problem: /log_info: served by the log proxy; needs log declared/ },
  { name: "a kernel global, not a function", imports: [{ module: KERNEL, name: "alloc", kind: "global" }], capabilities: [], problem: /only functions are imported/ },
  { name: "control: WASI output, clocks, args (wasip1)", imports: ["fd_write", "clock_time_get", "random_get", "args_get", "environ_get", "proc_exit"].map((n) => fn("wasi_snapshot_preview1", n)), capabilities: ["log"] },
  { name: "control: WASI files (path_open) under fs.read", imports: [fn("wasi_snapshot_preview1", "path_open")], capabilities: ["fs.read"] },
  { name: "WASI files (path_open) with no fs capability", imports: [fn("wasi_snapshot_preview1", "path_open")], capabilities: ["http.fetch"], problem: /path_open: reaches files through the fs proxy; needs fs\.read or fs\.write/ },
  { name: "control: WASI sockets (sock_accept) need nothing (served, every call refused)", imports: [fn("wasi_snapshot_preview1", "sock_accept")], capabilities: [] },
  { name: "a WASI socket function preview1 does not have", imports: [fn("wasi_snapshot_preview1", "sock_connect")], capabilities: ["http.fetch"], problem: /sock_connect: not a WASI preview1 function this runtime serves/ },
  { name: "WASI environment (older name)", imports: [fn("wasi_unstable", "environ_get")], capabilities: [], problem: /wasi_unstable\.environ_get: not a WASI preview1 function this runtime serves/ },
  { name: "control: fs_read covered by fs.read", imports: [fn(USER, "fs_read"), fn(USER, "fs_list_dir")], capabilities: ["fs.read"] },
  { name: "fs_read with no fs capability", imports: [fn(USER, "fs_read")], capabilities: ["log"], problem: /extism:host\/user\.fs_read: needs one of fs\.read, fs\.write declared in plugin\.json/ },
  { name: "control: shell_exec covered by shell.exec", imports: [fn(USER, "shell_exec")], capabilities: ["shell.exec"] },
  { name: "shell_exec under-declared as http", imports: [fn(USER, "shell_exec")], capabilities: ["http.fetch"], problem: /shell_exec: needs one of shell\.exec/ },
  { name: "control: http_fetch covered by http.fetch", imports: [fn(USER, "http_fetch")], capabilities: ["http.fetch"] },
  { name: "http_fetch with no http capability", imports: [fn(USER, "http_fetch")], capabilities: ["fs.read"], problem: /http_fetch: needs one of http\.fetch/ },
  { name: "a function the interface does not have", imports: [fn(USER, "fs_chmod")], capabilities: ["fs.read", "fs.write"], problem: /fs_chmod: not a clawhive host function/ },
  { name: "an interface that does not exist", imports: [fn(USER, "sockets_connect")], capabilities: ["fs.read"], problem: /sockets_connect: not a clawhive host function/ },
  { name: "the WIT name instead of the Extism name", imports: [fn(USER, "fs_list-dir")], capabilities: ["fs.read"], problem: /fs_list-dir: not a clawhive host function/ },
  { name: "another module (env)", imports: [fn("env", "getenv")], capabilities: [], problem: /env\.getenv: outside the plugin contract/ },
  { name: "a component-style import", imports: [fn("clawhive:host/fs@0.1.0", "read")], capabilities: ["fs.read"], problem: /outside the plugin contract/ },
];
for (const row of rows) {
  test(`Extism import: ${row.name}`, () => {
    const problems = extismImportProblems(row.imports, row.capabilities);
    if (!row.problem) assert.deepEqual(problems, []);
    else assert.match(problems.join("\n"), row.problem);
  });
}

test("control: the probe's real imports are covered by its manifest", async () => {
  const pkg = await buildExtismProbe();
  try {
    const artifact = await compileExtism(pkg, cacheDir);
    const imports = await verifyPluginImports(artifact);
    assert.ok(imports.includes("extism:host/user.fs_read"));
    // The component entry point hands an Extism artifact to the same check.
    assert.deepEqual(await verifyComponentImports(artifact), imports);
  } finally {
    await rm(pkg.dir, { recursive: true, force: true });
  }
});

const modules: Array<{ name: string; imports?: string; capabilities?: string[]; exports?: { describe?: boolean; call?: boolean; memory?: boolean }; problem?: RegExp }> = [
  { name: "control: a log_write import with log declared", imports: '(import "extism:host/user" "log_write" (func (param i64) (result i64)))', capabilities: ["log"] },
  { name: "control: WASI fd_write", imports: '(import "wasi_snapshot_preview1" "fd_write" (func (param i32 i32 i32 i32) (result i32)))' },
  { name: "control: WASI sock_send (served, every call refused)", imports: '(import "wasi_snapshot_preview1" "sock_send" (func (param i32 i32 i32 i32 i32) (result i32)))' },
  { name: "a WASI function preview1 does not have", imports: '(import "wasi_snapshot_preview1" "sock_open" (func (param i32 i32 i32) (result i32)))', capabilities: ["http.fetch"], problem: /wasi_snapshot_preview1\.sock_open: not a WASI preview1 function this runtime serves/ },
  { name: "control: Extism http_request under http.fetch", imports: '(import "extism:host/env" "http_request" (func (param i64 i64) (result i64)))', capabilities: ["http.fetch"] },
  { name: "Extism http_request with no http capability", imports: '(import "extism:host/env" "http_request" (func (param i64 i64) (result i64)))', capabilities: ["log"], problem: /extism:host\/env\.http_request: served by the http proxy/ },
  { name: "control: Extism config_get", imports: '(import "extism:host/env" "config_get" (func (param i64) (result i64)))' },
  { name: "an undeclared host interface", imports: '(import "extism:host/user" "shell_exec" (func (param i64) (result i64)))', capabilities: ["log"], problem: /extism:host\/user\.shell_exec: needs one of shell\.exec/ },
  { name: "no call export", exports: { call: false }, problem: /export call: missing/ },
  { name: "no describe export", exports: { describe: false }, problem: /export describe: missing/ },
  { name: "no exported memory", exports: { memory: false }, problem: /export memory: missing/ },
];
for (const row of modules) {
  test(`Extism module at install: ${row.name}`, async () => {
    const pkg = await extismModulePackage(`refusal-${modules.indexOf(row)}`, { ...(row.imports ? { imports: row.imports } : {}), ...(row.exports ? { exports: row.exports } : {}), capabilities: row.capabilities ?? [] });
    try {
      const artifact = await compileExtism(pkg, cacheDir);
      if (!row.problem) await verifyPluginImports(artifact);
      else await assert.rejects(verifyPluginImports(artifact), (e: Error & { code?: string }) => e.code === "imports_not_declared" && row.problem!.test(e.message));
    } finally {
      await rm(pkg.dir, { recursive: true, force: true });
    }
  });
}

const fnExport = (name: string): WebAssembly.ModuleExportDescriptor => ({ name, kind: "function" });
const memory: WebAssembly.ModuleExportDescriptor = { name: "memory", kind: "memory" };
const shapes: Array<{ name: string; exports: WebAssembly.ModuleExportDescriptor[]; tools: string[]; problem?: RegExp }> = [
  { name: "control: hyper-mcp v2 (list_tools, call_tool)", exports: [fnExport("list_tools"), fnExport("call_tool"), fnExport("complete"), memory], tools: ["get_time"] },
  { name: "hyper-mcp v2 without call_tool", exports: [fnExport("list_tools"), memory], tools: ["get_time"], problem: /export call_tool: missing \(a plugin of hyper-mcp's ABI v2/ },
  { name: "hyper-mcp v2 without list_tools", exports: [fnExport("call_tool"), memory], tools: ["get_time"], problem: /export list_tools: missing/ },
  { name: "control: describe and call", exports: [fnExport("describe"), fnExport("call"), memory], tools: ["x"] },
  { name: "control: one function per tool", exports: [fnExport("count_vowels"), memory], tools: ["count_vowels"] },
  { name: "none of the three shapes", exports: [fnExport("main"), memory], tools: [], problem: /neither describe and call, list_tools and call_tool, nor a function/ },
];
for (const row of shapes) {
  test(`Extism exports: ${row.name}`, () => {
    const problems = extismExportProblems(row.exports, row.tools);
    if (!row.problem) assert.deepEqual(problems, []);
    else assert.match(problems.join("\n"), row.problem);
  });
}

test("an Extism blob altered after compiling is refused before its imports are read", async () => {
  const pkg = await buildExtismProbe();
  try {
    const artifact = await compileExtism(pkg, cacheDir);
    const blob = join(artifact.dir, "plugin.wasm");
    const bytes = await readFile(blob);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await writeFile(blob, bytes);
    await assert.rejects(verifyPluginImports(artifact), { code: "artifact_tampered" });
  } finally {
    await rm(pkg.dir, { recursive: true, force: true });
  }
});

test("the component builder leaves Extism folders alone; component test plugins are still listed", async () => {
  const dirs = await pluginSourceDirs({ includeTests: true });
  assert.ok(!dirs.includes(EXTISM_PROBE_SOURCE));
  assert.ok(dirs.includes(join(PROJECT_ROOT, "test", "plugins", "probe")));
});

/** `name: func(...)` lines per interface of wit/host, with their parameter lists. */
async function witFunctions(): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  const dir = join(PROJECT_ROOT, "wit", "host");
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".wit"))) {
    const text = await readFile(join(dir, file), "utf8");
    for (const match of text.matchAll(/interface\s+([a-z][a-z0-9-]*)\s*\{([\s\S]*?)\n\}/g)) {
      const functions = new Map<string, string>();
      for (const f of match[2]!.matchAll(/^\s*(%?[a-z][a-z0-9-]*):\s*func\(([^)]*)\)/gm)) functions.set(f[1]!.replace(/^%/, ""), f[2]!);
      if (functions.size > 0) out.set(match[1]!, functions);
    }
  }
  return out;
}

test("HOST_FUNCTIONS lists exactly the functions of wit/host", async () => {
  const wit = await witFunctions();
  assert.deepEqual(Object.fromEntries([...wit].map(([iface, fns]) => [iface, [...fns.keys()].sort()])), Object.fromEntries(Object.entries(HOST_FUNCTIONS).map(([iface, fns]) => [iface, [...fns].sort()])));
  for (const [iface, fns] of Object.entries(HOST_FUNCTIONS)) {
    for (const wit of fns) assert.deepEqual(extismHostFunction(extismName(iface, wit))?.wit, wit);
  }
  assert.deepEqual(extismHostFunction("fs_list_dir"), { iface: "fs", fn: "listDir", wit: "list-dir" });
  assert.deepEqual(extismHostFunction("gmail_get_thread"), { iface: "gmail", fn: "getThread", wit: "get-thread" });
});

test("U64_PARAMS covers every u64 field of a record taken as a parameter", async () => {
  const records = new Map<string, string[]>();
  const dir = join(PROJECT_ROOT, "wit", "host");
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".wit"))) {
    const text = await readFile(join(dir, file), "utf8");
    const iface = /interface\s+([a-z-]+)/.exec(text)?.[1] ?? "";
    for (const match of text.matchAll(/record\s+([a-z-]+)\s*\{([\s\S]*?)\}/g)) {
      const fields = [...match[2]!.matchAll(/^\s*%?([a-z][a-z0-9-]*):\s*(?:option<)?u64\b/gm)].map((m) => m[1]!.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()));
      if (fields.length > 0) records.set(`${iface}.${match[1]}`, fields);
    }
  }
  const expected: Record<string, Array<Array<number | string>>> = {};
  for (const [iface, fns] of await witFunctions()) {
    for (const [name, params] of fns) {
      params.split(",").map((p) => p.split(":").map((s) => s.trim())).forEach(([, type], index) => {
        const fields = type ? records.get(`${iface}.${type}`) : undefined;
        const camel = name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
        if (fields) (expected[`${iface}.${camel}`] ??= []).push(...fields.map((f) => [index, f]));
        if (type === "u64") (expected[`${iface}.${camel}`] ??= []).push([index]);
      });
    }
  }
  assert.deepEqual(expected, U64_PARAMS);
});
