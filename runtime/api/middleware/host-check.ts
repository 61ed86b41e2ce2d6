import { isIP } from "node:net";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "./api-error.js";

/**
 * DNS-rebinding defence: a web page at `http://evil.example:7878` whose name the attacker
 * re-points at 127.0.0.1 becomes, to the browser, same-origin with the API on loopback — but its
 * requests still carry `Host: evil.example:7878`. So every route, `/health` and `/metrics`
 * included, answers only requests whose `Host` names this server: its listen address, the
 * loopback names when it listens on loopback or on every interface, or a name the operator
 * allowed (`server.allowed_hosts`). See https://en.wikipedia.org/wiki/DNS_rebinding and the
 * same check in webpack-dev-server (CVE-2018-14732) and the MCP SDK's transports.
 */
export interface HostCheckOptions {
  /**
   * Where the server listens. Without it (the app embedded, not served) only the loopback names
   * pass, on any port. Port 0 (the OS picks one) accepts any port.
   */
  readonly listen?: { readonly host: string; readonly port: number } | undefined;
  /** More names, `name` (any port: a reverse proxy's `Host`) or `name:port`; IPv6 in brackets. */
  readonly allowedHosts?: readonly string[] | undefined;
}

interface HostName {
  name: string;
  /** Undefined when the header gives none (the scheme's default, 80 for this plain-HTTP server). */
  port: number | undefined;
}

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);

/** `name[:port]` or `[v6][:port]`, lower-cased; undefined when malformed. */
export function parseHostHeader(text: string): HostName | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]/\s@]+)(?::(\d{1,5}))?$/i.exec(text.trim());
  if (!match) return undefined;
  const name = match[1]!.toLowerCase();
  if (name.startsWith("[") && isIP(name.slice(1, -1)) !== 6) return undefined;
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && port > 65535) return undefined;
  return { name, port };
}

/** The listen host as it appears in a `Host` header (IPv6 bracketed), lower-cased. */
function hostForm(host: string): string {
  const lower = host.toLowerCase();
  return isIP(lower) === 6 ? `[${lower}]` : lower;
}

function isLoopbackListen(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === "localhost" || lower === "::1" || (isIP(lower) === 4 && lower.startsWith("127."));
}

/** Every `{name, port}` that passes; `port` undefined matches any port. */
export function acceptedHosts(options: HostCheckOptions): Array<{ name: string; port: number | undefined }> {
  const accepted: Array<{ name: string; port: number | undefined }> = [];
  const listen = options.listen;
  if (listen === undefined) {
    accepted.push(...LOOPBACK_NAMES.map((name) => ({ name, port: undefined })));
  } else {
    const port = listen.port === 0 ? undefined : listen.port;
    const host = hostForm(listen.host);
    if (!WILDCARDS.has(host)) accepted.push({ name: host, port });
    // Every interface includes loopback; a loopback address answers to all its names.
    if (WILDCARDS.has(host) || isLoopbackListen(listen.host)) accepted.push(...LOOPBACK_NAMES.map((name) => ({ name, port })));
  }
  for (const entry of options.allowedHosts ?? []) {
    const parsed = parseHostHeader(entry);
    if (parsed === undefined || !(parsed.name.startsWith("[") || isIP(parsed.name) === 4 || HOSTNAME.test(parsed.name))) throw new RangeError(`allowed host ${JSON.stringify(entry)}: expected a host name or IP address, optionally with :port ([v6] in brackets)`);
    accepted.push(parsed);
  }
  return accepted;
}

/** Refuses (421) a request whose `Host` is not one of this server's names; 400 when it is malformed. */
export function checkHost(options: HostCheckOptions = {}): MiddlewareHandler {
  const accepted = acceptedHosts(options);
  return async (c, next) => {
    // Node's server builds the URL from the Host header; `app.request()` has only the URL.
    const header = c.req.header("host") ?? new URL(c.req.url).host;
    const host = parseHostHeader(header);
    if (host === undefined) throw new ApiError("bad_host", "the Host header is malformed: expected name[:port]", { status: 400, field: "host" });
    const port = host.port ?? 80;
    if (!accepted.some((a) => a.name === host.name && (a.port === undefined || a.port === port))) {
      // 421 Misdirected Request (RFC 9110 §15.5.20): this server is not the one that name means.
      throw new ApiError(
        "host_not_allowed",
        `Host ${JSON.stringify(header.slice(0, 200))} does not name this server; use its listen address, or add the name to server.allowed_hosts`,
        { status: 421, field: "host" },
      );
    }
    await next();
  };
}
