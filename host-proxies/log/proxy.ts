/**
 * `clawhive:host/log`: lines from a guest into its run's log. A guest must not be able to flood
 * the log or the memory of the host, so lines are cut at a size, and a token bucket limits the
 * rate; what is dropped is counted, and the count is reported with the next line that passes.
 */
import { HostProxyError } from "../types.js";

export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface LogLine {
  level: LogLevel;
  message: string;
  /** Lines dropped by the rate limit just before this one. */
  dropped: number;
  truncated: boolean;
}

export interface LogProxyOptions {
  /** Longest message kept, in UTF-16 units (default 8,192). */
  maxLineLength?: number;
  /** Sustained lines per second (default 50). */
  ratePerSecond?: number;
  /** Burst size (default 200). */
  burst?: number;
  /** Total lines kept over the proxy's life (default 10,000). */
  maxLines?: number;
  /** Milliseconds clock, injectable for tests. */
  now?: () => number;
  /**
   * Lines are admitted by the caller (a run's `LineBudget`, taken before the line is audited),
   * so this proxy only cuts long lines.
   */
  admittedByCaller?: boolean;
}

export interface LogProxy {
  write(level: LogLevel, message: string): void;
  readonly dropped: number;
}

export function createLogProxy(sink: (line: LogLine) => void, options: LogProxyOptions = {}): LogProxy {
  const maxLineLength = options.maxLineLength ?? 8_192;
  const rate = options.ratePerSecond ?? 50;
  const burst = options.burst ?? 200;
  const maxLines = options.maxLines ?? 10_000;
  const now = options.now ?? Date.now;
  let tokens = burst;
  let last = now();
  let kept = 0;
  let droppedSinceLast = 0;
  let droppedTotal = 0;
  return {
    get dropped() {
      return droppedTotal;
    },
    write(level, message) {
      const t = now();
      tokens = Math.min(burst, tokens + ((t - last) / 1000) * rate);
      last = t;
      if (!options.admittedByCaller && (tokens < 1 || kept >= maxLines)) {
        droppedSinceLast++;
        droppedTotal++;
        return;
      }
      tokens -= 1;
      kept++;
      const truncated = message.length > maxLineLength;
      sink({ level, message: truncated ? message.slice(0, maxLineLength) : message, dropped: droppedSinceLast, truncated });
      droppedSinceLast = 0;
    },
  };
}

/** The bridge's view: `write(level, message)` with its arguments checked. */
export function logHostFunctions(proxy: LogProxy): Record<string, (args: unknown[]) => Promise<unknown>> {
  const table = {
    write: async (args: unknown[]) => {
      const [level, message] = args;
      if (args.length !== 2 || typeof message !== "string" || !LOG_LEVELS.includes(level as LogLevel)) {
        throw HostProxyError.invalidInput("log.write: expected (level, message)");
      }
      proxy.write(level as LogLevel, message);
      return undefined;
    },
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, (args: unknown[]) => Promise<unknown>>, table));
}
