;; A test Extism plugin in the mcp.run servlet shape (docs/extism.md), written by hand in WAT so
;; the test suite needs no Extism toolchain: `describe` and `call` exports, the Extism kernel
;; from extism:host/env, clawhive host functions from extism:host/user.
;;
;; It relies on the exact input the runtime sends, {"params":{"name":"<tool>","arguments":<json>}}
;; (JSON.stringify order): the tool name starts at byte 19. Argument values are found by key and
;; copied as they are (still JSON-escaped) into the host calls' JSON parameters.
;;
;; Memory: literals below 0x10000, input at 0x10000, host-call parameters at 0x80000, output
;; built at 0x100000, host responses at 0x200000.
(module
  (import "extism:host/env" "input_length" (func $input_length (result i64)))
  (import "extism:host/env" "input_load_u8" (func $input_load_u8 (param i64) (result i32)))
  (import "extism:host/env" "input_load_u64" (func $input_load_u64 (param i64) (result i64)))
  (import "extism:host/env" "alloc" (func $alloc (param i64) (result i64)))
  (import "extism:host/env" "free" (func $free (param i64)))
  (import "extism:host/env" "length" (func $length (param i64) (result i64)))
  (import "extism:host/env" "load_u8" (func $load_u8 (param i64) (result i32)))
  (import "extism:host/env" "load_u64" (func $load_u64 (param i64) (result i64)))
  (import "extism:host/env" "store_u8" (func $store_u8 (param i64 i32)))
  (import "extism:host/env" "store_u64" (func $store_u64 (param i64 i64)))
  (import "extism:host/env" "output_set" (func $output_set (param i64 i64)))
  (import "extism:host/env" "error_set" (func $error_set (param i64)))
  (import "extism:host/env" "var_get" (func $var_get (param i64) (result i64)))
  (import "extism:host/env" "var_set" (func $var_set (param i64 i64)))
  (import "extism:host/user" "fs_read" (func $fs_read (param i64) (result i64)))
  (import "extism:host/user" "fs_write" (func $fs_write (param i64) (result i64)))
  (import "extism:host/user" "fs_search" (func $fs_search (param i64) (result i64)))
  (import "extism:host/user" "log_write" (func $log_write (param i64) (result i64)))

  (memory (export "memory") 64)

  (global $cur (mut i32) (i32.const 0))
  (global $in_end (mut i32) (i32.const 0))
  (global $name_len (mut i32) (i32.const 0))
  (global $vlen (mut i32) (i32.const 0))
  (global $counter (mut i32) (i32.const 0))

  ;; Tool names.
  (data (i32.const 0x100) "echo\00")
  (data (i32.const 0x140) "read\00")
  (data (i32.const 0x180) "write\00")
  (data (i32.const 0x1c0) "log\00")
  (data (i32.const 0x200) "fail\00")
  (data (i32.const 0x240) "err\00")
  (data (i32.const 0x280) "trap\00")
  (data (i32.const 0x2c0) "spin\00")
  (data (i32.const 0x300) "grow\00")
  (data (i32.const 0x340) "hog\00")
  (data (i32.const 0x380) "big\00")
  (data (i32.const 0x3c0) "count\00")
  (data (i32.const 0x400) "alloc\00")
  (data (i32.const 0xa00) "remember\00")
  (data (i32.const 0xa40) "recall\00")
  (data (i32.const 0xa80) "varbomb\00")
  (data (i32.const 0xac0) "\"value\":\"\00")
  (data (i32.const 0xb00) "memo\00")
  (data (i32.const 0xb40) "none\00")
  (data (i32.const 0xb80) "search\00")
  ;; Argument keys.
  (data (i32.const 0x440) "\"path\":\"\00")
  (data (i32.const 0x480) "\"data\":\"\00")
  (data (i32.const 0x4c0) "\"message\":\"\00")
  (data (i32.const 0x500) "\"bytes\":\00")
  (data (i32.const 0x540) "\"mib\":\00")
  (data (i32.const 0x580) "\"arguments\":\00")
  (data (i32.const 0x5c0) "\"\00")
  (data (i32.const 0x5e0) "\"pattern\":\"\00")
  ;; Output pieces.
  (data (i32.const 0x600) "{\"content\":[{\"type\":\"text\",\"text\":\"\00")
  (data (i32.const 0x640) "\"}]}\00")
  (data (i32.const 0x680) "\"}],\"isError\":true}\00")
  (data (i32.const 0x6c0) "\"}],\"isError\":true,\"toolError\":\00")
  (data (i32.const 0x700) "}\00")
  (data (i32.const 0x740) "probe failed on request\00")
  (data (i32.const 0x780) "probe error_set\00")
  (data (i32.const 0x7c0) "unknown tool\00")
  (data (i32.const 0x800) "ok\00")
  (data (i32.const 0x840) "{\"error\"\00")
  ;; Host-call parameter pieces.
  (data (i32.const 0x880) "[\"\00")
  (data (i32.const 0x8c0) "\"]\00")
  (data (i32.const 0x900) "\",{\"$bytes\":\"\00")
  (data (i32.const 0x940) "\"}]\00")
  (data (i32.const 0x980) "[\"info\",\"\00")
  (data (i32.const 0x9c0) "\",{\"pattern\":\"\00")

  (data (i32.const 0x1000)
    "{\"tools\":["
    "{\"name\":\"echo\",\"description\":\"Returns its arguments.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"count\",\"description\":\"Counts its calls.\",\"inputSchema\":{\"type\":\"object\"}},"
    "{\"name\":\"read\",\"description\":\"Reads a file through fs_read.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]},\"capabilities\":[\"fs.read\"]},"
    "{\"name\":\"search\",\"description\":\"Searches below path for pattern through fs_search.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"pattern\":{\"type\":\"string\"}},\"required\":[\"path\",\"pattern\"]},\"capabilities\":[\"fs.read\"]},"
    "{\"name\":\"write\",\"description\":\"Writes base64 data through fs_write.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"data\":{\"type\":\"string\"}},\"required\":[\"path\",\"data\"]},\"capabilities\":[\"fs.write\"]},"
    "{\"name\":\"log\",\"description\":\"Writes a log line through log_write.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"message\":{\"type\":\"string\"}}},\"capabilities\":[\"log\"]},"
    "{\"name\":\"fail\",\"description\":\"Answers isError.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"err\",\"description\":\"Sets an Extism error and returns 1.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"trap\",\"description\":\"Traps.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"spin\",\"description\":\"Loops forever.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"grow\",\"description\":\"Grows its memory until that fails, then traps.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"hog\",\"description\":\"Allocates 16 MiB Extism blocks until stopped.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"alloc\",\"description\":\"Allocates and frees mib Extism blocks of 1 MiB.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"mib\":{\"type\":\"integer\"}}},\"capabilities\":[]},"
    "{\"name\":\"remember\",\"description\":\"Keeps value in an Extism var.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"value\":{\"type\":\"string\"}}},\"capabilities\":[]},"
    "{\"name\":\"recall\",\"description\":\"Answers the Extism var, or none.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"varbomb\",\"description\":\"Sets a 2 MiB Extism var.\",\"inputSchema\":{\"type\":\"object\"},\"capabilities\":[]},"
    "{\"name\":\"big\",\"description\":\"Answers a text of the given size.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"bytes\":{\"type\":\"integer\"}}},\"capabilities\":[]}"
    "]}\00")

  (func $strlen (param $p i32) (result i32)
    (local $n i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (i32.load8_u (i32.add (local.get $p) (local.get $n)))))
        (local.set $n (i32.add (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $n))

  (func $memeq (param $a i32) (param $b i32) (param $n i32) (result i32)
    (local $i i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (if (i32.ne (i32.load8_u (i32.add (local.get $a) (local.get $i))) (i32.load8_u (i32.add (local.get $b) (local.get $i))))
          (then (return (i32.const 0))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const 1))

  ;; Appends bytes at $cur.
  (func $put (param $p i32) (param $n i32)
    (memory.copy (global.get $cur) (local.get $p) (local.get $n))
    (global.set $cur (i32.add (global.get $cur) (local.get $n))))

  (func $lit (param $p i32)
    (call $put (local.get $p) (call $strlen (local.get $p))))

  (func $byte (param $c i32)
    (i32.store8 (global.get $cur) (local.get $c))
    (global.set $cur (i32.add (global.get $cur) (i32.const 1))))

  ;; Appends bytes as the inside of a JSON string.
  (func $esc (param $p i32) (param $n i32)
    (local $i i32) (local $c i32)
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (local.set $c (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (if (i32.or (i32.eq (local.get $c) (i32.const 34)) (i32.eq (local.get $c) (i32.const 92)))
          (then (call $byte (i32.const 92))))
        (if (i32.lt_u (local.get $c) (i32.const 32)) (then (local.set $c (i32.const 32))))
        (call $byte (local.get $c))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next))))

  ;; Appends an unsigned decimal.
  (func $itoa (param $v i32)
    (if (i32.ge_u (local.get $v) (i32.const 10))
      (then (call $itoa (i32.div_u (local.get $v) (i32.const 10)))))
    (call $byte (i32.add (i32.const 48) (i32.rem_u (local.get $v) (i32.const 10)))))

  ;; Copies wasm memory into a new Extism block.
  (func $to_block (param $p i32) (param $n i32) (result i64)
    (local $a i64) (local $i i32)
    (local.set $a (call $alloc (i64.extend_i32_u (local.get $n))))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (call $store_u64 (i64.add (local.get $a) (i64.extend_i32_u (local.get $i))) (i64.load (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (call $store_u8 (i64.add (local.get $a) (i64.extend_i32_u (local.get $i))) (i32.load8_u (i32.add (local.get $p) (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $a))

  ;; Copies an Extism block into wasm memory; returns its length.
  (func $from_block (param $a i64) (param $dst i32) (result i32)
    (local $n i32) (local $i i32)
    (local.set $n (i32.wrap_i64 (call $length (local.get $a))))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (i64.store (i32.add (local.get $dst) (local.get $i)) (call $load_u64 (i64.add (local.get $a) (i64.extend_i32_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (local.get $dst) (local.get $i)) (call $load_u8 (i64.add (local.get $a) (i64.extend_i32_u (local.get $i)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (local.get $n))

  ;; Copies the input to 0x10000; sets $in_end.
  (func $read_input
    (local $n i32) (local $i i32)
    (local.set $n (i32.wrap_i64 (call $input_length)))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (i32.const 8)) (local.get $n)))
        (i64.store (i32.add (i32.const 0x10000) (local.get $i)) (call $input_load_u64 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 8)))
        (br $next)))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
        (i32.store8 (i32.add (i32.const 0x10000) (local.get $i)) (call $input_load_u8 (i64.extend_i32_u (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (global.set $in_end (i32.add (i32.const 0x10000) (local.get $n))))

  ;; Where the literal $lit first occurs in the input from $start, or -1.
  (func $find (param $start i32) (param $lit i32) (result i32)
    (local $n i32) (local $i i32)
    (local.set $n (call $strlen (local.get $lit)))
    (local.set $i (local.get $start))
    (block $done
      (loop $next
        (br_if $done (i32.gt_u (i32.add (local.get $i) (local.get $n)) (global.get $in_end)))
        (if (call $memeq (local.get $i) (local.get $lit) (local.get $n)) (then (return (local.get $i))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (i32.const -1))

  ;; The string value after key literal $key (still JSON-escaped); its length in $vlen.
  (func $str_value (param $key i32) (result i32)
    (local $at i32) (local $i i32)
    (local.set $at (call $find (i32.const 0x10000) (local.get $key)))
    (if (i32.lt_s (local.get $at) (i32.const 0))
      (then (global.set $vlen (i32.const 0)) (return (i32.const 0x10000))))
    (local.set $at (i32.add (local.get $at) (call $strlen (local.get $key))))
    (local.set $i (local.get $at))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (global.get $in_end)))
        (br_if $done (i32.eq (i32.load8_u (local.get $i)) (i32.const 34)))
        (if (i32.eq (i32.load8_u (local.get $i)) (i32.const 92)) (then (local.set $i (i32.add (local.get $i) (i32.const 1)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (global.set $vlen (i32.sub (local.get $i) (local.get $at)))
    (local.get $at))

  ;; The unsigned integer after key literal $key, or 0.
  (func $uint_value (param $key i32) (result i32)
    (local $at i32) (local $v i32) (local $c i32)
    (local.set $at (call $find (i32.const 0x10000) (local.get $key)))
    (if (i32.lt_s (local.get $at) (i32.const 0)) (then (return (i32.const 0))))
    (local.set $at (i32.add (local.get $at) (call $strlen (local.get $key))))
    (block $done
      (loop $next
        (local.set $c (i32.sub (i32.load8_u (local.get $at)) (i32.const 48)))
        (br_if $done (i32.gt_u (local.get $c) (i32.const 9)))
        (local.set $v (i32.add (i32.mul (local.get $v) (i32.const 10)) (local.get $c)))
        (local.set $at (i32.add (local.get $at) (i32.const 1)))
        (br $next)))
    (local.get $v))

  (func $name_is (param $lit i32) (result i32)
    (if (i32.ne (call $strlen (local.get $lit)) (global.get $name_len)) (then (return (i32.const 0))))
    (call $memeq (i32.const 0x10013) (local.get $lit) (global.get $name_len)))

  ;; Output: begin the result at 0x100000, then finish it (is_err adds "isError": true).
  (func $begin
    (global.set $cur (i32.const 0x100000))
    (call $lit (i32.const 0x600)))

  (func $finish (param $is_err i32)
    (local $n i32)
    (if (local.get $is_err) (then (call $lit (i32.const 0x680))) (else (call $lit (i32.const 0x640))))
    (call $set_output))

  (func $set_output
    (local $n i32)
    (local.set $n (i32.sub (global.get $cur) (i32.const 0x100000)))
    (call $output_set (call $to_block (i32.const 0x100000) (local.get $n)) (i64.extend_i32_u (local.get $n))))

  (func $answer (param $p i32) (param $n i32) (param $is_err i32)
    (call $begin)
    (call $esc (local.get $p) (local.get $n))
    (call $finish (local.get $is_err)))

  ;; Answers a host response as text; an {"error": e} one as isError with toolError e.
  (func $host_answer (param $r i64)
    (local $n i32)
    (local.set $n (call $from_block (local.get $r) (i32.const 0x200000)))
    (if (call $memeq (i32.const 0x200000) (i32.const 0x840) (i32.const 8))
      (then
        (call $begin)
        (call $esc (i32.const 0x200000) (local.get $n))
        (call $lit (i32.const 0x6c0))
        (call $put (i32.const 0x200009) (i32.sub (local.get $n) (i32.const 10)))
        (call $lit (i32.const 0x700))
        (call $set_output))
      (else (call $answer (i32.const 0x200000) (local.get $n) (i32.const 0)))))

  ;; Host-call parameters are built at 0x80000.
  (func $params_block (result i64)
    (call $to_block (i32.const 0x80000) (i32.sub (global.get $cur) (i32.const 0x80000))))

  (func (export "describe") (result i32)
    (local $n i32)
    (local.set $n (call $strlen (i32.const 0x1000)))
    (call $output_set (call $to_block (i32.const 0x1000) (local.get $n)) (i64.extend_i32_u (local.get $n)))
    (i32.const 0))

  (func (export "call") (result i32)
    (local $p i32) (local $pn i32) (local $d i32) (local $dn i32) (local $i i32) (local $a i64)
    (call $read_input)
    (global.set $name_len (i32.sub (call $find (i32.const 0x10013) (i32.const 0x5c0)) (i32.const 0x10013)))

    (if (call $name_is (i32.const 0x100)) ;; echo: the arguments, as text
      (then
        (local.set $p (i32.add (call $find (i32.const 0x10000) (i32.const 0x580)) (i32.const 12)))
        (call $answer (local.get $p) (i32.sub (i32.sub (global.get $in_end) (i32.const 2)) (local.get $p)) (i32.const 0))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x3c0)) ;; count
      (then
        (global.set $counter (i32.add (global.get $counter) (i32.const 1)))
        (call $begin)
        (call $itoa (global.get $counter))
        (call $finish (i32.const 0))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x140)) ;; read: fs_read(["<path>"])
      (then
        (local.set $p (call $str_value (i32.const 0x440)))
        (local.set $pn (global.get $vlen))
        (global.set $cur (i32.const 0x80000))
        (call $lit (i32.const 0x880))
        (call $put (local.get $p) (local.get $pn))
        (call $lit (i32.const 0x8c0))
        (call $host_answer (call $fs_read (call $params_block)))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0xb80)) ;; search: fs_search(["<path>", {"pattern": "<pattern>"}])
      (then
        (local.set $p (call $str_value (i32.const 0x440)))
        (local.set $pn (global.get $vlen))
        (local.set $d (call $str_value (i32.const 0x5e0)))
        (local.set $dn (global.get $vlen))
        (global.set $cur (i32.const 0x80000))
        (call $lit (i32.const 0x880))
        (call $put (local.get $p) (local.get $pn))
        (call $lit (i32.const 0x9c0))
        (call $put (local.get $d) (local.get $dn))
        (call $lit (i32.const 0x940))
        (call $host_answer (call $fs_search (call $params_block)))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x180)) ;; write: fs_write(["<path>", {"$bytes": "<data>"}])
      (then
        (local.set $p (call $str_value (i32.const 0x440)))
        (local.set $pn (global.get $vlen))
        (local.set $d (call $str_value (i32.const 0x480)))
        (local.set $dn (global.get $vlen))
        (global.set $cur (i32.const 0x80000))
        (call $lit (i32.const 0x880))
        (call $put (local.get $p) (local.get $pn))
        (call $lit (i32.const 0x900))
        (call $put (local.get $d) (local.get $dn))
        (call $lit (i32.const 0x940))
        (call $host_answer (call $fs_write (call $params_block)))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x1c0)) ;; log: log_write(["info", "<message>"])
      (then
        (local.set $p (call $str_value (i32.const 0x4c0)))
        (local.set $pn (global.get $vlen))
        (global.set $cur (i32.const 0x80000))
        (call $lit (i32.const 0x980))
        (call $put (local.get $p) (local.get $pn))
        (call $lit (i32.const 0x8c0))
        (call $host_answer (call $log_write (call $params_block)))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x200)) ;; fail
      (then
        (call $answer (i32.const 0x740) (call $strlen (i32.const 0x740)) (i32.const 1))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x240)) ;; err: error_set, non-zero return
      (then
        (call $error_set (call $to_block (i32.const 0x780) (call $strlen (i32.const 0x780))))
        (return (i32.const 1))))

    (if (call $name_is (i32.const 0x280)) ;; trap
      (then unreachable))

    (if (call $name_is (i32.const 0x2c0)) ;; spin
      (then (loop $forever (br $forever))))

    (if (call $name_is (i32.const 0x300)) ;; grow: 1 MiB at a time until refused, then trap
      (then
        (loop $more
          (br_if $more (i32.ne (memory.grow (i32.const 16)) (i32.const -1))))
        unreachable))

    (if (call $name_is (i32.const 0x340)) ;; hog: 16 MiB blocks, never freed
      (then
        (loop $more
          (local.set $a (call $alloc (i64.const 16777216)))
          (call $store_u8 (local.get $a) (i32.const 1))
          (br $more))))

    (if (call $name_is (i32.const 0x400)) ;; alloc: mib blocks of 1 MiB, each freed
      (then
        (local.set $pn (call $uint_value (i32.const 0x540)))
        (block $done
          (loop $more
            (br_if $done (i32.ge_u (local.get $i) (local.get $pn)))
            (local.set $a (call $alloc (i64.const 1048576)))
            (call $store_u8 (local.get $a) (i32.const 1))
            (call $free (local.get $a))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $more)))
        (call $answer (i32.const 0x800) (i32.const 2) (i32.const 0))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0x380)) ;; big: a text of "bytes" x's
      (then
        (local.set $pn (call $uint_value (i32.const 0x500)))
        (call $begin)
        (memory.fill (global.get $cur) (i32.const 120) (local.get $pn))
        (global.set $cur (i32.add (global.get $cur) (local.get $pn)))
        (call $finish (i32.const 0))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0xa00)) ;; remember: var "memo" = value
      (then
        (local.set $p (call $str_value (i32.const 0xac0)))
        (call $var_set (call $to_block (i32.const 0xb00) (i32.const 4)) (call $to_block (local.get $p) (global.get $vlen)))
        (call $answer (i32.const 0x800) (i32.const 2) (i32.const 0))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0xa40)) ;; recall: var "memo", or "none"
      (then
        (local.set $a (call $var_get (call $to_block (i32.const 0xb00) (i32.const 4))))
        (if (i64.eqz (local.get $a))
          (then (call $answer (i32.const 0xb40) (i32.const 4) (i32.const 0)))
          (else (call $answer (i32.const 0x200000) (call $from_block (local.get $a) (i32.const 0x200000)) (i32.const 0))))
        (return (i32.const 0))))

    (if (call $name_is (i32.const 0xa80)) ;; varbomb: a 2 MiB var
      (then
        (call $var_set (call $to_block (i32.const 0xb00) (i32.const 4)) (call $alloc (i64.const 2097152)))
        (call $answer (i32.const 0x800) (i32.const 2) (i32.const 0))
        (return (i32.const 0))))

    (call $answer (i32.const 0x7c0) (call $strlen (i32.const 0x7c0)) (i32.const 1))
    (i32.const 0))
)
