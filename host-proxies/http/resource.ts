/**
 * What an `http.fetch` grant names and how one canonical request is decided against it: the
 * proxy's own resource type and matcher. The policy catalogue validates manifests into this
 * shape (its valibot schema is checked against these types) and ANDs this matcher's decisions.
 */
import { hostMatches } from "./host-pattern.js";
import { ALLOW, deny, type Decision } from "../types.js";

export const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
const DEFAULT_PORTS = { http: 80, https: 443 } as const;

/**
 * A stored secret attached to one exact host: the proxy adds it as a header to requests for
 * that origin only (dropped on a redirect elsewhere).
 */
export interface HttpCredential {
  host: string;
  secret: string;
  header: string;
  /** Prefix before the value, e.g. `Bearer`; empty for raw values such as API keys. */
  scheme: string;
}

export interface HttpResource {
  schemes: ("https" | "http")[];
  hosts: string[];
  /** Allowed ports; when absent, only each scheme's default port (443, 80). */
  ports?: number[] | undefined;
  methods: HttpMethod[];
  /** Private or loopback addresses a request may still reach, exactly as listed. */
  allow_addresses: string[];
  credentials: HttpCredential[];
}

/** A request after the http proxy's canonicalisation: `port` always filled in. */
export interface HttpRequest {
  scheme: string;
  host: string;
  port: number;
  method: string;
}

/** The ports a grant allows: its list, or the default port of each allowed scheme. */
export function effectivePorts(grant: HttpResource): number[] {
  return grant.ports ?? grant.schemes.map((s) => DEFAULT_PORTS[s]);
}

/** One grant's decision on one canonical request (scheme, host, port, method). */
export function matchHttpRequest(grant: HttpResource, request: HttpRequest): Decision {
  const url = `${request.method} ${request.scheme}://${request.host}:${request.port}`;
  if (!(grant.schemes as readonly string[]).includes(request.scheme)) {
    return deny("http.fetch", "scheme-not-allowed", `${url}: scheme ${request.scheme} is not granted (${grant.schemes.join(", ")})`);
  }
  if (!grant.hosts.some((p) => hostMatches(p, request.host))) {
    return deny("http.fetch", "host-not-allowed", `${url}: host ${request.host} matches no granted host pattern`);
  }
  if (!effectivePorts(grant).includes(request.port)) {
    return deny("http.fetch", "port-not-allowed", `${url}: port ${request.port} is not granted`);
  }
  if (!(grant.methods as readonly string[]).includes(request.method)) {
    return deny("http.fetch", "method-not-allowed", `${url}: method ${request.method} is not granted (${grant.methods.join(", ")})`);
  }
  return ALLOW;
}
