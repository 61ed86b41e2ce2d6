/**
 * One valibot schema per kind of setting, shared by the config file's schema and the
 * environment/flag table, so `sandbox.pool_size: 99` in a file and `CLAWHIVE_POOL_SIZE=99`
 * get the same message.
 */
import * as v from "valibot";
import { parseStoreUrl } from "../store/index.js";
import { isIP } from "node:net";
import { HOST_MESSAGE, isHost, LISTEN_MESSAGE, parseListen, parsePort, PORT_MESSAGE } from "./listen.js";

export const int = (min: number, max: number) => {
  const message = `expected an integer ${min}..${max}`;
  return v.pipe(v.number(message), v.integer(message), v.minValue(min, message), v.maxValue(max, message));
};

export const BOOL_MESSAGE = "expected true or false";
export const BoolSchema = v.boolean(BOOL_MESSAGE);

export const PathSchema = v.pipe(v.string("expected a path"), v.minLength(1, "expected a path"), v.check((s) => !s.includes("\0"), "a path cannot contain a NUL byte"));

export const ListenSchema = v.pipe(
  v.string(LISTEN_MESSAGE),
  v.check((s) => parseListen(s) !== undefined, LISTEN_MESSAGE),
  v.description("host:port; IPv6 in brackets, e.g. [::1]:7878"),
);
export const HostSchema = v.pipe(v.string(HOST_MESSAGE), v.check(isHost, HOST_MESSAGE));
export const PortSchema = v.pipe(v.number(PORT_MESSAGE), v.integer(PORT_MESSAGE), v.minValue(0, PORT_MESSAGE), v.maxValue(65535, PORT_MESSAGE));

/**
 * The store URL is checked by the store's own parser (one set of rules); its message loses its
 * `store url "…":` prefix, since ours already names the field.
 */
export const StoreUrlSchema = v.pipe(
  v.string("expected a store URL: file:<path>, :memory:, or a libsql://, https:// or wss:// server URL"),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    try {
      parseStoreUrl(dataset.value, { cwd: "/" });
    } catch (error) {
      addIssue({ message: (error as Error).message.replace(/^store url "(?:[^"\\]|\\.)*": /, "") });
    }
  }),
  v.description("file:<path> (relative to where it is written: see docs), :memory:, or a libsql://, https:// or wss:// server URL"),
);

const ALLOWED_HOST_MESSAGE = "expected a host name or IP address the API may be reached by, optionally with :port (IPv6 in brackets), e.g. clawhive.internal or 10.0.0.5:7878; no wildcards";
/** One `server.allowed_hosts` entry: an exact name, as a `Host` header carries it. */
export const AllowedHostSchema = v.pipe(
  v.string(ALLOWED_HOST_MESSAGE),
  v.check((s) => {
    const match = /^\[([^\]]+)\](?::(\d+))?$/.exec(s) ?? /^([^:[\]]+)(?::(\d+))?$/.exec(s);
    if (!match) return false;
    const okName = s.startsWith("[") ? isIP(match[1]!) === 6 : isHost(match[1]!);
    return okName && (match[2] === undefined || parsePort(match[2]) !== undefined);
  }, ALLOWED_HOST_MESSAGE),
);

/** `server.metrics_token`: long enough that guessing it is not the way in. */
export const MetricsTokenSchema = v.pipe(v.string("expected a token"), v.minLength(16, "expected a token of at least 16 characters (e.g. clawhive token create prints one)"));

export const TokenSchema = v.pipe(v.string("expected a token"), v.minLength(1, "expected a token"));

const ORIGIN_MESSAGE = "expected an origin like https://app.example.com: scheme, host and optional port, no path; * is not allowed";
/** An exact origin as browsers send it in `Origin` (RFC 6454 §6.2): no path, no trailing slash. */
export const OriginSchema = v.pipe(
  v.string(ORIGIN_MESSAGE),
  v.check((s) => {
    try {
      const url = new URL(s);
      return (url.protocol === "https:" || url.protocol === "http:") && url.origin === s;
    } catch {
      return false;
    }
  }, ORIGIN_MESSAGE),
);

export const SecretNameSchema = v.pipe(
  v.string("expected the name of a stored secret"),
  v.regex(/^[a-z][a-z0-9_-]{0,62}$/, "expected the name of a stored secret: lowercase letters, digits, '_' or '-'"),
);

export const UrlSchema = v.pipe(v.string("expected an absolute URL"), v.url("expected an absolute URL like https://api.example.com"));
