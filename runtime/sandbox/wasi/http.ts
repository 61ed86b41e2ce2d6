/**
 * `wasi:http/types` and `wasi:http/outgoing-handler` of one instance. A request is assembled
 * here from the guest's resources, then sent as one `clawhive:host/http` fetch on the main
 * thread: the http proxy's allow-list, SSRF defences (metadata and private addresses, DNS
 * pinning), host-attached credentials, limits and audit apply as to any plugin. Redirects are
 * not followed (a WASI client follows them itself, each hop a request of its own).
 *
 * Only the outgoing side is served: a plugin is never an HTTP server, so the incoming-handler
 * resources exist for the glue's sake and refuse to be made.
 */
import type { WasiInstanceContext } from "./context.js";
import { InputStream, IoError, Pollable, type InputSource, type StreamError } from "./streams.js";

type ErrorCode = { tag: string; val?: unknown };
type Method = { tag: string; val?: string };
type Scheme = { tag: "HTTP" | "HTTPS" | "other"; val?: string };

import { Fields, NAME, OutgoingBody } from "./http-outgoing.js";

export { Fields, MAX_OUTGOING_BODY_BYTES, OutgoingBody } from "./http-outgoing.js";

export class OutgoingRequest {
  readonly #headers: Fields;
  #method: Method = { tag: "get" };
  #path: string | undefined;
  #scheme: Scheme | undefined;
  #authority: string | undefined;
  #body: OutgoingBody | undefined;

