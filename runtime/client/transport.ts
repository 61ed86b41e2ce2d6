/**
 * Requests to the API (`/v1`): typed, with the API's error bodies turned back into
 * ClawhiveErrors with the same code and status, and a run's event stream followed across
 * dropped connections. What carries a request is given: Node's `http` to a server (node-http.ts),
 * or a runtime's own routes in this process (in-process.ts).
 */
import { ClawhiveError } from "../errors.js";
import { inert } from "../text/inert.js";
import { VERSION } from "../cli/version.js";
import { nodeFetch } from "./node-http.js";
import { sseMessages } from "./sse.js";
import type { Answer, Fetch } from "./wire.js";
export type { Answer, Fetch, Outgoing } from "./wire.js";

/** A running server and the bearer token to send it. */
export interface ServerTarget {
  /** `http(s)://host:port`, no trailing slash. */
  readonly url: string;
  readonly token: string;
}

/** An error answer of the API, as a ClawhiveError: its `code` and `status` are the server's. */
export class ServerError extends ClawhiveError {
  readonly field: string | undefined;
  /** The whole `error` object (some carry more, e.g. an upgrade's permission `diff`). */
  readonly body: Readonly<Record<string, unknown>>;
  constructor(code: string, message: string, options: { status: number; field?: string; body?: Record<string, unknown> }) {
    super(code, message, { status: options.status });
    this.field = options.field;
    this.body = options.body ?? {};
  }
}

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface RequestOptions {
  readonly query?: Query;
  /** Sent as `application/json`. */
  readonly json?: unknown;
  /** Sent as is, with its media type (a package, a YAML manifest). */
  readonly raw?: { readonly bytes: Uint8Array; readonly mediaType: string };
  readonly signal?: AbortSignal;
}

/** One event of a run's stream: `seq` (the SSE id), its type, its data. */
export interface StreamedEvent {
  readonly seq: number;
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** Requests to one server with one token. */
export class ApiClient {
  readonly target: ServerTarget;
  readonly #carry: Fetch;

  constructor(target: ServerTarget, options: { fetch?: Fetch } = {}) {
    this.target = target;
    this.#carry = options.fetch ?? nodeFetch;
  }

  get<T>(path: string, query?: Query): Promise<T> {
    return this.request<T>("GET", path, query === undefined ? {} : { query });
  }

  /** Answers with the parsed JSON body; an error answer is thrown as a ServerError. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.#fetch(method, path, options);
    const text = await response.text();
    if (!response.ok) throw errorOf(response, text, this.target);
    if (text === "") return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ClawhiveError("bad_response", `${method} ${path}: the server at ${this.target.url} answered ${response.status} with a body that is not JSON; is it a clawhive server?`, { status: 502 });
    }
  }

  /** A text answer (`/metrics`). */
  async text(path: string): Promise<string> {
    const response = await this.#fetch("GET", path, {});
    const text = await response.text();
    if (!response.ok) throw errorOf(response, text, this.target);
    return text;
  }

