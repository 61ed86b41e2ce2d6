/**
 * The message proxy of one instance: a chat message (or a JSON document) POSTed to an incoming
 * webhook URL through the http proxy, so the same canonicaliser, host allow-list, address
 * vetting (loopback, private and metadata addresses refused unless the grant lists them) and
 * pinned connection apply. Redirects are not followed: a webhook answers where it is. A
 * receiver's refusal (Slack's 404 `no_service`, 400 `invalid_payload`) is a clear `io` error.
 */
import { createHttpProxy, type HttpProxyOptions } from "../http/index.js";
import type { HttpResource } from "../http/resource.js";
import { HostProxyError } from "../types.js";
import { messageBody, MESSAGE_FORMATS, type MessageFormat } from "./format.js";

/** `message.outgoing`. */
export interface OutgoingMessage {
  url: string;
  text: string;
  /** `slack` (default), `teams` or `json`. */
  format: string | undefined;
  title: string | undefined;
}

/** `message.receipt`. */
export interface MessageReceipt {
  status: number;
  /** The receiver's answer, at most 1000 characters (Slack answers `ok`). */
  response: string;
}

/** What a `message.send` grant names (runtime/policy/catalogue/message.ts). */
export interface MessageResource {
  schemes: ("https" | "http")[];
  hosts: string[];
  ports?: number[] | undefined;
  allow_addresses: string[];
}

export const MAX_MESSAGE_TEXT = 40_000;
const MAX_TITLE = 150;
const MAX_ANSWER = 1000;

export interface MessageProxy {
  send(message: OutgoingMessage): Promise<MessageReceipt>;
}

export function createMessageProxy(grant: MessageResource, options: Pick<HttpProxyOptions, "resolver" | "ca"> = {}): MessageProxy {
  const http: HttpResource = { schemes: grant.schemes, hosts: grant.hosts, ports: grant.ports, methods: ["POST"], allow_addresses: grant.allow_addresses, credentials: [] };
  const proxy = createHttpProxy(http, options);
  return Object.freeze({
    send: async (message: OutgoingMessage) => {
      const format = checkFormat(message.format);
      if (typeof message.text !== "string" || message.text.length === 0) throw HostProxyError.invalidInput("message.send: text: expected a non-empty string");
      if (message.text.length > MAX_MESSAGE_TEXT) throw HostProxyError.invalidInput(`message.send: text: longer than ${MAX_MESSAGE_TEXT} characters`);
      if (message.title !== undefined && (typeof message.title !== "string" || message.title.length > MAX_TITLE || /[\u0000-\u001f]/.test(message.title))) {
        throw HostProxyError.invalidInput(`message.send: title: expected one line of at most ${MAX_TITLE} characters`);
      }
      const body = new TextEncoder().encode(JSON.stringify(messageBody(format, message.text, message.title)));
      const { canonical } = proxy.canonicalize({ method: "POST", url: message.url, headers: [{ name: "content-type", value: "application/json" }], body, followRedirects: false, maxBytes: MAX_ANSWER * 4 });
      const response = await proxy.fetch(canonical);
      const answer = new TextDecoder().decode(response.body).slice(0, MAX_ANSWER);
      if (response.status < 200 || response.status > 299) {
        throw HostProxyError.io(`message.send: ${new URL(canonical.url).host} answered ${response.status}${answer === "" ? "" : `: ${answer.slice(0, 300)}`}`);
      }
      return { status: response.status, response: answer };
    },
  });
}

export function checkFormat(format: string | undefined): MessageFormat {
  if (format === undefined || format === "") return "slack";
  if ((MESSAGE_FORMATS as readonly string[]).includes(format)) return format as MessageFormat;
  throw HostProxyError.invalidInput(`message.send: format: expected one of ${MESSAGE_FORMATS.join(", ")}, got ${JSON.stringify(format.slice(0, 40))}`);
}
