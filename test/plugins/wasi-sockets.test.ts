/**
 * Standard libraries import sockets whether or not the code opens one (Rust's wasm32-wasip2 std
 * imports all seven wasi:sockets interfaces; wasi-libc's preview1 sock_* functions): such a plugin
 * installs, through the shipped CLI, and its other tools work. Every sockets call it does make is
 * refused at call time with the WIT error a host without network gives, one denial on record,
 * and nothing opened. An import clawhive does not list stays refused at install.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { readComponentImports } from "../../runtime/plugins/component-imports.js";
import { cliPlace, clawhiveIn, type CliPlace } from "../cli/fixtures.js";
import { extismPackage } from "../helpers/extism-probe.js";
import { socketsComponent, WASI_VERSION, wasiWorld, watComponent } from "../helpers/wasi-components.js";

let place: CliPlace;
let listener: Server;
let connections = 0;
const SOCKETS = ["network", "instance-network", "ip-name-lookup", "tcp", "tcp-create-socket", "udp", "udp-create-socket"];

/** A record as `clawhive audit tail --json` prints it. */
interface Row {
  seq: number;
  status: string;
  host_call: { proxy: string; function: string } | null;
  denial: { reason: string; message: string } | null;
}

/** An agent of plugin `plugin`, granted nothing. */
const agent = (plugin: string) => `name: ${plugin}
description: Uses a plugin that imports sockets.
model: { provider: anthropic, id: none }
system_prompt: Not used; tools are called directly.
plugins:
  - { name: ${plugin}, version: "*" }
grants: {}
`;

async function writePackage(name: string, manifest: Record<string, unknown>, bytes: Uint8Array): Promise<string> {
  const dir = await mkdtemp(join(place.root, `${name}-`));
  await writeFile(join(dir, "plugin.json"), JSON.stringify(manifest));
  await writeFile(join(dir, "plugin.wasm"), bytes);
  return dir;
}

const call = (tool: string, input = "{}") => clawhiveIn(place, "call", tool, input, "--agent", tool.slice(0, tool.indexOf(".")), "--agents", place.agents);

/** The host-call records of tool `tool`, oldest first. */
function hostCalls(tool: string): Row[] {
  const result = clawhiveIn(place, "audit", "tail", "--kind", "host_call", "--tool", tool, "--limit", "100", "--json");
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as Row[]).sort((a, b) => a.seq - b.seq);
}

