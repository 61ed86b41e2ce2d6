import { createHash } from "node:crypto";
import { InvalidInputError, PluginError } from "../../errors.js";
import { isLoopbackRegistry } from "./reference.js";

/** How to reach a registry. */
export interface RegistryOptions {
  /** `username:password` for basic auth (and for a token service that asks for it); none: anonymous. */
  credentials?: string;
  /** Plain http to a registry that is not on loopback (a lab registry); loopback always uses http. */
  plainHttp?: boolean;
  /** The longest a registry may stay silent (no headers, no bytes). Default 30 s. */
  idleTimeoutMs?: number;
  /** One whole request, redirects and body included. Default 300 s. */
  deadlineMs?: number;
}

export interface RegistryResponse {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

const MAX_REDIRECTS = 3;
/** An error body is read only this far (a hostile registry could send an endless one). */
const MAX_ERROR_BYTES = 8 << 10;
const MAX_TOKEN_BYTES = 64 << 10;

/**
 * OCI distribution API v2 over HTTP(S): one registry, anonymous, basic or bearer-token auth
 * (distribution's token flow: a 401 naming a realm, a token fetched there, the request sent
 * again). Every request runs under a deadline and an idle timeout, bodies are read under a cap,
 * and redirects (a blob served from storage elsewhere) are followed a few hops, never from
 * https to http, with credentials sent only to the registry itself.
 */
export class RegistryTransport {
  readonly registry: string;
  readonly base: string;
  readonly #options: RegistryOptions;
  #token: string | undefined;

  constructor(registry: string, options: RegistryOptions = {}) {
    if (options.credentials !== undefined && !options.credentials.includes(":")) {
      throw new InvalidInputError("registry credentials: expected username:password", { field: "registry_secret" });
    }
    this.registry = registry;
    this.#options = options;
    this.base = `${isLoopbackRegistry(registry) || options.plainHttp === true ? "http" : "https"}://${registry}`;
  }

  /** Sends a request to `path` (under /v2/), reading at most `maxBytes` of a 2xx body. */
  async request(method: string, path: string, options: { headers?: Record<string, string>; body?: Uint8Array; maxBytes: number; what: string }): Promise<RegistryResponse> {
    let response = await this.#send(method, `${this.base}${path}`, options);
    if (response.status === 401) {
      const challenge = response.headers.get("www-authenticate") ?? "";
      if (await this.#authenticate(challenge, options.what)) response = await this.#send(method, `${this.base}${path}`, options);
    }
    return response;
  }

  /** A location header (an upload session URL) resolved against the registry, kept on its host. */
  resolve(location: string): string {
    const url = new URL(location, this.base);
    if (url.origin !== new URL(this.base).origin) throw new PluginError("registry_invalid", `${this.registry}: an upload location on another host (${url.origin}) was refused`);
    return url.href;
  }

  /** Sends to a full URL on the registry (an upload location). */
  async requestUrl(method: string, url: string, options: { headers?: Record<string, string>; body?: Uint8Array; maxBytes: number; what: string }): Promise<RegistryResponse> {
    return this.#send(method, url, options);
  }

  async #send(method: string, url: string, options: { headers?: Record<string, string>; body?: Uint8Array; maxBytes: number; what: string }): Promise<RegistryResponse> {
    const deadlineMs = this.#options.deadlineMs ?? 300_000;
    const deadline = AbortSignal.timeout(deadlineMs);
    let current = new URL(url);
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const own = current.origin === new URL(this.base).origin;
      const headers: Record<string, string> = { ...(options.headers ?? {}), ...(own ? this.#authorization() : {}) };
      const response = await this.#fetch(current, { method, headers, body: options.body, deadline, deadlineMs, what: options.what });
      if (response.status >= 300 && response.status < 400 && response.headers.get("location")) {
        await response.body?.cancel().catch(() => undefined);
        const next = new URL(response.headers.get("location")!, current);
        if (next.protocol !== "https:" && !(next.protocol === "http:" && current.protocol === "http:")) {
          throw new PluginError("registry_invalid", `${this.registry}: ${options.what}: redirected from ${current.protocol} to ${next.protocol}; refused`);
        }
        current = next;
        continue;
      }
      // A HEAD's content-length is the blob's, with no body.
      if (method === "HEAD") {
        await response.body?.cancel().catch(() => undefined);
        return { status: response.status, headers: response.headers, bytes: new Uint8Array() };
      }
      const ok = response.status >= 200 && response.status < 300;
      const bytes = await this.#read(response, ok ? options.maxBytes : MAX_ERROR_BYTES, { ...options, deadline, deadlineMs, truncate: !ok });
      return { status: response.status, headers: response.headers, bytes };
    }
    throw new PluginError("registry_invalid", `${this.registry}: ${options.what}: more than ${MAX_REDIRECTS} redirects`);
  }

  async #fetch(url: URL, init: { method: string; headers: Record<string, string>; body: Uint8Array | undefined; deadline: AbortSignal; deadlineMs: number; what: string }): Promise<Response> {
    const idleMs = this.#options.idleTimeoutMs ?? 30_000;
    const idle = new AbortController();
    const timer = setTimeout(() => idle.abort(), idleMs);
    try {
      return await fetch(url, { method: init.method, headers: init.headers, ...(init.body === undefined ? {} : { body: init.body as unknown as BodyInit }), redirect: "manual", signal: AbortSignal.any([init.deadline, idle.signal]) });
    } catch (error) {
      throw this.#failure(error, { ...init, idle: idle.signal, idleMs });
    } finally {
      clearTimeout(timer);
    }
  }

