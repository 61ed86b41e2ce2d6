/**
 * Extism modules written in WAT that use the ABIs third-party toolchains build against:
 *
 * - the Rust PDK's logging (extism/rust-pdk `src/extism.rs`, `src/macros.rs`): it imports
 *   `get_log_level() -> i32` and `log_trace` … `log_error(offset: u64)` from `extism:host/env`,
 *   and its `log!` macro sends a line only when its level's integer (trace 0 … error 4) is at
 *   least `get_log_level()` and that is not `i32::MAX` (logging off);
 * - hyper-mcp's plugin ABI v2 (tuananh/hyper-mcp `src/plugin.rs`, `examples/plugins/v2/rstime`):
 *   the module exports `list_tools` and `call_tool`, each reading a JSON request.
 */
import { extismPackage, type ExtismPackage } from "./extism-probe.js";

const LEVELS = ["trace", "debug", "info", "warn", "error"] as const;

/** The kernel functions every module here imports, and `$block` (memory → a new Extism block) and `$out`. */
const KERNEL = `
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))`;

const HELPERS = `
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
    (call $output_set (call $block (local.get $p) (local.get $n)) (i64.extend_i32_u (local.get $n))))`;

/** The line each level's log function is sent: "<level> line", at offset 16 × level. */
export const LOG_LINES = LEVELS.map((level) => `${level} line`);

/**
 * A plugin of exported functions (the Rust PDK's shape): `macro` logs one line at each level
 * the way the PDK's `log!` macro does (asking `get_log_level` first), `raw` calls every log
 * function whatever the level, and `level` answers `get_log_level()` in decimal.
 */
export function pdkLogWat(): string {
  // Each line at 16 × level, its length in the segment's last byte.
  const data = LOG_LINES.map((line, i) => `(data (i32.const ${i * 16}) "${line}") (data (i32.const ${i * 16 + 15}) "\\${line.length.toString(16).padStart(2, "0")}")`).join("\n  ");
  const send = LEVELS.map((level, i) => `(if (i32.eq (local.get $level) (i32.const ${i})) (then (call $log_${level} (local.get $b))))`).join("\n      ");
  return `(module${KERNEL}
  (import "extism:host/env" "get_log_level" (func $get_log_level (result i32)))
  ${LEVELS.map((level) => `(import "extism:host/env" "log_${level}" (func $log_${level} (param i64)))`).join("\n  ")}
  (memory (export "memory") 1)
  ${data}
  (data (i32.const 96) "done")${HELPERS}
  ;; Sends the line of $level to its log function.
  (func $send (param $level i32) (local $b i64) (local $at i32)
    (local.set $at (i32.mul (local.get $level) (i32.const 16)))
    (local.set $b (call $block (local.get $at) (i32.load8_u (i32.add (local.get $at) (i32.const 15)))))
    ${send})
  ;; extism-pdk's log! macro: a line only at or above the host's level, and none when it is i32::MAX.
  (func $log (param $level i32) (local $current i32)
    (local.set $current (call $get_log_level))
    (if (i32.and (i32.ge_s (local.get $level) (local.get $current)) (i32.ne (local.get $current) (i32.const 0x7fffffff)))
      (then (call $send (local.get $level)))))
  (func (export "macro") (result i32) (local $l i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $l) (i32.const 5)))
      (call $log (local.get $l))
      (local.set $l (i32.add (local.get $l) (i32.const 1)))
      (br $next)))
    (call $out (i32.const 96) (i32.const 4))
    (i32.const 0))
  (func (export "raw") (result i32) (local $l i32)
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $l) (i32.const 5)))
      (call $send (local.get $l))
      (local.set $l (i32.add (local.get $l) (i32.const 1)))
      (br $next)))
    (call $out (i32.const 96) (i32.const 4))
    (i32.const 0))
  ${LEVEL_EXPORT}
)`;
}

/** `level`: `get_log_level()` as decimal text (written backwards from offset 160). */
const LEVEL_EXPORT = `(func (export "level") (result i32) (local $v i32) (local $p i32)
    (local.set $v (call $get_log_level))
    (local.set $p (i32.const 160))
    (loop $digit
      (local.set $p (i32.sub (local.get $p) (i32.const 1)))
      (i32.store8 (local.get $p) (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10))))
      (local.set $v (i32.div_u (local.get $v) (i32.const 10)))
      (br_if $digit (i32.ne (local.get $v) (i32.const 0))))
    (call $out (local.get $p) (i32.sub (i32.const 160) (local.get $p)))
    (i32.const 0))`;

/** A module importing only `get_log_level` (no log function, so it installs without `log`). */
export function pdkLevelOnlyWat(): string {
  return `(module${KERNEL}
  (import "extism:host/env" "get_log_level" (func $get_log_level (result i32)))
  (memory (export "memory") 1)${HELPERS}
  ${LEVEL_EXPORT}
)`;
}

/** What a hyper-mcp v2 module's `list_tools` answers: two tools, one with only a title. */
export const V2_TOOLS = {
  tools: [
    {
      name: "get_time",
      title: "Get Current Time",
      description: "Returns the current time in a timezone.",
      inputSchema: { type: "object", properties: { timezone: { type: "string" } } },
      outputSchema: { type: "object", properties: { current_time: { type: "string" } }, required: ["current_time"] },
    },
    { name: "echo_request", title: "Echo the request", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
  ],
};

/**
 * A hyper-mcp v2 module: `list_tools` answers V2_TOOLS; `call_tool` answers a CallToolResult
 * whose only content is structured: the request it was given, as it was given (so a test sees
 * the exact JSON the host sent). `exports` drops one of the two to check the install refusal.
 */
export function hyperMcpV2Wat(options: { exports?: { listTools?: boolean; callTool?: boolean } } = {}): string {
  const tools = JSON.stringify(V2_TOOLS);
  const head = '{"content":[],"structuredContent":';
  const wat = (text: string) => text.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
  const listTools = options.exports?.listTools ?? true;
  const callTool = options.exports?.callTool ?? true;
  return `(module${KERNEL}
  (memory (export "memory") 2)
  (data (i32.const 0) "${wat(tools)}")
  (data (i32.const 4096) "${wat(head)}")${HELPERS}
  (func ${listTools ? '(export "list_tools")' : ""} (result i32)
    (call $out (i32.const 0) (i32.const ${Buffer.byteLength(tools)}))
    (i32.const 0))
  ;; The output: head, then the input's bytes, then "}".
  (func ${callTool ? '(export "call_tool")' : ""} (result i32) (local $n i32) (local $i i32) (local $at i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    (local.set $at (i32.const ${4096 + head.length}))
    (block $done (loop $next
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (i32.store8 (i32.add (local.get $at) (local.get $i)) (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $next)))
    (i32.store8 (i32.add (local.get $at) (local.get $n)) (i32.const 125))
    (call $out (i32.const 4096) (i32.add (local.get $n) (i32.const ${head.length + 1})))
    (i32.const 0))
)`;
}

/** A package of `wat` as Extism plugin `name` with `tools` (risk safe) and `capabilities`. */
export function pdkPackage(name: string, wat: string, tools: readonly string[], capabilities: string[] = [], dir?: string): Promise<ExtismPackage> {
  const manifest = { name, version: "0.1.0", description: `Extism test module ${name}.`, publisher: "test", format: "extism", capabilities, tools: Object.fromEntries(tools.map((t) => [t, { risk: "safe" }])) };
  return extismPackage(wat, manifest, dir === undefined ? {} : { dir });
}
