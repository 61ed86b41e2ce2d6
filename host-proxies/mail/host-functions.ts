/**
 * The bridge's view of the mail proxy: `clawhive:host/mail` `send`, taking the raw argument list
 * a guest sent (an `outgoing` record as jco lifts it), checked here, at the edge.
 */
import { HostProxyError } from "../types.js";
import type { MailProxy } from "./proxy.js";
import type { OutgoingMail } from "./types.js";

type HostFunction = (args: unknown[]) => Promise<unknown>;

export const MAIL_HOST_FUNCTION_NAMES = ["send"] as const;
const FIELDS = ["to", "cc", "bcc", "subject", "body"] as const;

/** A null-prototype, frozen table (see fsHostFunctions). */
export function mailHostFunctions(proxy: MailProxy): Record<string, HostFunction> {
  const table = { send: async (args: unknown[]) => proxy.send(parseOutgoingRecord(onlyArg(args))) };
  return Object.freeze(Object.assign(Object.create(null) as Record<string, HostFunction>, table));
}

/** A guest's `outgoing` record, field by field; throws `invalid-input`. */
export function parseOutgoingRecord(value: unknown): OutgoingMail {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw HostProxyError.invalidInput("mail.send: message must be a record");
  const record = value as Record<string, unknown>;
  const extra = Object.keys(record).find((k) => !(FIELDS as readonly string[]).includes(k));
  if (extra !== undefined) throw HostProxyError.invalidInput(`mail.send: message has no field ${JSON.stringify(extra.slice(0, 64))}`);
  const list = (field: "to" | "cc" | "bcc"): string[] => {
    const v = record[field];
    if (v === undefined) return [];
    if (!Array.isArray(v) || !v.every((a) => typeof a === "string")) throw HostProxyError.invalidInput(`mail.send: ${field} must be a list of strings`);
    return v as string[];
  };
  const text = (field: "subject" | "body"): string => {
    const v = record[field];
    if (typeof v !== "string") throw HostProxyError.invalidInput(`mail.send: ${field} must be a string`);
    return v;
  };
  return { to: list("to"), cc: list("cc"), bcc: list("bcc"), subject: text("subject"), body: text("body") };
}

function onlyArg(args: unknown[]): unknown {
  if (!Array.isArray(args) || args.length !== 1) throw HostProxyError.invalidInput(`mail.send: expected 1 argument, got ${Array.isArray(args) ? args.length : typeof args}`);
  return args[0];
}
