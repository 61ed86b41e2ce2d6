/**
 * GET (and, for sending, POST) requests to the Gmail REST API v1 with a bearer token, a deadline and a response size
 * cap, and Google's error statuses mapped onto host errors: 401 (and a 403 that is not a rate
 * limit) → denied `token-rejected`, 404 → not-found, 400 → invalid-input, 429 and the rate-limit
 * 403s → io. The token is fetched per request (the runtime's secret store may refresh it) and
 * never appears in a message; redirects are refused so it cannot follow one anywhere.
 */
import { InvalidInputError } from "../../../runtime/errors.js";
import { HostProxyError } from "../../types.js";
import { GMAIL_CAPABILITY, GMAIL_DENIAL_REASONS } from "../reasons.js";

export type QueryParams = Record<string, string | readonly string[] | undefined>;

export interface GmailApiClientOptions {
  /** Default `https://gmail.googleapis.com/`. Plain http only to a loopback address (tests). */
  baseUrl?: string;
  /** Per request, token fetch included. Default 15 000 ms. */
  timeoutMs?: number;
  /** Default 32 MiB (a full message with inline text parts). */
  maxResponseBytes?: number;
  fetch?: typeof globalThis.fetch;
  /** The capability named by a denial (`token-rejected`). Default `gmail.read`; sends say `mail.send`. */
  capability?: string;
}

const RATE_LIMIT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded", "quotaExceeded"]);
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

export class GmailApiClient {
  readonly #token: () => Promise<string>;
  readonly #base: URL;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #capability: string;

  constructor(token: () => Promise<string>, options: GmailApiClientOptions = {}) {
    this.#token = token;
    this.#base = checkBaseUrl(options.baseUrl ?? "https://gmail.googleapis.com/");
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#maxBytes = options.maxResponseBytes ?? 32 * 1024 * 1024;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#capability = options.capability ?? GMAIL_CAPABILITY;
  }

  /** GET `path` (relative to the base URL) and parse the JSON body; `what` names it in errors. */
  async get<T>(path: string, params: QueryParams, what: string): Promise<T> {
    const url = new URL(path, this.#base);
    for (const [name, value] of Object.entries(params)) {
      for (const v of typeof value === "string" ? [value] : (value ?? [])) url.searchParams.append(name, v);
    }
    return this.#request<T>(url, { method: "GET" }, what);
  }

  /** POST a JSON body to `path` and parse the JSON answer (`users.messages.send`). */
  async post<T>(path: string, body: unknown, what: string): Promise<T> {
    return this.#request<T>(new URL(path, this.#base), { method: "POST", body: JSON.stringify(body), contentType: "application/json" }, what);
  }

  async #request<T>(url: URL, init: { method: string; body?: string; contentType?: string }, what: string): Promise<T> {
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const token = await bearer(this.#token, signal);
      const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: "application/json", ...(init.contentType ? { "content-type": init.contentType } : {}) };
      const response = await this.#fetch(url, { method: init.method, headers, ...(init.body === undefined ? {} : { body: init.body }), redirect: "error", signal });
      const body = await readCapped(response, this.#maxBytes);
      if (!response.ok) throw statusError(response.status, body, what, this.#capability);
      return JSON.parse(body) as T;
    } catch (err) {
      if (err instanceof HostProxyError) throw err;
      if (signal.aborted) throw HostProxyError.io(`gmail: ${what}: the Gmail API did not answer within ${this.#timeoutMs} ms`, err);
      if (err instanceof SyntaxError) throw HostProxyError.io(`gmail: ${what}: the Gmail API sent a body that is not JSON`, err);
      throw HostProxyError.io(`gmail: ${what}: the Gmail API could not be reached`, err);
    }
  }
}

function checkBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.endsWith("/") ? text : `${text}/`);
  } catch (err) {
    throw new InvalidInputError(`GmailApiBackend: baseUrl: not a URL: ${JSON.stringify(text)}`, { field: "baseUrl", cause: err });
  }
  const plainLoopback = url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
  if (url.protocol !== "https:" && !plainLoopback) {
    throw new InvalidInputError("GmailApiBackend: baseUrl: the bearer token travels only over https (or plain http to a loopback address)", { field: "baseUrl" });
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new InvalidInputError("GmailApiBackend: baseUrl: no credentials, query or fragment", { field: "baseUrl" });
  }
  return url;
}

/** The token, read under the request's deadline (a stuck secret store must not hang the call). */
async function bearer(token: () => Promise<string>, signal: AbortSignal): Promise<string> {
  let value: unknown;
  try {
    const aborted = new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
    value = await Promise.race([token(), aborted]);
  } catch (err) {
    if (signal.aborted) throw err;
    // A refusal by the token endpoint (an OAuth refresh answered invalid_grant) keeps its words.
    if (err instanceof HostProxyError) throw err;
    throw HostProxyError.io("gmail: the OAuth token could not be read from the secret store", err);
  }
  // Visible ASCII only (RFC 6750 §2.1 b64token is narrower still): nothing that could end a header.
  if (typeof value !== "string" || !/^[\x21-\x7e]+$/.test(value)) throw HostProxyError.io("gmail: the stored OAuth token is empty or not a bearer token");
  return value;
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw HostProxyError.io(`gmail: the Gmail API answer is larger than ${maxBytes} bytes`);
  if (response.body === null) return "";
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body) {
    total += chunk.byteLength;
    if (total > maxBytes) {
      await response.body.cancel().catch(() => undefined);
      throw HostProxyError.io(`gmail: the Gmail API answer is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Google's JSON error (`{error: {code, message, errors: [{reason}]}}`), mapped by status. */
function statusError(status: number, body: string, what: string, capability: string): HostProxyError {
  const { message, reasons } = googleError(body);
  const detail = message === "" ? `${status}` : `${status}: ${message}`;
  if (status === 401) return HostProxyError.denied(capability, GMAIL_DENIAL_REASONS.tokenRejected, `gmail: ${what}: the Gmail API rejected the OAuth token (${detail}); reconnect the account`);
  if (status === 429 || (status === 403 && reasons.some((r) => RATE_LIMIT_REASONS.has(r)))) {
    return HostProxyError.io(`gmail: ${what}: rate limited by the Gmail API (${detail}); retry later`);
  }
  if (status === 403) return HostProxyError.denied(capability, GMAIL_DENIAL_REASONS.tokenRejected, `gmail: ${what}: the Gmail API refused the token (${detail}); check its scopes`);
  if (status === 404) return HostProxyError.notFound(`gmail: ${what} was not found`);
  if (status === 400) return HostProxyError.invalidInput(`gmail: ${what}: the Gmail API refused the request (${detail})`);
  return HostProxyError.io(`gmail: ${what}: the Gmail API failed (${detail})`);
}

function googleError(body: string): { message: string; reasons: string[] } {
  try {
    const error = (JSON.parse(body) as { error?: { message?: unknown; errors?: Array<{ reason?: unknown }> } }).error;
    const message = typeof error?.message === "string" ? error.message.slice(0, 300) : "";
    const reasons = (Array.isArray(error?.errors) ? error.errors : []).map((e) => String(e?.reason ?? ""));
    return { message, reasons };
  } catch {
    return { message: "", reasons: [] };
  }
}
