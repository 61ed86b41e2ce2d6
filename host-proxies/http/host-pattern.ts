/**
 * Host patterns for `http.fetch`: `*` (any host), `api.example.com` (exactly that name),
 * `*.example.com` (any name below example.com at any depth, but not example.com itself), or an
 * IP literal (exactly that address). No other wildcard positions: `api-*.example.com` and
 * `example.*` are refused, so "pattern within pattern" stays a suffix test.
 *
 * Names are compared in the form the http proxy canonicalises a URL host to (WHATWG URL):
 * lowercase, IDNA A-labels (`xn--…`), no trailing dot. The pattern must already be in that
 * form; a pattern that could never match is a typo that would quietly deny, so it is refused.
 * The suffix test always includes the dot: `*.example.com` matches `a.example.com`, never
 * `evil-example.com` or `example.com.evil.org`.
 */
import { isIP } from "node:net";
import * as v from "valibot";

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** Whether `address` is an IP literal written exactly as WHATWG URL prints it. */
export function isCanonicalIp(address: string): boolean {
  return canonicalIp(address) !== undefined;
}

/** `host` as WHATWG URL prints it, or `undefined` if URL parsing rewrites or rejects it. */
function canonicalIp(host: string): string | undefined {
  const kind = isIP(host);
  if (kind === 0) return undefined;
  try {
    const printed = new URL(kind === 6 ? `http://[${host}]/` : `http://${host}/`).hostname;
    return printed === (kind === 6 ? `[${host}]` : host) ? host : undefined;
  } catch {
    return undefined;
  }
}

function isDomain(name: string): boolean {
  if (name.length > 253) return false;
  const labels = name.split(".");
  // WHATWG URL reads a name whose last label is numeric as IPv4 (`127.1`, `a.0x7f`): never a domain.
  const last = labels[labels.length - 1] ?? "";
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(last)) return false;
  return labels.every((l) => LABEL.test(l));
}

/** Why `pattern` is not a host pattern, or `undefined` if it is one. */
export function hostPatternProblem(pattern: string): string | undefined {
  if (pattern === "*") return undefined;
  if (pattern !== pattern.toLowerCase()) return "host patterns are lowercase";
  if (/[^\x20-\x7e]/.test(pattern)) return "use the IDNA A-label (xn--…) form of an international name";
  if (pattern.endsWith(".")) return "drop the trailing dot";
  if (isIP(pattern) !== 0) return canonicalIp(pattern) === undefined ? "write the IP address in canonical form (as a URL prints it)" : undefined;
  if (pattern.startsWith("[")) return "write an IPv6 address without brackets";
  if (pattern.includes(":") || pattern.includes("/")) return "a host pattern has no scheme, port or path (ports go in `ports`)";
  const name = pattern.startsWith("*.") ? pattern.slice(2) : pattern;
  if (name.includes("*")) return "'*' is allowed only alone or as a whole leading label ('*.example.com')";
  if (!isDomain(name)) return "expected a DNS name of letters, digits and '-' labels";
  return undefined;
}

export const HostPatternSchema = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = hostPatternProblem(dataset.value);
    if (problem !== undefined) addIssue({ message: `${JSON.stringify(dataset.value)}: ${problem}` });
  }),
  v.description("`*`, `api.example.com`, `*.example.com` (subdomains only) or an IP literal"),
);

/** Whether canonical `host` (lowercase, A-labels, no trailing dot; IPv6 unbracketed) matches. */
export function hostMatches(pattern: string, host: string): boolean {
  if (pattern === "*") return true;
  if (pattern.startsWith("*.")) return isIP(host) === 0 && host.endsWith(pattern.slice(1));
  return pattern === host;
}

/** Whether every host `inner` matches is matched by `outer`. */
export function hostPatternCovers(outer: string, inner: string): boolean {
  if (outer === "*") return true;
  if (inner === "*") return false;
  if (inner.startsWith("*.")) return outer.startsWith("*.") && inner.endsWith(outer.slice(1));
  return hostMatches(outer, inner);
}

/**
 * Whether a pattern opens the network wide: `*`, or a wildcard over a single label (`*.com`,
 * `*.io`), where anyone can register a name and receive what is sent.
 */
export function isOpenHostPattern(pattern: string): boolean {
  return pattern === "*" || (pattern.startsWith("*.") && !pattern.slice(2).includes("."));
}