  /** The body, at most `max` bytes (more is refused, or cut for an error body), with the idle timeout between chunks. */
  async #read(response: Response, max: number, options: { what: string; deadline: AbortSignal; deadlineMs: number; truncate: boolean }): Promise<Uint8Array> {
    const declared = Number(response.headers.get("content-length") ?? "NaN");
    if (!options.truncate && Number.isFinite(declared) && declared > max) {
      await response.body?.cancel().catch(() => undefined);
      throw new PluginError("blob_too_large", `${this.registry}: ${options.what}: ${declared} bytes, more than the ${max} allowed; nothing was installed`);
    }
    if (response.body === null) return new Uint8Array();
    const reader = response.body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    const idleMs = this.#options.idleTimeoutMs ?? 30_000;
    try {
      for (;;) {
        const next = await withIdle(reader.read(), { idleMs, deadline: options.deadline });
        if (next === "idle" || next === "deadline") {
          await reader.cancel().catch(() => undefined);
          const why = next === "idle" ? `no bytes for ${idleMs} ms` : `not done within ${options.deadlineMs} ms`;
          throw new PluginError("registry_timeout", `${this.registry}: ${options.what}: ${why}; nothing was installed`);
        }
        if (next.done) break;
        size += next.value.byteLength;
        if (size > max) {
          await reader.cancel().catch(() => undefined);
          if (options.truncate) break;
          throw new PluginError("blob_too_large", `${this.registry}: ${options.what}: more than the ${max} bytes allowed; nothing was installed`);
        }
        parts.push(next.value);
      }
    } finally {
      reader.releaseLock();
    }
    return new Uint8Array(Buffer.concat(parts));
  }

