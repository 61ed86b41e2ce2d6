/**
 * Bindings for `clawhive:host/shell@0.1.1` (wit/host/shell.wit), lowered by hand to the canonical
 * ABI as host/memory.ts does. `exec-result` holds u64 fields, so its result aligns to 8: the
 * payload (the value or the `host-error`) sits at +8 of the return area.
 */
import { storeString, takeStringAt } from "../abi";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

// Flattened: argv (ptr, len), cwd (case, ptr, len), stdin (case, ptr, len), timeout-ms (case, value), then the return area.
@external("clawhive:host/shell@0.1.1", "exec")
declare function execImport(ap: usize, al: usize, cc: i32, cp: usize, cl: usize, sc: i32, sp: usize, sl: usize, tc: i32, t: u32, ret: usize): void;

/** `exec-request`. Null fields and a negative `timeoutMs` are none; `stdin` is sent as its UTF-8 bytes. */
export class ExecRequest {
  argv: string[] = [];
  cwd: string | null = null;
  stdin: string | null = null;
  timeoutMs: i64 = -1;
}

/** `output`: head and tail of a stream. */
export class Output {
  text: string = "";
  bytes: u64 = 0;
  linesDropped: u64 = 0;
}

/** `exec-result` (size 80, align 8). `hasExitCode` is false when a signal killed the process. */
export class ExecResult {
  hasExitCode: bool = false;
  exitCode: i32 = 0;
  signal: string | null = null;
  timedOut: bool = false;
  stdout: Output = new Output();
  stderr: Output = new Output();
  durationMs: u32 = 0;
}

const RET_SIZE: usize = 88;

function takeOutput(at: usize): Output {
  const o = new Output();
  o.text = takeStringAt(at);
  o.bytes = load<u64>(at + 8);
  o.linesDropped = load<u64>(at + 16);
  return o;
}

function takeResult(at: usize): ExecResult {
  const r = new ExecResult();
  r.hasExitCode = load<u8>(at) != 0;
  r.exitCode = r.hasExitCode ? load<i32>(at + 4) : 0;
  r.signal = load<u8>(at + 8) != 0 ? takeStringAt(at + 12) : null;
  r.timedOut = load<u8>(at + 20) != 0;
  r.stdout = takeOutput(at + 24);
  r.stderr = takeOutput(at + 48);
  r.durationMs = load<u32>(at + 72);
  return r;
}

/** `exec: func(request: exec-request) -> result<exec-result, host-error>`. */
export function exec(request: ExecRequest): HostResult<ExecResult> {
  const blocks = new Array<usize>();
  const n = request.argv.length;
  const argv = heap.alloc(<usize>n * 8);
  for (let i = 0; i < n; i++) storeString(argv + <usize>i * 8, unchecked(request.argv[i]), blocks);
  // Option payloads as (pointer, length) pairs: cwd at +0, stdin at +8.
  const args = heap.alloc(16);
  store<u64>(args, 0);
  store<u64>(args + 8, 0);
  const cwd = request.cwd;
  const stdin = request.stdin;
  if (cwd != null) storeString(args, cwd, blocks);
  if (stdin != null) storeString(args + 8, stdin, blocks);
  const timeout = request.timeoutMs;
  const ret = heap.alloc(RET_SIZE);
  execImport(
    argv, <usize>n,
    cwd != null ? 1 : 0, <usize>load<u32>(args), <usize>load<u32>(args + 4),
    stdin != null ? 1 : 0, <usize>load<u32>(args + 8), <usize>load<u32>(args + 12),
    timeout >= 0 ? 1 : 0, timeout >= 0 ? <u32>timeout : 0,
    ret,
  );
  const result = load<u8>(ret) == 0
    ? new HostResult<ExecResult>(takeResult(ret + 8), null)
    : new HostResult<ExecResult>(new ExecResult(), takeHostErrorAt(ret + 8));
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(argv);
  heap.free(args);
  heap.free(ret);
  return result;
}

export { HostError };