before(async () => {
  place = await cliPlace("clawhive-sockets-");
  for (const plugin of ["sockety", "sockety-p1"]) await writeFile(join(place.agents, `${plugin}.yaml`), agent(plugin));
  // Anything that did open a socket would have a loopback server to reach: none may arrive.
  listener = createServer((socket) => {
    connections++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
});
after(async () => {
  await new Promise((resolve) => listener.close(resolve));
  await rm(place.root, { recursive: true, force: true });
});

test("a component importing every wasi:sockets interface installs with no capability; its other tool works (control)", async () => {
  const component = await socketsComponent();
  const manifest = { name: "sockety", version: "0.1.0", description: "Imports wasi:sockets from its std.", publisher: "test", contract: "typed", capabilities: [], tools: { hello: { risk: "safe" }, connect: { risk: "safe" } } };
  const imports = readComponentImports(component.bytes, "sockety").map((i) => i.name);
  assert.deepEqual(imports.filter((i) => i.startsWith("wasi:sockets/")).sort(), SOCKETS.map((i) => `wasi:sockets/${i}@${WASI_VERSION}`).sort());
  const installed = clawhiveIn(place, "plugin", "install", await writePackage("sockety", manifest, component.bytes));
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, /installed sockety@0\.1\.0/);
  const hello = call("sockety.hello");
  assert.equal(hello.code, 0, hello.stderr);
  assert.match(hello.stdout, /hello from a component that imports wasi:sockets/);
  assert.deepEqual(hostCalls("sockety.hello"), []);
});

test("a component that tries to open sockets gets access-denied for each, one denial on record each, and opens nothing", () => {
  const result = call("sockety.connect");
  assert.equal(result.code, 0, result.stderr);
  // error-code case 1 is access-denied: a socket, a datagram socket and a lookup, each refused.
  assert.match(result.stdout, /tcp:E1 udp:E1 dns:E1/);
  const records = hostCalls("sockety.connect");
  assert.deepEqual(
    records.map((r) => [r.host_call?.proxy, r.host_call?.function, r.status, r.denial?.reason]),
    [
      ["sockets", "instance-network.instance-network", "denied", "sockets-not-served"],
      ["sockets", "tcp-create-socket.create-tcp-socket", "denied", "sockets-not-served"],
      ["sockets", "udp-create-socket.create-udp-socket", "denied", "sockets-not-served"],
      ["sockets", "ip-name-lookup.resolve-addresses", "denied", "sockets-not-served"],
    ],
  );
  assert.match(records[3]!.denial!.message, /resolve-addresses of "example\.com": this runtime opens no sockets/);
  assert.equal(connections, 0);
  const verify = clawhiveIn(place, "audit", "verify");
  assert.equal(verify.code, 0, verify.stdout + verify.stderr);
});

test("an Extism (wasip1) module's sock_* calls are refused the same way; a tool that opens none works (control)", async () => {
  const sock = (fn: string, params: string) => `(import "wasi_snapshot_preview1" "${fn}" (func $${fn} (param ${params}) (result i32)))`;
  const wat = `(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  ${sock("sock_accept", "i32 i32 i32")}
  ${sock("sock_recv", "i32 i32 i32 i32 i32 i32")}
  ${sock("sock_send", "i32 i32 i32 i32 i32")}
  ${sock("sock_shutdown", "i32 i32")}
  (memory (export "memory") 1)
  ;; Answers the four errnos as two decimal digits each.
  (func $digits (param $at i64) (param $n i32)
    (call $store_u8 (local.get $at) (i32.add (i32.const 48) (i32.div_u (local.get $n) (i32.const 10))))
    (call $store_u8 (i64.add (local.get $at) (i64.const 1)) (i32.add (i32.const 48) (i32.rem_u (local.get $n) (i32.const 10)))))
  (func (export "sockets") (result i32) (local $out i64)
    (local.set $out (call $alloc (i64.const 8)))
    (call $digits (local.get $out) (call $sock_accept (i32.const 3) (i32.const 0) (i32.const 64)))
    (call $digits (i64.add (local.get $out) (i64.const 2)) (call $sock_recv (i32.const 3) (i32.const 64) (i32.const 0) (i32.const 0) (i32.const 72) (i32.const 76)))
    (call $digits (i64.add (local.get $out) (i64.const 4)) (call $sock_send (i32.const 3) (i32.const 64) (i32.const 0) (i32.const 0) (i32.const 72)))
    (call $digits (i64.add (local.get $out) (i64.const 6)) (call $sock_shutdown (i32.const 3) (i32.const 2)))
    (call $output_set (local.get $out) (i64.const 8))
    (i32.const 0))
  (func (export "quiet") (result i32) (local $out i64)
    (local.set $out (call $alloc (i64.const 2)))
    (call $store_u8 (local.get $out) (i32.const 111))
    (call $store_u8 (i64.add (local.get $out) (i64.const 1)) (i32.const 107))
    (call $output_set (local.get $out) (i64.const 2))
    (i32.const 0))
)`;
  const manifest = { name: "sockety-p1", version: "0.1.0", description: "Imports preview1 sockets.", publisher: "test", format: "extism", capabilities: [], tools: { sockets: { risk: "safe" }, quiet: { risk: "safe" } } };
  const pkg = await extismPackage(wat, manifest, { dir: await mkdtemp(join(place.root, "p1-")) });
  const installed = clawhiveIn(place, "plugin", "install", pkg.dir);
  assert.equal(installed.code, 0, installed.stderr);
  const quiet = call("sockety-p1.quiet", '{"input":""}');
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.match(quiet.stdout, /ok/);
  assert.deepEqual(hostCalls("sockety-p1.quiet"), []);
  const refused = call("sockety-p1.sockets", '{"input":""}');
  assert.equal(refused.code, 0, refused.stderr);
  // 57 is preview1's ENOTSOCK: no descriptor here is a socket.
  assert.match(refused.stdout, /57575757/);
  assert.deepEqual(
    hostCalls("sockety-p1.sockets").map((r) => [r.host_call?.function, r.status, r.denial?.reason]),
    ["sock_accept", "sock_recv", "sock_send", "sock_shutdown"].map((fn) => [`preview1.${fn}`, "denied", "sockets-not-served"]),
  );
  assert.equal(connections, 0);
});

test("an import clawhive does not list stays refused at install, naming it; nothing is installed", async () => {
  const wat = `(module
  (import "wasi:keyvalue/store@0.2.0-draft" "open" (func $open (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "run") (result i32) (call $open (i32.const 0) (i32.const 0))))`;
  const keyvalue = `package wasi:keyvalue@0.2.0-draft {\n  interface store {\n    resource bucket;\n    open: func(identifier: string) -> bucket;\n  }\n}\n`;
  const component = await watComponent(wat, `${await wasiWorld("  import wasi:keyvalue/store@0.2.0-draft;\n  export run: func() -> u32;", [])}\n${keyvalue}`);
  const manifest = { name: "keyvalue-user", version: "0.1.0", description: "Imports wasi:keyvalue.", publisher: "test", contract: "typed", capabilities: ["kv"], tools: { run: { risk: "safe" } } };
  const refused = clawhiveIn(place, "plugin", "install", await writePackage("keyvalue", manifest, component.bytes));
  assert.equal(refused.code, 2, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /wasi:keyvalue\/store@0\.2\.0-draft: outside the plugin contract/);
  const info = clawhiveIn(place, "plugin", "info", "keyvalue-user");
  assert.notEqual(info.code, 0);
});
