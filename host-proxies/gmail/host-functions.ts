/**
 * The bridge's view of the gmail proxy: one function per `clawhive:host/gmail` import, keyed by
 * the camelCase name jco gives it, taking the raw argument list a guest sent. Arguments come
 * from guest memory, not typed code, so they are checked here, at the edge.
 */
import { HostProxyError } from "../types.js";
import type { GmailProxy } from "./proxy.js";
import type { ListRequest } from "./types.js";

/** One host function as the bridge calls it. Rejects with `HostProxyError` only. */
type HostFunction = (args: unknown[]) => Promise<unknown>;

export const GMAIL_HOST_FUNCTION_NAMES = ["listMessages", "getMessage", "getThread"] as const;
export type GmailHostFunctionName = (typeof GMAIL_HOST_FUNCTION_NAMES)[number];

const LIST_FIELDS = ["label", "query", "maxResults", "pageToken"] as const;
const U32_MAX = 0xffff_ffff;

/** A null-prototype, frozen table (see fsHostFunctions). */
export function gmailHostFunctions(proxy: GmailProxy): Record<string, HostFunction> {
  const table: Record<GmailHostFunctionName, HostFunction> = {
    listMessages: async (args) => proxy.listMessages(parseListRequestRecord(only(args, "listMessages"))),
    getMessage: async (args) => proxy.getMessage(stringArg(only(args, "getMessage"), "getMessage", "id")),
    getThread: async (args) => proxy.getThread(stringArg(only(args, "getThread"), "getThread", "threadId")),
  };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

/** A guest's `list-request` record as jco lifts it, checked field by field; throws `invalid-input`. */
export function parseListRequestRecord(value: unknown): ListRequest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw bad("listMessages", "request", "a record", value);
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !(LIST_FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) throw HostProxyError.invalidInput(`gmail.listMessages: request has no field ${JSON.stringify(extra.slice(0, 64))}`);
  const { label, query, maxResults, pageToken } = record;
  if (typeof label !== "string") throw bad("listMessages", "label", "a string", label);
  if (query !== undefined && typeof query !== "string") throw bad("listMessages", "query", "a string", query);
  if (maxResults !== undefined && !(typeof maxResults === "number" && Number.isInteger(maxResults) && maxResults >= 0 && maxResults <= U32_MAX)) {
    throw bad("listMessages", "maxResults", "a u32", maxResults);
  }
  if (pageToken !== undefined && typeof pageToken !== "string") throw bad("listMessages", "pageToken", "a string", pageToken);
  return { label, query, maxResults, pageToken };
}

function only(args: unknown[], fn: string): unknown {
  if (!Array.isArray(args) || args.length !== 1) {
    throw HostProxyError.invalidInput(`gmail.${fn}: expected 1 argument, got ${Array.isArray(args) ? args.length : typeof args}`);
  }
  return args[0];
}

function stringArg(value: unknown, fn: string, field: string): string {
  if (typeof value !== "string") throw bad(fn, field, "a string", value);
  return value;
}

function bad(fn: string, field: string, expected: string, got: unknown): HostProxyError {
  return HostProxyError.invalidInput(`gmail.${fn}: ${field} must be ${expected}, got ${describe(got)}`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return value.constructor?.name ?? "an object";
  return typeof value;
}
