/**
 * Components made at test time from a WAT core module and a WIT world that imports real WASI
 * 0.2 interfaces: the WASI packages are jco's own copies (WASI 0.2.12, as published by the WASI
 * subgroup), nested into the world's WIT, and the core module is embedded and made a component
 * with jco's `componentEmbed` and `componentNew` (wit-component). A component made this way
 * imports exactly the interfaces whose functions the core module imports, as a toolchain's
 * output does: the bytes install, transpile and run like any third party's.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { componentEmbed, componentNew } from "@bytecodealliance/jco";
import { sha256 } from "../../runtime/plugins/artifact.js";
import { watToWasm } from "./extism-probe.js";

export const WASI_VERSION = "0.2.12";

// jco's entry is dist/api.js; its WIT copies are lib/wit/builtin/<version>/ beside dist/.
const witRoot = join(dirname(dirname(fileURLToPath(import.meta.resolve("@bytecodealliance/jco")))), "lib", "wit", "builtin", WASI_VERSION);

/** A WASI package (`wasi-io`, `wasi-sockets`, …) as a nested WIT package block. */
async function nested(name: string): Promise<string> {
  const text = await readFile(join(witRoot, name, "package.wit"), "utf8");
  return `${text.replace(/^package ([^;]+);/m, "package $1 {")}\n}\n`;
}

/** `world` (a WIT world body, under `package test:wasi;`) with the WASI packages it uses. */
export async function wasiWorld(world: string, packages: readonly string[]): Promise<string> {
  return `package test:wasi;\nworld root {\n${world}\n}\n${(await Promise.all(packages.map(nested))).join("\n")}`;
}

/** A component of the core module `wat` targeting `wit`'s world `root`. */
export async function watComponent(wat: string, wit: string): Promise<{ bytes: Uint8Array; sha256: string }> {
  const core = await watToWasm(wat);
  const embedded = await componentEmbed({ binary: core, witSource: wit, world: "root" } as Parameters<typeof componentEmbed>[0]);
  const bytes = new Uint8Array(await componentNew(embedded, []));
  return { bytes, sha256: sha256(bytes) };
}

/** A WAT data segment holding `text` (ASCII) at `offset`, and the text's length. */
export function watText(offset: number, text: string): { data: string; length: number } {
  return { data: `(data (i32.const ${offset}) "${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}")`, length: Buffer.byteLength(text) };
}

const SOCKETS = ["network", "instance-network", "tcp-create-socket", "tcp", "udp-create-socket", "udp", "ip-name-lookup"];

/**
 * A component importing all seven `wasi:sockets` interfaces, as Rust's wasm32-wasip2 std does,
 * with two typed exports: `hello` opens nothing (returns a greeting), `connect` asks for its
 * instance's network, tries a TCP socket, a UDP socket and a name lookup of example.com, and
 * returns what each answered: `tcp:ok` on success, `tcp:E<n>` for WIT `error-code` case n
 * (1 is `access-denied`).
 */
