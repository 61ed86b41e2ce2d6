/**
 * `wasi:cli`, `wasi:clocks`, `wasi:random` and `wasi:config/store` of one instance. Nothing
 * here reads the worker's process: the environment and arguments are the plugin's grant
 * (plugin.json `wasi`), config is asked of the run (config.ts), stdin is empty, stdout/stderr are lines of the run's log (through
 * the log proxy: its policy, budget and audit), and exit traps the guest call.
 */
import { randomBytes, randomFillSync } from "node:crypto";
import { bytesSource, InputStream, OutputStream, Pollable, type OutputSink } from "./streams.js";
import type { WasiInstanceContext } from "./context.js";
import { ConfigUnreadable, configReader } from "./config.js";

/** Bytes of stdout and stderr together one instance may send to the log; the rest is dropped. */
export const MAX_STDIO_BYTES = 64 * 1024;
/** A line longer than this is sent in parts (the log proxy cuts long lines further). */
const MAX_LINE_BYTES = 4096;

/** The guest called `wasi:cli/exit`: its call ends as a trap, never as the worker's exit. */
export class GuestExit extends Error {
  constructor(code: number | string) {
    super(`the plugin called wasi:cli/exit (${code}); its call ends here`);
    this.name = "GuestExit";
  }
}

/** Stdout and stderr of one instance: lines to the log proxy until the shared budget runs out. */
class StdioBudget {
  used = 0;
  dropped = 0;
}

function logSink(context: WasiInstanceContext, level: "info" | "error", budget: StdioBudget): OutputSink {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const send = (bytes: Uint8Array) => {
    if (bytes.byteLength === 0) return;
    const text = Buffer.from(bytes).toString("utf8").replace(/\r?\n$/, "");
    context.hostCall("log", "write", [level, text]);
  };
  const emit = () => {
    const all = Buffer.concat(pending);
    pending = [];
    pendingBytes = 0;
    let start = 0;
    for (let i = 0; i < all.length; i++) {
      if (all[i] === 0x0a) {
        send(all.subarray(start, i + 1));
        start = i + 1;
      }
    }
    const rest = all.subarray(start);
    if (rest.byteLength >= MAX_LINE_BYTES) send(rest);
    else if (rest.byteLength > 0) {
      pending = [rest];
      pendingBytes = rest.byteLength;
    }
  };
  return {
    permit: () => MAX_LINE_BYTES,
    write(bytes) {
      const room = MAX_STDIO_BYTES - budget.used;
      const kept = bytes.subarray(0, Math.max(0, room));
      budget.used += kept.byteLength;
      if (kept.byteLength > 0) {
        pending.push(kept.slice());
        pendingBytes += kept.byteLength;
        if (pendingBytes >= MAX_LINE_BYTES || kept.includes(0x0a)) emit();
      }
      if (kept.byteLength < bytes.byteLength) {
        // Over the cap: said once, then dropped with no host call, so a flood costs the guest only its own time.
        if (budget.dropped === 0) {
          if (pendingBytes > 0) send(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
          send(Buffer.from(`[stdout and stderr: output over ${MAX_STDIO_BYTES} bytes dropped]`));
        }
        budget.dropped += bytes.byteLength - kept.byteLength;
      }
    },
    flush: emit,
    close() {
      if (pendingBytes > 0) send(Buffer.concat(pending));
      pending = [];
      pendingBytes = 0;
    },
  };
}

class TerminalInput {}
class TerminalOutput {}

export function cliImports(context: WasiInstanceContext): Record<string, Record<string, unknown>> {
  const budget = new StdioBudget();
  let stdout: OutputStream | undefined;
  let stderr: OutputStream | undefined;
  const environment = Object.entries(context.grant.env);
  const config = configReader((iface, fn, args) => context.hostCall(iface, fn, args), context.grant.config);
  return {
    "wasi:cli/environment": {
      getEnvironment: () => environment.map(([k, v]) => [k, v]),
      getArguments: () => [...context.grant.args],
      initialCwd: () => undefined,
    },
    "wasi:cli/exit": {
      exit: (status: { tag: string }) => {
        throw new GuestExit(status?.tag === "ok" ? 0 : 1);
      },
      exitWithCode: (code: number) => {
        throw new GuestExit(code);
      },
    },
    "wasi:cli/stdin": { getStdin: () => new InputStream(bytesSource(new Uint8Array(0))) },
    "wasi:cli/stdout": { getStdout: () => (stdout ??= new OutputStream(logSink(context, "info", budget))) },
    "wasi:cli/stderr": { getStderr: () => (stderr ??= new OutputStream(logSink(context, "error", budget))) },
    "wasi:cli/terminal-input": { TerminalInput },
    "wasi:cli/terminal-output": { TerminalOutput },
    "wasi:cli/terminal-stdin": { getTerminalStdin: () => undefined },
    "wasi:cli/terminal-stdout": { getTerminalStdout: () => undefined },
    "wasi:cli/terminal-stderr": { getTerminalStderr: () => undefined },
    "wasi:clocks/wall-clock": {
      now: () => {
        const ms = Date.now();
        return { seconds: BigInt(Math.floor(ms / 1000)), nanoseconds: (ms % 1000) * 1_000_000 };
      },
      resolution: () => ({ seconds: 0n, nanoseconds: 1_000_000 }),
    },
    "wasi:clocks/monotonic-clock": {
      now: () => process.hrtime.bigint(),
      resolution: () => 1n,
      subscribeInstant: (when: bigint) => new Pollable(when),
      subscribeDuration: (ns: bigint) => new Pollable(process.hrtime.bigint() + ns),
    },
    "wasi:random/random": {
      getRandomBytes: (len: bigint) => new Uint8Array(randomBytes(Number(len > 1_048_576n ? 1_048_576n : len))),
      getRandomU64: () => randomU64(),
    },
    "wasi:random/insecure": {
      getInsecureRandomBytes: (len: bigint) => new Uint8Array(randomBytes(Number(len > 1_048_576n ? 1_048_576n : len))),
      getInsecureRandomU64: () => randomU64(),
    },
    "wasi:random/insecure-seed": { insecureSeed: () => [randomU64(), randomU64()] },
    "wasi:config/store": {
      get: (key: string) => upstream(() => config.get(key)),
      getAll: () => upstream(() => config.all()),
    },
  };
}

/** A value that could not be read is `config-error.upstream` to the guest, not a trap. */
function upstream<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ConfigUnreadable) throw { tag: "upstream", val: error.message };
    throw error;
  }
}

function randomU64(): bigint {
  const bytes = new BigUint64Array(1);
  randomFillSync(bytes);
  return bytes[0]!;
}
