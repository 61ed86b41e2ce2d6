/**
 * The Extism plugin format as clawhive serves it (docs/extism.md): which kernel functions of
 * `extism:host/env` are served, which are switched off, and how the `clawhive:host` functions
 * are named in `extism:host/user`. Shared by the install-time import check and the worker, so
 * the two never disagree. Plain data and pure functions only: the worker imports this.
 */

export const EXTISM_KERNEL = "extism:host/env";
export const EXTISM_USER = "extism:host/user";

/**
 * Kernel functions served as the SDK serves them: memory blocks, input/output, error, vars.
 * Blocks are capped per guest call and released after it; vars are kept per instance, within
 * 1 MiB (see ExtismGuest).
 */
export const KERNEL_SERVED: ReadonlySet<string> = new Set([
  "alloc",
  "free",
  "length",
  "length_unsafe",
  "load_u8",
  "load_u64",
  "store_u8",
  "store_u64",
  "input_offset",
  "input_length",
  "input_load_u8",
  "input_load_u64",
  "output_set",
  "error_set",
  "var_get",
  "var_set",
]);

/**
 * Kernel log functions (`log_<level>(offset: u64)`, the Rust PDK's and the JS SDK's names), by the
 * level of the line they write: served by the clawhive log proxy (policy, audit, rate limit). The
 * run's log has no trace level: a trace line is written at `debug`.
 */
export const KERNEL_LOG: Readonly<Record<string, ExtismLogLevel>> = {
  log_trace: "trace",
  log_debug: "debug",
  log_info: "info",
  log_warn: "warn",
  log_error: "error",
};

/** `get_log_level() -> i32`: the level lines are kept from, for the PDK to skip the rest itself. */
export const KERNEL_LOG_LEVEL = "get_log_level";

/** The levels an Extism host is configured with (`silent`: no line is kept). */
export const EXTISM_LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "silent"] as const;
export type ExtismLogLevel = Exclude<(typeof EXTISM_LOG_LEVELS)[number], "silent">;

/**
 * A level as the PDKs' integer: trace 0 … error 4, and `i32::MAX` for silent, which the Rust
 * PDK's log macros read as "logging off" (extism/rust-pdk `LogLevel::to_int`; the JS SDK's
 * `logLevelToPriority`). A line is kept when its level's integer is at least this.
 */
export function logLevelPriority(level: (typeof EXTISM_LOG_LEVELS)[number]): number {
  return level === "silent" ? 0x7fff_ffff : EXTISM_LOG_LEVELS.indexOf(level);
}

/**
 * The shapes of an Extism plugin's exports, each one way of listing and calling tools:
 * `servlet` (mcp.run's `describe`/`call`, hyper-mcp's plugin ABI v1), `mcp-v2` (hyper-mcp's
 * plugin ABI v2: `list_tools`/`call_tool`, each taking a request context) and `functions` (one
 * exported function per tool, as the PDKs build plugins).
 */
export type ExtismExportShape = "servlet" | "mcp-v2" | "functions";

export function extismExportShape(exportedFunctions: Iterable<string>): ExtismExportShape {
  const names = new Set(exportedFunctions);
  if (names.has("describe") || names.has("call")) return "servlet";
  if (names.has("list_tools") || names.has("call_tool")) return "mcp-v2";
  return "functions";
}

/**
 * Extism's own channels, served through clawhive: `http_request` (and its status and headers)
 * as an http proxy fetch under http.fetch; `config_get` from the plugin's grant.
 */
export const KERNEL_CHANNELS: Readonly<Record<string, readonly string[]>> = {
  http_request: ["http.fetch"],
  http_status_code: ["http.fetch"],
  http_headers: ["http.fetch"],
  config_get: [],
};

/**
 * Every `clawhive:host` function (0.1.1, which serves 0.1.0 too), by interface, with its WIT name. Checked against
 * wit/host/*.wit by test/plugins/build/extism-imports.test.ts.
 */
export const HOST_FUNCTIONS: Readonly<Record<string, readonly string[]>> = {
  fs: ["mounts", "read", "write", "list-dir", "stat", "remove", "mkdir", "walk", "search"],
  log: ["write"],
  shell: ["exec"],
  http: ["fetch"],
  gmail: ["list-messages", "get-message", "get-thread"],
  calendar: ["list-calendars", "list-events", "add-event"],
  kv: ["get", "set", "delete", "list-keys"],
  schedule: ["list", "create", "cancel"],
  memory: ["search", "write"],
  mail: ["send"],
  message: ["send"],
};

/**
 * Where a host function's parameters hold a `u64`: JSON has only numbers, the proxies take
 * bigints (as jco passes them). Paths are [parameter index, field, ...]. Checked against the WIT.
 */
export const U64_PARAMS: Readonly<Record<string, ReadonlyArray<ReadonlyArray<number | string>>>> = {
  "http.fetch": [[0, "maxBytes"]],
};

export interface ExtismHostFunction {
  /** Interface, e.g. `fs`. */
  iface: string;
  /** The bridge's name for the function (camelCase, as jco gives it), e.g. `listDir`. */
  fn: string;
  /** The WIT name, e.g. `list-dir`. */
  wit: string;
}

/** `fs_list_dir` → `{iface: "fs", fn: "listDir", wit: "list-dir"}`; undefined when no such function. */
export function extismHostFunction(name: string): ExtismHostFunction | undefined {
  // snake_case only: `fs_list-dir` must not pass as `list-dir`, so each function has one name.
  if (!/^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/.test(name)) return undefined;
  const at = name.indexOf("_");
  if (at <= 0) return undefined;
  const iface = name.slice(0, at);
  const wit = name.slice(at + 1).replaceAll("_", "-");
  const functions = Object.hasOwn(HOST_FUNCTIONS, iface) ? HOST_FUNCTIONS[iface]! : undefined;
  if (!functions?.includes(wit)) return undefined;
  return { iface, fn: wit.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()), wit };
}

/** The Extism name of a WIT host function: `fs`, `list-dir` → `fs_list_dir`. */
export function extismName(iface: string, wit: string): string {
  return `${iface}_${wit.replaceAll("-", "_")}`;
}