export async function socketsComponent(): Promise<{ bytes: Uint8Array; sha256: string }> {
  const v = WASI_VERSION;
  const hello = watText(16, "hello from a component that imports wasi:sockets");
  const outcome = watText(128, "tcp:?? udp:?? dns:??");
  const host = watText(192, "example.com");
  const wat = `(module
  (import "wasi:sockets/instance-network@${v}" "instance-network" (func $network (result i32)))
  (import "wasi:sockets/network@${v}" "[resource-drop]network" (func $drop_network (param i32)))
  (import "wasi:sockets/tcp-create-socket@${v}" "create-tcp-socket" (func $tcp (param i32 i32)))
  (import "wasi:sockets/tcp@${v}" "[resource-drop]tcp-socket" (func $drop_tcp (param i32)))
  (import "wasi:sockets/udp-create-socket@${v}" "create-udp-socket" (func $udp (param i32 i32)))
  (import "wasi:sockets/udp@${v}" "[resource-drop]udp-socket" (func $drop_udp (param i32)))
  (import "wasi:sockets/ip-name-lookup@${v}" "resolve-addresses" (func $lookup (param i32 i32 i32 i32)))
  (import "wasi:sockets/ip-name-lookup@${v}" "[resource-drop]resolve-address-stream" (func $drop_lookup (param i32)))
  (memory (export "memory") 1)
  ${hello.data}
  ${outcome.data}
  ${host.data}
  (func (export "hello") (result i32)
    (i32.store (i32.const 0) (i32.const 16))
    (i32.store (i32.const 4) (i32.const ${hello.length}))
    (i32.const 0))
  ;; The result<own<_>, error-code> at $ret, written at $at as "ok" or "E<case>"; a handle is dropped.
  (func $note (param $ret i32) (param $at i32) (param $kind i32)
    (if (i32.eqz (i32.load8_u (local.get $ret)))
      (then
        (i32.store16 (local.get $at) (i32.const 0x6b6f))
        (if (i32.eq (local.get $kind) (i32.const 0)) (then (call $drop_tcp (i32.load (i32.add (local.get $ret) (i32.const 4))))))
        (if (i32.eq (local.get $kind) (i32.const 1)) (then (call $drop_udp (i32.load (i32.add (local.get $ret) (i32.const 4))))))
        (if (i32.eq (local.get $kind) (i32.const 2)) (then (call $drop_lookup (i32.load (i32.add (local.get $ret) (i32.const 4)))))))
      (else
        (i32.store8 (local.get $at) (i32.const 69))
        (i32.store8 (i32.add (local.get $at) (i32.const 1)) (i32.add (i32.const 48) (i32.load8_u (i32.add (local.get $ret) (i32.const 4))))))))
  (func (export "connect") (result i32) (local $net i32)
    (local.set $net (call $network))
    (call $tcp (i32.const 0) (i32.const 256))
    (call $note (i32.const 256) (i32.const 132) (i32.const 0))
    (call $udp (i32.const 0) (i32.const 264))
    (call $note (i32.const 264) (i32.const 139) (i32.const 1))
    (call $lookup (local.get $net) (i32.const 192) (i32.const ${host.length}) (i32.const 272))
    (call $note (i32.const 272) (i32.const 146) (i32.const 2))
    (call $drop_network (local.get $net))
    (i32.store (i32.const 0) (i32.const 128))
    (i32.store (i32.const 4) (i32.const ${outcome.length}))
    (i32.const 0))
)`;
  const world = [...SOCKETS.map((i) => `  import wasi:sockets/${i}@${v};`), "  export hello: func() -> string;", "  export connect: func() -> string;"].join("\n");
  return watComponent(wat, await wasiWorld(world, ["wasi-io", "wasi-clocks", "wasi-sockets"]));
}

/**
 * A typed component (tool `hello`) whose imports are those of a std-built program: it takes the
 * preopens and one file function (`[method]descriptor.read`, or with `writes`
 * `[method]descriptor.write-via-stream`), stdout, a `wasi:http/types` resource it only drops (no
 * outgoing handler: it can send nothing) and a TCP socket it would be refused. Its code can read
 * (or write) files and print, nothing else.
 */
export async function stdComponent(options: { writes?: boolean } = {}): Promise<{ bytes: Uint8Array; sha256: string }> {
  const v = WASI_VERSION;
  const hello = watText(64, "hello from a std-built component");
  const file = options.writes
    ? `(import "wasi:filesystem/types@${v}" "[method]descriptor.write-via-stream" (func $write (param i32 i64 i32)))`
    : `(import "wasi:filesystem/types@${v}" "[method]descriptor.read" (func $read (param i32 i64 i64 i32)))`;
  const wat = `(module
  (import "wasi:filesystem/preopens@${v}" "get-directories" (func $dirs (param i32)))
  ${file}
  (import "wasi:cli/stdout@${v}" "get-stdout" (func $stdout (result i32)))
  (import "wasi:http/types@${v}" "[resource-drop]fields" (func $drop_fields (param i32)))
  (import "wasi:sockets/tcp-create-socket@${v}" "create-tcp-socket" (func $tcp (param i32 i32)))
  (memory (export "memory") 1)
  (global $heap (mut i32) (i32.const 1024))
  ${hello.data}
  ;; A bump allocator: the host lowers lists into the guest's memory through it.
  (func (export "cabi_realloc") (param i32 i32 i32 i32) (result i32) (local $at i32)
    (local.set $at (i32.and (i32.add (global.get $heap) (i32.sub (local.get 2) (i32.const 1))) (i32.sub (i32.const 0) (local.get 2))))
    (global.set $heap (i32.add (local.get $at) (local.get 3)))
    (local.get $at))
  (func (export "hello") (result i32)
    (i32.store (i32.const 0) (i32.const 64))
    (i32.store (i32.const 4) (i32.const ${hello.length}))
    (i32.const 0))
)`;
  const world = [
    `  import wasi:filesystem/preopens@${v};`,
    `  import wasi:filesystem/types@${v};`,
    `  import wasi:cli/stdout@${v};`,
    `  import wasi:http/types@${v};`,
    `  import wasi:sockets/tcp-create-socket@${v};`,
    "  export hello: func() -> string;",
  ].join("\n");
  return watComponent(wat, await wasiWorld(world, ["wasi-io", "wasi-clocks", "wasi-random", "wasi-filesystem", "wasi-sockets", "wasi-cli", "wasi-http"]));
}
