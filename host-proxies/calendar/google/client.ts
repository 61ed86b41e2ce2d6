/**
 * One JSON request to the Calendar API v3: bearer token from the injected source, a deadline,
 * no redirects (the API never sends one, and a redirect must not carry the token elsewhere),
 * a cap on the response size, and Google's statuses turned into host errors a guest can act on.
 * The token never appears in an error message.
 */
import { InvalidInputError } from "../../../runtime/errors.js";
import { HostProxyError } from "../../types.js";
import { CALENDAR_DENIAL_REASONS, calendarDenied } from "../reasons.js";
import type { CalendarCapability } from "../reasons.js";

export const DEFAULT_GOOGLE_CALENDAR_BASE_URL = "https://www.googleapis.com/calendar/v3/";

export interface GoogleClientOptions {
  /** The OAuth access token, fetched (and refreshed) by the host for each request. */
  token: () => Promise<string>;
  baseUrl?: string;
  /** Default `globalThis.fetch`. */
  fetch?: typeof fetch;
  /** Per request; default 30 s. */
  timeoutMs?: number;
  /** Largest response body read; default 16 MiB. */
  maxResponseBytes?: number;
}

export interface ApiRequest {
  method: "GET" | "POST";
  /** Relative to the base URL, already percent-encoded: `calendars/primary/events`. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** The capability a denial names. */
  capability: CalendarCapability;
  /** Names the request in messages: `calendar primary`. */
  subject: string;
}

export class GoogleApiClient {
  readonly #base: URL;
  readonly #token: () => Promise<string>;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #maxBytes: number;

  /** Throws `InvalidInputError` on a base URL that would send the token in clear text. */
  constructor(options: GoogleClientOptions) {
    this.#base = checkBaseUrl(options.baseUrl ?? DEFAULT_GOOGLE_CALENDAR_BASE_URL);
    this.#token = options.token;
    this.#fetch = options.fetch ?? globalThis.fetch;
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxBytes = options.maxResponseBytes ?? 16 * 1024 * 1024;
  }

  async send(request: ApiRequest): Promise<Record<string, unknown>> {
    const url = new URL(request.path, this.#base);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, value);
    const headers: Record<string, string> = { authorization: `Bearer ${await this.#bearer()}`, accept: "application/json" };
    if (request.body !== undefined) headers["content-type"] = "application/json";
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: request.method, headers, redirect: "error", signal: AbortSignal.timeout(this.#timeoutMs),
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
    } catch (error) {
      throw HostProxyError.io(`${request.subject}: Google Calendar could not be reached (${errorName(error)})`, error);
    }
    const text = await readCapped(response, this.#maxBytes, request.subject);
    if (!response.ok) throw statusError(response.status, text, request);
    try {
      const json: unknown = JSON.parse(text);
      if (typeof json === "object" && json !== null && !Array.isArray(json)) return json as Record<string, unknown>;
    } catch (error) {
      throw HostProxyError.io(`${request.subject}: Google Calendar answered with invalid JSON`, error);
    }
    throw HostProxyError.io(`${request.subject}: Google Calendar answered with JSON that is not an object`);
  }

  async #bearer(): Promise<string> {
    let token: unknown;
    try {
      token = await this.#token();
    } catch (error) {
      throw HostProxyError.io("calendar: no Google access token could be had; the host's credentials need attention", error);
    }
    // A header value with a line break would smuggle headers; an empty token is a host bug.
    if (typeof token !== "string" || token === "" || /[\r\n\0]/.test(token)) {
      throw HostProxyError.io("calendar: the Google access token source returned no usable token");
    }
    return token;
  }
}

function statusError(status: number, body: string, request: ApiRequest): HostProxyError {
  const detail = googleMessage(body);
  if (status === 401) {
    return calendarDenied(request.capability, CALENDAR_DENIAL_REASONS.tokenRejected, `${request.subject}: Google Calendar rejected the access token (401); the account must be connected again`);
  }
  if (status === 403) return calendarDenied(request.capability, CALENDAR_DENIAL_REASONS.providerForbidden, `${request.subject}: Google Calendar refused (403): ${detail}`);
  if (status === 404) return HostProxyError.notFound(`${request.subject}: Google Calendar has no such calendar (404)`);
  if (status === 400) return HostProxyError.invalidInput(`${request.subject}: Google Calendar refused the request (400): ${detail}`);
  if (status === 429) return HostProxyError.io(`${request.subject}: Google Calendar is rate limiting (429); try again later`);
  return HostProxyError.io(`${request.subject}: Google Calendar failed (${status}): ${detail}`);
}

/** `error.message` of Google's error body, or a note that there was none. */
function googleMessage(body: string): string {
  try {
    const message = (JSON.parse(body) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string") return message.slice(0, 300);
  } catch {
    // Not JSON: a proxy's HTML page, say.
  }
  return "no error message";
}

async function readCapped(response: Response, max: number, subject: string): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > max) throw HostProxyError.io(`${subject}: Google Calendar's answer is ${declared} bytes, over the ${max}-byte limit`);
  if (response.body === null) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body) {
      size += chunk.byteLength;
      if (size > max) throw HostProxyError.io(`${subject}: Google Calendar's answer is over the ${max}-byte limit`);
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof HostProxyError) throw error;
    throw HostProxyError.io(`${subject}: Google Calendar's answer broke off (${errorName(error)})`, error);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function checkBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError(`GoogleCalendarBackend: baseUrl ${JSON.stringify(text)} is not a URL`, { field: "baseUrl" });
  }
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new InvalidInputError(`GoogleCalendarBackend: baseUrl must be https (http only on loopback), got ${url.protocol}`, { field: "baseUrl" });
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new InvalidInputError("GoogleCalendarBackend: baseUrl must not hold credentials, a query or a fragment", { field: "baseUrl" });
  }
  if (!url.pathname.endsWith("/")) url.pathname += "/";
  return url;
}

function errorName(error: unknown): string {
  if (error instanceof Error) return error.name === "TimeoutError" ? "timed out" : (error.cause instanceof Error ? error.cause.message : error.message).slice(0, 120);
  return "unknown error";
}
