/** Local servers, grants, resolvers and assertions shared by the http proxy tests. */
import { createServer } from "node:http";
import type { IncomingMessage, RequestListener, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestContext } from "node:test";
import * as v from "valibot";
import type { FetchOptions, HttpProxy, HttpResponse, RawHttpRequest, ResolvedAddress, Resolver } from "../../../host-proxies/http/index.js";
import { httpFetch } from "../../../runtime/policy/catalogue/http.js";
import type { HttpResource } from "../../../runtime/policy/catalogue/http.js";
export { rejectsWith, throwsWith } from "../../helpers/host-errors.js";
export type { Expected } from "../../helpers/host-errors.js";


/** One request as a test server saw it. */
export interface Seen {
  method: string;
  url: string;
  /** Lowercase names, in arrival order. */
  headers: Array<[string, string]>;
  body: string;
}

export interface TestServer {
  port: number;
  seen: Seen[];
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string, host?: string): string;
  header(index: number, name: string): string | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse, seen: Seen) => void;

/** A server on 127.0.0.1, port 0, recording every request; closed when `t` ends. */
export async function listen(t: TestContext, handler: Handler, make: (l: RequestListener) => Server = createServer): Promise<TestServer> {
  const seen: Seen[] = [];
  const server = make((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const headers: Array<[string, string]> = [];
      for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) headers.push([(req.rawHeaders[i] ?? "").toLowerCase(), req.rawHeaders[i + 1] ?? ""]);
      const record: Seen = { method: req.method ?? "", url: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") };
      seen.push(record);
      handler(req, res, record);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => {
    server.closeAllConnections?.();
    server.close(() => resolve());
  }));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    seen,
    url: (path = "/", host = "127.0.0.1") => `http://${host}:${port}${path}`,
    header: (index, name) => seen[index]?.headers.find(([n]) => n === name)?.[1],
  };
}

/** Answers every request with `body` (text). */
export const ok = (body = "ok"): Handler => (_req, res) => {
  res.setHeader("content-type", "text/plain");
  res.end(body);
};

/** A grant as a manifest would write it, run through the catalogue's own schema. */
export function grant(resource: Record<string, unknown>): HttpResource {
  return v.parse(httpFetch.resource, { schemes: ["http", "https"], hosts: ["*"], methods: ["GET", "HEAD", "POST", "PUT", "DELETE"], ...resource });
}

export interface CountingResolver {
  resolver: Resolver;
  calls: string[];
}

/**
 * Names → addresses. A list of answers per name is served in turn, the last one repeating
 * (a rebinding name answers differently on each query). Unknown names: ENOTFOUND.
 */
export function resolverOf(table: Record<string, string[] | string[][]>): CountingResolver {
  const calls: string[] = [];
  const resolver: Resolver = async (host) => {
    const n = calls.filter((c) => c === host).length;
    calls.push(host);
    const entry = table[host];
    if (entry === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    const answers = Array.isArray(entry[0]) ? (entry as string[][]) : [entry as string[]];
    const answer = answers[Math.min(n, answers.length - 1)] ?? [];
    return answer.map((address): ResolvedAddress => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return { resolver, calls };
}

export const text = (bytes: Uint8Array): string => Buffer.from(bytes).toString("utf8");
export const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "utf8"));

/** A header of a proxy response, by lowercase name. */
export function responseHeader(response: { headers: { name: string; value: string }[] }, name: string): string | undefined {
  return response.headers.find((h) => h.name === name)?.value;
}

/** Canonicalises like the policy gate, then fetches: the path every guest request takes. */
export function fetchUrl(proxy: HttpProxy, url: string, raw: Partial<RawHttpRequest> = {}, options: FetchOptions = {}): Promise<HttpResponse> {
  try {
    const { canonical } = proxy.canonicalize({ method: "GET", url, headers: [], ...raw });
    return proxy.fetch(canonical, options);
  } catch (err) {
    return Promise.reject(err);
  }
}
