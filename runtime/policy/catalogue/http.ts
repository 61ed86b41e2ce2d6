/**
 * `http.fetch`: which URLs a plugin may request. The http proxy canonicalises the URL (WHATWG
 * URL: scheme, lowercase A-label host, port with the scheme default filled in) and resolves the
 * host; this entry decides the canonical `{scheme, host, port, method}`. Which resolved
 * addresses are private (loopback, RFC 1918, link-local, cloud metadata) is the proxy's call;
 * `allow_addresses` is the grant's exact list of such addresses it may still reach.
 */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { HostPatternSchema, hostPatternCovers, isCanonicalIp } from "../../../host-proxies/http/host-pattern.js";
import { effectivePorts, HTTP_METHODS, matchHttpRequest } from "../../../host-proxies/http/resource.js";
import type { HttpCredential, HttpRequest, HttpResource } from "../../../host-proxies/http/resource.js";
import { unique } from "./names.js";
import type { CapabilityEntry, Coverage } from "./types.js";
import { COVERED, firstUncovered, notCovered } from "./types.js";

export { effectivePorts, HTTP_METHODS } from "../../../host-proxies/http/resource.js";
export type { HttpCredential, HttpMethod, HttpRequest, HttpResource } from "../../../host-proxies/http/resource.js";

// Canonical form only: the proxy compares the resolved address as a string, so `::FFFF:a.b.c.d`
// or `010.0.0.1` would never match and would only look like an allowance.
const IpSchema = v.pipe(
  v.string(),
  v.ip("expected an IPv4 or IPv6 address"),
  v.check(isCanonicalIp, "write the address in canonical form (lowercase, shortest IPv6, no leading zeros)"),
);

/**
 * A stored secret attached to one exact host: the host proxy adds it as a header to requests
 * for that origin only (dropped on a redirect elsewhere). Exact host, not a pattern: a
 * credential must never reach a subdomain nobody named.
 */
const CredentialSchema = strictObject({
  host: v.pipe(v.string(), v.regex(/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/, "expected one exact lowercase host name (no pattern, no port)")),
  secret: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9_-]{0,63}$/, "expected a secret name (lowercase letters, digits, '-', '_')")),
  header: v.pipe(v.optional(v.string(), "authorization"), v.regex(/^[a-z0-9-]{1,64}$/, "expected a lowercase header name")),
  /** Prefix before the value, e.g. `Bearer`; empty for raw values such as API keys. */
  scheme: v.optional(v.pipe(v.string(), v.regex(/^([A-Za-z][A-Za-z0-9-]{0,31})?$/, "expected an auth scheme like Bearer, or \"\" for a raw value such as an API key")), "Bearer"),
});


const HttpResourceSchema = strictObject({
  schemes: v.pipe(v.optional(v.array(v.picklist(["https", "http"])), () => ["https" as const]), v.check((items) => unique(items), "schemes must be unique")),
  hosts: v.pipe(v.array(HostPatternSchema), v.minLength(1, "expected at least one host pattern"), v.check((items) => unique(items), "host patterns must be unique")),
  ports: v.pipe(
    v.optional(v.array(v.pipe(v.number(), v.integer("expected an integer port"), v.minValue(1), v.maxValue(65535)))),
    v.description("allowed ports; when absent, only each scheme's default port (443, 80)"),
  ),
  methods: v.pipe(v.optional(v.array(v.picklist(HTTP_METHODS)), () => ["GET" as const, "HEAD" as const]), v.check((items) => unique(items), "methods must be unique")),
  allow_addresses: v.pipe(
    v.optional(v.array(IpSchema), () => []),
    v.description("private or loopback addresses a request may still reach, exactly as listed"),
  ),
  credentials: v.pipe(
    v.optional(v.array(CredentialSchema), () => []),
    v.description("secrets the host adds to requests for one exact host (never seen by the plugin or the model)"),
  ),
});
// The schema's output must be exactly the proxy's resource type, or the build fails here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const _resourceShape: Same<v.InferOutput<typeof HttpResourceSchema>, HttpResource> = true;
const _credentialShape: Same<v.InferOutput<typeof CredentialSchema>, HttpCredential> = true;
void _resourceShape;
void _credentialShape;

function subset<T>(outer: readonly T[], inner: readonly T[], path: string): Coverage {
  const i = inner.findIndex((x) => !outer.includes(x));
  return i === -1 ? COVERED : notCovered(`${path}[${i}]`, `${JSON.stringify(inner[i])} is not allowed by the wider grant`);
}

function httpCovers(outer: HttpResource, inner: HttpResource): Coverage {
  return firstUncovered(
    () => subset(outer.schemes, inner.schemes, "schemes"),
    () => {
      const i = inner.hosts.findIndex((h) => !outer.hosts.some((o) => hostPatternCovers(o, h)));
      return i === -1 ? COVERED : notCovered(`hosts[${i}]`, `${JSON.stringify(inner.hosts[i])} is not within ${JSON.stringify(outer.hosts)}`);
    },
    () => subset(effectivePorts(outer), effectivePorts(inner), "ports"),
    () => subset(outer.methods, inner.methods, "methods"),
    () => subset(outer.allow_addresses, inner.allow_addresses, "allow_addresses"),
    () => {
      // A narrower grant may drop credentials, never add one the wider grant does not attach.
      const key = (c: HttpCredential) => `${c.host}\u0000${c.secret}\u0000${c.header}\u0000${c.scheme}`;
      const i = inner.credentials.findIndex((c) => !outer.credentials.some((o) => key(o) === key(c)));
      return i === -1 ? COVERED : notCovered(`credentials[${i}]`, "this credential is not attached by the wider grant");
    },
  );
}

export const httpFetch: CapabilityEntry<HttpResource, HttpRequest> = {
  name: "http.fetch",
  description: "Make HTTP requests to the granted schemes, hosts, ports and methods.",
  resource: HttpResourceSchema,
  defaultRisk: "guarded",
  riskReason:
    "every request carries data out (even a GET, in its URL): the network is the exfiltration channel for whatever the agent has read, so it is gated like a write",
  covers: httpCovers,
  matches: matchHttpRequest,
};
