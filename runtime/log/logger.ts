/**
 * The runtime's structured log: JSON lines (pino) on stderr, one object a line with `level`,
 * `time`, `msg` and what is known where it was written (`request_id`, `run_id`, `trace_id`,
 * `span_id`: a child logger's own fields, and those of the run or MCP request being served, see
 * context.ts);
 * a readable line a record when stderr is a terminal or `log.format: pretty`. Tokens, secrets
 * and credentials never reach it: known fields are censored by path, and token-shaped text
 * (API tokens, bearer credentials, provider keys) is masked wherever it appears.
 */
import { pino, type DestinationStream, type Logger, type LoggerOptions } from "pino";
import { createRequire } from "node:module";
import type pinoPretty from "pino-pretty";
import { contextLogFields } from "./context.js";

export type { Logger } from "pino";
export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type LogFormat = "json" | "pretty";

export const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export interface LogOptions {
  readonly level?: LogLevel;
  /** Default: pretty on a terminal, JSON otherwise. */
  readonly format?: LogFormat;
  /** Default stderr (stdout stays the commands' own output). */
  readonly destination?: DestinationStream;
  /**
   * Default true: each line is written before the call returns. False (a server's log) queues
   * lines and writes them together off the caller's path — a line a request, written
   * synchronously to a pipe, blocked the event loop whenever the reader fell behind — and
   * writes what is queued when the process exits.
   */
  readonly sync?: boolean;
}

export const REDACTED = "[redacted]";

/** Fields whose values are credentials wherever they appear (one or two levels deep). */
const SECRET_FIELDS = ["token", "authorization", "cookie", "secret", "password", "api_key", "apiKey", "value", "auth_token", "authToken", "key"];
const REDACT_PATHS = [...SECRET_FIELDS, ...SECRET_FIELDS.map((f) => `*.${f}`), 'headers["authorization"]', 'headers["cookie"]', 'req.headers["authorization"]'];

/** Token-shaped text: the API's tokens, bearer credentials, common provider keys. */
const SECRET_TEXT = /\bchv_tok_[A-Za-z0-9_-]+|\b[Bb]earer\s+[A-Za-z0-9._~+/=-]+|\bsk-[A-Za-z0-9_-]{8,}|\bxox[abpr]-[A-Za-z0-9-]+/g;

export function maskSecrets(text: string): string {
  return text.replace(SECRET_TEXT, (match) => (/^[Bb]earer/.test(match) ? `Bearer ${REDACTED}` : REDACTED));
}

/** Every string in a log record's fields, masked; depth-bounded (a log line is not a dump). */
function maskFields(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return maskSecrets(value);
  if (depth > 4 || value === null || typeof value !== "object") return value;
  if (value instanceof Error) return { type: value.name, message: maskSecrets(value.message), ...(value.stack === undefined ? {} : { stack: maskSecrets(value.stack) }) };
  if (Array.isArray(value)) return value.map((item) => maskFields(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = maskFields(item, depth + 1);
  return out;
}

export function createLogger(options: LogOptions = {}): Logger {
  const format = options.format ?? (process.stderr.isTTY ? "pretty" : "json");
  const config: LoggerOptions = {
    level: options.level ?? "info",
    base: { service: "clawhive" },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: "msg",
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    formatters: { level: (label) => ({ level: label }), log: (fields) => maskFields(fields) as Record<string, unknown> },
    mixin: (_fields, _level, logger) => workFields(logger),
    serializers: { err: (error: unknown) => maskFields(error), error: (error: unknown) => maskFields(error) },
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((a) => (typeof a === "string" ? maskSecrets(a) : a)) as Parameters<typeof method>);
      },
    },
  };
  const sync = options.sync ?? true;
  const destination = options.destination ?? (format === "pretty" ? loadPretty()({ destination: 2, sync: true, colorize: process.stderr.isTTY === true, translateTime: "SYS:HH:MM:ss.l" }) : stderrDestination(sync));
  return pino(config, destination);
}

/**
 * The fields of the work being served (context.ts), less those the logger was bound with: a
 * request's child logger says its `trace_id` itself, and a JSON line must not say a key twice.
 * A span id goes only with its own trace id.
 */
function workFields(logger: Logger): Record<string, string> {
  const fields = contextLogFields();
  if (Object.keys(fields).length === 0) return fields;
  const bound = logger.bindings();
  if (typeof bound.trace_id === "string" && fields.trace_id !== undefined && bound.trace_id !== fields.trace_id) delete fields.span_id;
  for (const key of Object.keys(fields)) if (key in bound) delete fields[key];
  return fields;
}

/**
 * JSON lines on stderr. An asynchronous destination is flushed synchronously by pino itself when
 * the process exits (its `on-exit-leak-free` hook); test/log/async-destination.test.ts holds it to that.
 */
function stderrDestination(sync: boolean): DestinationStream {
  return pino.destination({ dest: 2, sync });
}

/** pino-pretty (and its dependencies) only where a line is pretty: JSON logging never loads it. */
function loadPretty(): typeof pinoPretty {
  return createRequire(import.meta.url)("pino-pretty") as typeof pinoPretty;
}

let shared: Logger | undefined;

/**
 * The process's logger, for code that was given none: what `clawhive serve` configured with
 * `setRuntimeLogger`, else one at `CLAWHIVE_LOG_LEVEL` (default warn, so libraries and tests
 * stay quiet unless something is wrong).
 */
export function runtimeLogger(): Logger {
  return (shared ??= createLogger({ level: levelFromEnv() ?? "warn" }));
}

export function setRuntimeLogger(logger: Logger): void {
  shared = logger;
}

function levelFromEnv(): LogLevel | undefined {
  const level = process.env.CLAWHIVE_LOG_LEVEL;
  return level !== undefined && (LOG_LEVELS as readonly string[]).includes(level) ? (level as LogLevel) : undefined;
}
