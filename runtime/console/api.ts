import type { Hono } from "hono";

/** One answer of the JSON API, read whole (a stream is not read: see `stream`). */
export interface ApiAnswer {
  readonly status: number;
  // The console shows what the API answered field by field; the shapes are the API's schemas.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

/**
 * The console reads and decides only through the JSON API, in this process: each page calls
 * `/v1/...` with the signed-in person's own token, so roles, ownership (a client sees only its
 * runs), validation and audit are the API's, unchanged, and no page has SQL of its own.
 */
export class ApiCaller {
  readonly #app: Pick<Hono, "fetch">;
  readonly #origin: string;
  readonly #host: string | undefined;
  readonly #token: string;

  constructor(app: Pick<Hono, "fetch">, request: Request, token: string) {
    this.#app = app;
    this.#origin = new URL(request.url).origin;
    this.#host = request.headers.get("host") ?? undefined;
    this.#token = token;
  }

  async get(path: string): Promise<ApiAnswer> {
    return this.#read(await this.raw("GET", path));
  }

  async post(path: string, body: unknown): Promise<ApiAnswer> {
    return this.#read(await this.raw("POST", path, body));
  }

  async delete(path: string): Promise<ApiAnswer> {
    return this.#read(await this.raw("DELETE", path));
  }

  /** The API's response as it is (an SSE stream passes through). */
  async raw(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
    const sent: Record<string, string> = { authorization: `Bearer ${this.#token}`, ...headers };
    if (this.#host !== undefined) sent.host = this.#host;
    if (body !== undefined) sent["content-type"] = "application/json";
    const request = new Request(new URL(path, this.#origin), { method, headers: sent, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return this.#app.fetch(request);
  }

  async #read(response: Response): Promise<ApiAnswer> {
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text === "" ? null : JSON.parse(text);
    } catch {
      body = { error: { code: "not_json", message: text.slice(0, 200) } };
    }
    return { status: response.status, body };
  }
}