  #authorization(): Record<string, string> {
    if (this.#token !== undefined) return { authorization: `Bearer ${this.#token}` };
    if (this.#options.credentials !== undefined) return { authorization: `Basic ${Buffer.from(this.#options.credentials, "utf8").toString("base64")}` };
    return {};
  }

  /** Answers a 401's challenge: basic needs credentials (sent already when given); bearer fetches a token. */
  async #authenticate(challenge: string, what: string): Promise<boolean> {
    const scheme = challenge.trim().split(/\s+/)[0]?.toLowerCase();
    if (scheme !== "bearer" || this.#token !== undefined) return false;
    const params = challengeParams(challenge);
    const realm = params.get("realm");
    if (realm === undefined) return false;
    const url = new URL(realm);
    if (url.protocol !== "https:" && !(url.protocol === "http:" && this.base.startsWith("http:"))) {
      throw new PluginError("registry_invalid", `${this.registry}: the token service ${url.origin} is not https; refused`);
    }
    for (const key of ["service", "scope"]) if (params.has(key)) url.searchParams.set(key, params.get(key)!);
    const deadline = AbortSignal.timeout(this.#options.deadlineMs ?? 300_000);
    const basic: Record<string, string> = this.#options.credentials === undefined ? {} : { authorization: `Basic ${Buffer.from(this.#options.credentials, "utf8").toString("base64")}` };
    const response = await this.#fetch(url, { method: "GET", headers: basic, body: undefined, deadline, deadlineMs: this.#options.deadlineMs ?? 300_000, what });
    const bytes = await this.#read(response, MAX_TOKEN_BYTES, { what: `${what} (token)`, deadline, deadlineMs: this.#options.deadlineMs ?? 300_000, truncate: false });
    if (response.status !== 200) throw new PluginError("registry_unauthorized", `${this.registry}: ${what}: the token service answered HTTP ${response.status}; check the registry credentials`);
    let token: unknown;
    try {
      const body = JSON.parse(Buffer.from(bytes).toString("utf8")) as { token?: unknown; access_token?: unknown };
      token = body.token ?? body.access_token;
    } catch {
      token = undefined;
    }
    if (typeof token !== "string" || token === "" || !/^[\x21-\x7e]+$/.test(token)) throw new PluginError("registry_invalid", `${this.registry}: ${what}: the token service sent no usable token`);
    this.#token = token;
    return true;
  }

  #failure(error: unknown, init: { deadline: AbortSignal; deadlineMs: number; idle: AbortSignal; idleMs: number; what: string }): PluginError {
    if (init.deadline.aborted) return new PluginError("registry_timeout", `${this.registry}: ${init.what}: not done within ${init.deadlineMs} ms; nothing was installed`, { cause: error });
    if (init.idle.aborted) return new PluginError("registry_timeout", `${this.registry}: ${init.what}: no answer for ${init.idleMs} ms; nothing was installed`, { cause: error });
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return new PluginError("registry_unreachable", `${this.registry}: ${init.what}: ${cause?.code ?? cause?.message ?? (error as Error).message}`, { cause: error });
  }
}

/** `sha256:<hex>` of bytes. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** A registry's error body (`{errors: [{code, message}]}`), shortened, for a message. */
export function registryErrorText(response: RegistryResponse): string {
  try {
    const body = JSON.parse(Buffer.from(response.bytes).toString("utf8")) as { errors?: { code?: unknown; message?: unknown }[] };
    const first = body.errors?.[0];
    if (first !== undefined) return `HTTP ${response.status} ${String(first.code ?? "")}: ${String(first.message ?? "").slice(0, 200)}`;
  } catch {
    // not JSON: the status says enough
  }
  return `HTTP ${response.status}`;
}

function challengeParams(challenge: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const match of challenge.matchAll(/([a-zA-Z_]+)="([^"]*)"/g)) params.set(match[1]!.toLowerCase(), match[2]!);
  return params;
}

async function withIdle<T>(work: Promise<T>, options: { idleMs: number; deadline: AbortSignal }): Promise<T | "idle" | "deadline"> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<"idle">((resolve) => {
        timer = setTimeout(() => resolve("idle"), options.idleMs);
      }),
      new Promise<"deadline">((resolve) => {
        if (options.deadline.aborted) resolve("deadline");
        onAbort = () => resolve("deadline");
        options.deadline.addEventListener("abort", onAbort, { once: true });
      }),
    ]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.deadline.removeEventListener("abort", onAbort);
  }
}