  constructor(headers: Fields) {
    this.#headers = headers.freeze();
  }
  body(): OutgoingBody {
    if (this.#body) throw undefined;
    this.#body = new OutgoingBody();
    return this.#body;
  }
  method(): Method {
    return this.#method;
  }
  setMethod(method: Method): void {
    if (method.tag === "other" && !NAME.test(method.val ?? "")) throw undefined;
    this.#method = method;
  }
  pathWithQuery(): string | undefined {
    return this.#path;
  }
  setPathWithQuery(path: string | undefined): void {
    if (path !== undefined && /[\s#]/.test(path)) throw undefined;
    this.#path = path;
  }
  scheme(): Scheme | undefined {
    return this.#scheme;
  }
  setScheme(scheme: Scheme | undefined): void {
    this.#scheme = scheme;
  }
  authority(): string | undefined {
    return this.#authority;
  }
  setAuthority(authority: string | undefined): void {
    if (authority !== undefined && /[\s/?#@]/.test(authority)) throw undefined;
    this.#authority = authority;
  }
  headers(): Fields {
    return this.#headers;
  }

  /** The request record of `clawhive:host/http.fetch`. */
  toHostRequest(timeoutMs: number | undefined): Record<string, unknown> {
    const scheme = this.#scheme?.tag === "HTTP" ? "http" : this.#scheme?.tag === "other" ? this.#scheme.val : "https";
    if (this.#authority === undefined) throw { tag: "HTTP-request-URI-invalid" } satisfies ErrorCode;
    const body = this.#body && this.#body.bytes > 0 ? Buffer.concat(this.#body.chunks) : undefined;
    const method = this.#method.tag === "other" ? this.#method.val! : this.#method.tag.toUpperCase();
    return {
      method,
      url: `${scheme}://${this.#authority}${this.#path ?? "/"}`,
      headers: this.#headers.list(),
      body: body === undefined ? undefined : new Uint8Array(body),
      timeoutMs,
      followRedirects: false,
    };
  }
}

export class RequestOptions {
  #timeouts: Record<string, bigint | undefined> = {};
  connectTimeout(): bigint | undefined {
    return this.#timeouts.connect;
  }
  setConnectTimeout(d: bigint | undefined): void {
    this.#timeouts.connect = d;
  }
  firstByteTimeout(): bigint | undefined {
    return this.#timeouts.firstByte;
  }
  setFirstByteTimeout(d: bigint | undefined): void {
    this.#timeouts.firstByte = d;
  }
  betweenBytesTimeout(): bigint | undefined {
    return this.#timeouts.betweenBytes;
  }
  setBetweenBytesTimeout(d: bigint | undefined): void {
    this.#timeouts.betweenBytes = d;
  }
  /** The whole request's deadline in ms: the sum of what was set (nanoseconds), if anything was. */
  totalMs(): number | undefined {
    const values = Object.values(this.#timeouts).filter((d): d is bigint => d !== undefined);
    if (values.length === 0) return undefined;
    return Math.min(0xffff_ffff, Math.ceil(Number(values.reduce((a, b) => a + b, 0n)) / 1e6));
  }
}

interface HostResponseRecord {
  status: number;
  headers: Array<{ name: string; value: string }>;
  body: Uint8Array;
  truncated: boolean;
}

export class IncomingResponse {
  readonly #response: HostResponseRecord;
  readonly #headers: Fields;
  #consumed = false;
  constructor(response: HostResponseRecord) {
    this.#response = response;
    this.#headers = Fields.fromList(response.headers.filter((h) => NAME.test(h.name)).map((h) => [h.name, new Uint8Array(Buffer.from(h.value, "latin1"))])).freeze();
  }
  status(): number {
    return this.#response.status;
  }
  headers(): Fields {
    return this.#headers;
  }
  consume(): IncomingBody {
    if (this.#consumed) throw undefined;
    this.#consumed = true;
    return new IncomingBody(this.#response);
  }
}

export class IncomingBody {
  readonly #response: HostResponseRecord;
  #streamed = false;
  constructor(response: HostResponseRecord) {
    this.#response = response;
  }
  stream(): InputStream {
    if (this.#streamed) throw undefined;
    this.#streamed = true;
    return new InputStream(bodySource(this.#response));
  }
  static finish(_body: IncomingBody): FutureTrailers {
    return new FutureTrailers();
  }
}

/** The body's bytes, then, when the proxy cut it at its size limit, an error instead of a clean end. */
function bodySource(response: HostResponseRecord): InputSource {
  let at = 0;
  const bytes = response.body;
  return {
    take(max) {
      if (at >= bytes.byteLength && response.truncated) throw { tag: "last-operation-failed", val: new IoError("the response body is larger than the http proxy's limit") } satisfies StreamError;
      const chunk = bytes.slice(at, Math.min(bytes.byteLength, at + max));
      at += chunk.byteLength;
      return chunk;
    },
    done: () => at >= bytes.byteLength && !response.truncated,
  };
}

export class FutureTrailers {
  #taken = false;
  subscribe(): Pollable {
    return new Pollable();
  }
  get(): unknown {
    if (this.#taken) return { tag: "err", val: undefined };
    this.#taken = true;
    return { tag: "ok", val: { tag: "ok", val: undefined } };
  }
}

export class FutureIncomingResponse {
  readonly #outcome: { tag: "ok"; val: IncomingResponse } | { tag: "err"; val: ErrorCode };
  #taken = false;
  constructor(outcome: { tag: "ok"; val: IncomingResponse } | { tag: "err"; val: ErrorCode }) {
    this.#outcome = outcome;
  }
  subscribe(): Pollable {
    return new Pollable();
  }
  get(): unknown {
    if (this.#taken) return { tag: "err", val: undefined };
    this.#taken = true;
    return { tag: "ok", val: this.#outcome };
  }
}

/** The incoming side: a plugin never serves HTTP. */
class NotServed {
  constructor() {
    throw new Error("wasi:http incoming requests are not served to plugins");
  }
}

/** A host error of the http proxy, as a WASI error code (the proxy's message stays in the audit). */
function errorCode(error: unknown): ErrorCode {
  const e = error as { tag?: string; val?: unknown };
  if (e?.tag === "denied") return { tag: "HTTP-request-denied" };
  if (e?.tag === "not-found") return { tag: "destination-not-found" };
  if (e?.tag === "invalid-input") return { tag: "HTTP-request-URI-invalid" };
  return { tag: "internal-error", val: typeof e?.val === "string" ? e.val.slice(0, 500) : undefined };
}

export function httpImports(context: WasiInstanceContext): Record<string, Record<string, unknown>> {
  return {
    "wasi:http/types": {
      Fields,
      OutgoingRequest,
      OutgoingBody,
      RequestOptions,
      IncomingResponse,
      IncomingBody,
      FutureTrailers,
      FutureIncomingResponse,
      IncomingRequest: NotServed,
      OutgoingResponse: NotServed,
      ResponseOutparam: NotServed,
      httpErrorCode: () => undefined,
    },
    "wasi:http/outgoing-handler": {
      handle: (request: OutgoingRequest, options?: RequestOptions): FutureIncomingResponse => {
        const record = request.toHostRequest(options?.totalMs());
        const response = context.hostCall("http", "fetch", [record]);
        if (!response.ok) throw errorCode(response.error);
        return new FutureIncomingResponse({ tag: "ok", val: new IncomingResponse(response.value as HostResponseRecord) });
      },
    },
  };
}
