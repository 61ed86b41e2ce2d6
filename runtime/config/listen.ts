/**
 * The API's listen address: `host:port`, with IPv6 literals in brackets (`[::1]:7878`, as in
 * URLs, RFC 3986 §3.2.2). Loopback is the default; anything else must be asked for.
 */
import { isIP } from "node:net";

export interface ListenAddress {
  host: string;
  port: number;
}

export const DEFAULT_HOST = "127.0.0.1";
/** `clawhive serve`'s port since it first shipped (runtime/cli/serve.ts). */
export const DEFAULT_PORT = 7878;
export const LISTEN_MESSAGE = `expected host:port, e.g. ${DEFAULT_HOST}:${DEFAULT_PORT}`;
export const HOST_MESSAGE = "expected a host name or an IP address, e.g. 127.0.0.1 or ::1";
export const PORT_MESSAGE = "expected an integer 0..65535";

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** A host name, an IPv4 address or a bare IPv6 address (no brackets, no zone). */
export function isHost(text: string): boolean {
  return isIP(text) !== 0 || HOSTNAME.test(text);
}

/** `0`–`65535` written as plain digits (no sign, no exponent, no hex). */
export function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** `host:port` or `[v6]:port`; `undefined` when it is neither. */
export function parseListen(text: string): ListenAddress | undefined {
  const match = /^\[([^\]]+)\]:([^:]*)$/.exec(text) ?? /^([^:[\]]+):([^:]*)$/.exec(text);
  if (!match) return undefined;
  const host = match[1]!;
  const port = parsePort(match[2]!);
  if (port === undefined) return undefined;
  // A bracketed host must be IPv6; an unbracketed one must not contain ':' (the regex ensures it).
  if (text.startsWith("[") ? isIP(host) !== 6 : !isHost(host)) return undefined;
  return { host, port };
}

export function formatListen(address: ListenAddress): string {
  return isIP(address.host) === 6 ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}

/**
 * Whether only this machine can connect. `0.0.0.0` and `::` mean every interface; a host name
 * other than `localhost` may resolve anywhere, so it counts as not loopback.
 */
export function isLoopback(host: string): boolean {
  const lower = host.toLowerCase();
  if (lower === "localhost") return true;
  if (isIP(lower) === 4) return lower.startsWith("127.");
  if (isIP(lower) === 6) return lower === "::1" || /^(0{1,4}:){7}0{0,3}1$/.test(lower) || /^::ffff:127\./.test(lower);
  return false;
}
