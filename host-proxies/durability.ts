/**
 * Which host operations only bring data into the guest (`read`) and which let data leave or
 * change state (`effect`): the one table the runtime's audit path consults (docs/security.md,
 * "Durability at the boundary where data leaves").
 *
 * - An effect's intent is committed before the effect happens (fail closed).
 * - A read is recorded in the chain like every host call, but its records are group-committed off
 *   the guest's path; the ToolCall's result is released only once every one of its records is
 *   durable, and withheld if a commit failed.
 *
 * Keys are the bridge's names: the `clawhive:host` interface and the function as jco lifts it
 * (camelCase). Every way a guest reaches a proxy arrives under one of these names: the WASI
 * interfaces clawhive serves (`wasi:filesystem` → fs, `wasi:http/outgoing-handler` →
 * http.fetch, `wasi:cli` stdout/stderr → log.write, `wasi:config/store` → config) and the
 * Extism host functions (`fs_read`, …, `http_request` → http.fetch, `config_get` → config.get,
 * `log_*` → log.write). `mcp.call` is a ToolCall to an agent's external MCP server (the MCP
 * client): data leaves to that server, so it is an effect.
 *
 * A name missing here is an effect: a new operation is never deferred by omission. The house test
 * (test/house/durability.test.ts) fails for any operation of the WIT, the proxies or the WASI and
 * Extism bridges that is not in this table, so each new one is classified when it is added.
 */
export type Durability = "read" | "effect";

export const HOST_OPERATIONS: Readonly<Record<string, Readonly<Record<string, Durability>>>> = {
  fs: { mounts: "read", read: "read", listDir: "read", stat: "read", walk: "read", search: "read", write: "effect", remove: "effect", mkdir: "effect" },
  // A log line leaves the guest: it reaches the run's events (and whoever streams them) at once.
  log: { write: "effect" },
  shell: { exec: "effect" },
  // Any request is egress, a GET included: its URL and headers leave.
  http: { fetch: "effect" },
  gmail: { listMessages: "read", getMessage: "read", getThread: "read" },
  calendar: { listCalendars: "read", listEvents: "read", addEvent: "effect" },
  kv: { get: "read", listKeys: "read", set: "effect", delete: "effect" },
  schedule: { list: "read", create: "effect", cancel: "effect" },
  memory: { search: "read", write: "effect" },
  // A sent message or a posted chat message leaves for good.
  mail: { send: "effect" },
  message: { send: "effect" },
  config: { get: "read", all: "read" },
  mcp: { call: "effect" },
};

/** The durability class of `iface`.`fn`; `effect` for anything not classified. */
export function durabilityOf(iface: string, fn: string): Durability {
  const functions = Object.hasOwn(HOST_OPERATIONS, iface) ? HOST_OPERATIONS[iface] : undefined;
  return functions !== undefined && Object.hasOwn(functions, fn) ? functions[fn]! : "effect";
}
