;; An Extism plugin shaped like an mcp.run servlet: it exports `describe` and `call`, and moves
;; bytes the way the Extism PDKs do (Rust PDK `input()` / `Memory::from_bytes` / `output`):
;; input is copied into linear memory with `input_load_u64` in 8-byte chunks plus
;; `input_load_u8` for the tail; output is copied into a kernel block made by `alloc` with
;; `store_u64` / `store_u8`, then handed over with `output_set`. No WASI, no other host calls.
;; Compiled at bench time with wabt (bench/peers/extism.ts); no .wasm is committed.
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))

  (memory (export "memory") 1)

  ;; The describe answer lives at 0; the input buffer starts at $input_base.
  (data (i32.const 0)
    "{\"tools\":[{\"name\":\"echo\",\"description\":\"Returns its input unchanged.\",\"inputSchema\":{\"type\":\"object\"}}]}")
  (global $describe_len i32 (i32.const 104))
  (global $input_base i32 (i32.const 1024))

  ;; Copies `len` bytes at linear address `ptr` into a fresh kernel block and sets it as output.
  (func $write_output (param $ptr i32) (param $len i32)
    (local $block i64)
    (local $i i32)
    (local $whole i32)
    (local.set $block (call $alloc (i64.extend_i32_u (local.get $len))))
    (local.set $whole (i32.and (local.get $len) (i32.const -8)))
    (block $done8
      (loop $next8
        (br_if $done8 (i32.ge_u (local.get $i) (local.get $whole)))
        (call $store_u64
          (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i64.load (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next8)))
    (block $done1
      (loop $next1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $len)))
        (call $store_u8
          (i64.add (local.get $block) (i64.extend_i32_u (local.get $i)))
          (i32.load8_u (i32.add (local.get $ptr) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next1)))
    (call $output_set (local.get $block) (i64.extend_i32_u (local.get $len))))

  ;; Copies the whole input to $input_base, growing memory as needed; returns its length.
  (func $read_input (result i32)
    (local $len i32)
    (local $i i32)
    (local $whole i32)
    (local $pages i32)
    (local.set $len (i32.wrap_i64 (call $input_length)))
    (local.set $pages
      (i32.shr_u
        (i32.add (i32.add (global.get $input_base) (local.get $len)) (i32.const 65535))
        (i32.const 16)))
    (if (i32.gt_u (local.get $pages) (memory.size))
      (then
        (if (i32.eq (memory.grow (i32.sub (local.get $pages) (memory.size))) (i32.const -1))
          (then (unreachable)))))
    (local.set $whole (i32.and (local.get $len) (i32.const -8)))
    (block $done8
      (loop $next8
        (br_if $done8 (i32.ge_u (local.get $i) (local.get $whole)))
        (i64.store
          (i32.add (global.get $input_base) (local.get $i))
          (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next8)))
    (block $done1
      (loop $next1
        (br_if $done1 (i32.ge_u (local.get $i) (local.get $len)))
        (i32.store8
          (i32.add (global.get $input_base) (local.get $i))
          (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next1)))
    (local.get $len))

  ;; Extism exports return an i32 status: 0 is success.
  (func (export "describe") (result i32)
    (call $write_output (i32.const 0) (global.get $describe_len))
    (i32.const 0))

  (func (export "call") (result i32)
    (call $write_output (global.get $input_base) (call $read_input))
    (i32.const 0)))
