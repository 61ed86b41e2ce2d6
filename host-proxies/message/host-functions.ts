/** The bridge's view of the message proxy: `clawhive:host/message` `send`, checked at the edge. */
import { HostProxyError } from "../types.js";
import type { MessageProxy, OutgoingMessage } from "./proxy.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

export const MESSAGE_HOST_FUNCTION_NAMES = ["send"] as const;
const FIELDS = ["url", "text", "format", "title"] as const;

export function messageHostFunctions(proxy: MessageProxy): Record<string, HostFunction> {
  const table = { send: async (args: unknown[]) => proxy.send(parseMessageRecord(Array.isArray(args) && args.length === 1 ? args[0] : undefined)) };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

/** A guest's `outgoing` record; throws `invalid-input`. */
export function parseMessageRecord(value: unknown): OutgoingMessage {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw HostProxyError.invalidInput("message.send: expected one outgoing record");
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) throw HostProxyError.invalidInput(`message.send: message has no field ${JSON.stringify(extra.slice(0, 64))}`);
  const { url, text, format, title } = record;
  if (typeof url !== "string") throw HostProxyError.invalidInput("message.send: url must be a string");
  if (typeof text !== "string") throw HostProxyError.invalidInput("message.send: text must be a string");
  if (format !== undefined && typeof format !== "string") throw HostProxyError.invalidInput("message.send: format must be a string");
  if (title !== undefined && typeof title !== "string") throw HostProxyError.invalidInput("message.send: title must be a string");
  return { url, text, format, title };
}
