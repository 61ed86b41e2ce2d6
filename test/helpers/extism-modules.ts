/**
 * Tiny Extism modules written inline, for tests of what the format allows: each has a valid
 * `describe` (one tool, `run`) and a `call` that runs `body`, then answers the text "reached".
 */
import { extismManifest, extismPackage, type ExtismPackage } from "./extism-probe.js";

/** A WAT string literal holding `text` (ASCII). */
function watString(text: string): string {
  return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/** `describe`'s answer: the one tool `run`, declaring `capabilities`. */
function describeText(capabilities: readonly string[], inputSchema: unknown = { type: "object" }): string {
  return JSON.stringify({ tools: [{ name: "run", description: "Runs the module's body.", inputSchema, capabilities }] });
}
const REACHED = JSON.stringify({ content: [{ type: "text", text: "reached" }] });

export interface ExtismModuleOptions {
  /** WAT import lines. */
  imports?: string;
  /** WAT instructions run by `call` before it answers; `$block(ptr, len)` copies memory into a block. */
  body?: string;
  /** Data segments at offsets of 4096 and up: [offset, ASCII text]. */
  data?: Array<[number, string]>;
  exports?: { describe?: boolean; call?: boolean; memory?: boolean };
  /** The capabilities the tool `run` declares in `describe` (default none). */
  toolCapabilities?: readonly string[];
  /** The input schema `describe` gives the tool `run` (default `{"type":"object"}`). */
  inputSchema?: unknown;
}

/** WAT of a module that also declares `imports` and runs `body` in `call`. */
export function extismModuleWat(options: ExtismModuleOptions = {}): string {
  const exports = { describe: true, call: true, memory: true, ...options.exports };
  const describe = describeText(options.toolCapabilities ?? [], options.inputSchema);
  return `(module
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  ${options.imports ?? ""}
  (memory ${exports.memory ? '(export "memory")' : ""} 1)
  (data (i32.const 0) ${watString(describe)})
  (data (i32.const 2048) ${watString(REACHED)})
  ${(options.data ?? []).map(([offset, text]) => `(data (i32.const ${offset}) ${watString(text)})`).join("\n  ")}
  ;; Copies wasm memory into a new Extism block.
  (func $block (param $p i32) (param $n i32) (result i64)
    (local $a i64) (local $i i32)
    (local.set $a (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $a) (i64.extend_i32_u (local.get $i))) (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $a))
  (func $out (param $p i32) (param $n i32)
    (call $output_set (call $block (local.get $p) (local.get $n)) (i64.extend_i32_u (local.get $n))))
  (func ${exports.describe ? '(export "describe")' : ""} (result i32)
    (call $out (i32.const 0) (i32.const ${describe.length}))
    (i32.const 0))
  (func ${exports.call ? '(export "call")' : ""} (result i32)
    ${options.body ?? ""}
    (call $out (i32.const 2048) (i32.const ${REACHED.length}))
    (i32.const 0))
)`;
}

/** A package of such a module, with a manifest declaring `capabilities` and the tool `run`. */
export function extismModulePackage(name: string, options: ExtismModuleOptions & { capabilities?: string[] } = {}): Promise<ExtismPackage> {
  return extismPackage(extismModuleWat(options), extismManifest(name, options.capabilities ?? []));
}
