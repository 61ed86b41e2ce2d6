/**
 * One valibot schema per kind of setting, shared by the config file's schema and the
 * environment/flag table, so `sandbox.pool_size: 99` in a file and `CLAWHIVE_POOL_SIZE=99`
 * get the same message.
 */
import * as v from "valibot";
import { parseStoreUrl } from "../store/index.js";
import { HOST_MESSAGE, isHost, LISTEN_MESSAGE, parseListen, PORT_MESSAGE } from "./listen.js";

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