  /**
   * A run's events, oldest first, after `after`, to its end. A dropped stream (the server
   * restarted, an idle connection timed out while the run waited) is picked up again after the
   * last event seen (`Last-Event-ID`); after several failed reconnects in a row the error is thrown.
   */
  async *events(runId: string, options: { after?: number; signal?: AbortSignal; onRetry?: (error: Error) => void } = {}): AsyncGenerator<StreamedEvent> {
    let after = options.after ?? 0;
    let failures = 0;
    for (;;) {
      let response: Answer;
      try {
        response = await this.#fetch("GET", `/v1/runs/${segment(runId)}/events`, {
          ...(options.signal === undefined ? {} : { signal: options.signal }),
          headers: { accept: "text/event-stream", ...(after > 0 ? { "last-event-id": String(after) } : {}) },
        });
      } catch (error) {
        if (options.signal?.aborted || !(error instanceof ClawhiveError && error.code === "server_unreachable") || ++failures > 5) throw error;
        options.onRetry?.(error);
        await sleep(500 * failures, options.signal);
        continue;
      }
      if (!response.ok) throw errorOf(response, await response.text(), this.target);
      // A stream that stayed open a while (an idle one times out after minutes while a run waits
      // for a person) was not a failure of the server: only quick failures in a row count.
      const opened = Date.now();
      const settle = () => {
        if (Date.now() - opened > 10_000) failures = 0;
      };
      try {
        for await (const message of sseMessages(response)) {
          failures = 0;
          if (message.event === "end") return;
          const seq = Number(message.id);
          if (!Number.isSafeInteger(seq)) continue;
          after = seq;
          yield { seq, type: message.event, data: parseData(message.data) };
        }
      } catch (error) {
        if (options.signal?.aborted) throw error;
        settle();
        if (++failures > 5) throw new ClawhiveError("server_unreachable", `lost the event stream of run ${runId} from ${this.target.url}: ${(error as Error).message}`, { status: 503, cause: error });
        options.onRetry?.(error as Error);
        await sleep(500 * failures, options.signal);
        continue;
      }
      // The stream closed without its `end`: the server went away mid-run; pick it up again.
      settle();
      if (++failures > 5) throw new ClawhiveError("server_unreachable", `the event stream of run ${runId} keeps closing before the run ends (${this.target.url})`, { status: 503 });
      await sleep(500 * failures, options.signal);
    }
  }

  async #fetch(method: string, path: string, options: RequestOptions & { headers?: Record<string, string> }): Promise<Answer> {
    const url = new URL(`${this.target.url}${path}`);
    for (const [name, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `Bearer ${this.target.token}`, "user-agent": `clawhive-cli/${VERSION}`, ...options.headers };
    let body: string | Uint8Array | undefined;
    if (options.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(options.json);
    } else if (options.raw !== undefined) {
      headers["content-type"] = options.raw.mediaType;
      body = options.raw.bytes;
    }
    try {
      return await this.#carry(url, { method, headers, ...(body === undefined ? {} : { body }), ...(options.signal === undefined ? {} : { signal: options.signal }) });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      // Node's own errors carry `code` (ECONNREFUSED); a handler's may wrap one as `cause`.
      const { code, cause } = error as { code?: string; cause?: { code?: string; message?: string } };
      const why = code ?? cause?.code ?? cause?.message ?? (error as Error).message;
      throw new ClawhiveError("server_unreachable", `cannot reach the clawhive server at ${this.target.url}: ${why}; is 'clawhive serve' running there?`, { status: 503, cause: error });
    }
  }
}

/** The ServerError of an error answer; a body that is not the API's error shape still says what came back. */
function errorOf(response: Answer, text: string, target: ServerTarget): ServerError {
  let error: Record<string, unknown> | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    if (parsed !== null && typeof parsed.error === "object" && parsed.error !== null) error = parsed.error as Record<string, unknown>;
  } catch {
    // not JSON: described below
  }
  const status = response.status;
  const code = typeof error?.code === "string" ? error.code : `http_${status}`;
  let message = typeof error?.message === "string" ? error.message : `the server at ${target.url} answered ${status} ${response.statusText}`.trim();
  if (status === 401) message = `${target.url}: ${message}; check --token-file or CLAWHIVE_TOKEN ('clawhive token list' on the server's store shows the tokens)`;
  if (status === 403) message = `${message} (the token's role may not do this; 'clawhive token create --role …' makes one that may)`;
  if (status === 404 && code === "not_found" && /^no route/i.test(message)) message = `${message}: is ${target.url} a clawhive ${VERSION} server?`;
  const field = typeof error?.field === "string" ? error.field : undefined;
  return new ServerError(code, inert(message), { status, ...(field === undefined ? {} : { field }), ...(error === undefined ? {} : { body: error }) });
}

function parseData(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
  } catch {
    return { text };
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** A name or id put in a request path, encoded (the server refuses an encoded slash or dot segment anyway). */
export function segment(text: string): string {
  return encodeURIComponent(text);
}
