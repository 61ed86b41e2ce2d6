import { isAbsolute, resolve } from "node:path";
import { InvalidInputError } from "../errors.js";

/** A store URL, checked and classified once, before any driver sees it. */
export type StoreLocation =
  | { readonly kind: "file"; readonly path: string; readonly url: string }
  | { readonly kind: "memory"; readonly url: ":memory:" }
  | { readonly kind: "remote"; readonly url: string };

/** The URL as it may appear in messages and logs. */
export function describeLocation(location: StoreLocation): string {
  if (location.kind !== "remote") return location.url;
  const parsed = new URL(location.url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}

const REMOTE_SCHEMES = new Set(["libsql:", "http:", "https:", "ws:", "wss:"]);

/**
 * `file:<path>` (relative to `cwd`, or absolute with one or three slashes), `:memory:`, or a
 * libSQL server URL (`libsql:`, `http(s):`, `ws(s):`). Everything else is refused with the
 * accepted forms, so a typo never silently creates a database somewhere unexpected.
 */
export function parseStoreUrl(url: string, options: { cwd?: string } = {}): StoreLocation {
  if (url === ":memory:") return { kind: "memory", url };
  if (url.startsWith("file:")) return parseFileUrl(url, options.cwd ?? process.cwd());
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw refuse(url, "not a URL", cause);
  }
  if (!REMOTE_SCHEMES.has(parsed.protocol)) throw refuse(url, `scheme ${parsed.protocol} is not supported`);
  if (parsed.username !== "" || parsed.password !== "") {
    // A token in the URL would end up in logs and messages; it belongs in `authToken`.
    throw refuse(redactUserinfo(parsed), "credentials in the URL are refused; pass authToken instead");
  }
  if (parsed.searchParams.has("authToken")) {
    throw refuse(`${parsed.origin}${parsed.pathname}`, "authToken in the URL is refused; pass authToken instead");
  }
  return { kind: "remote", url };
}

function parseFileUrl(url: string, cwd: string): StoreLocation {
  let rest = url.slice("file:".length);
  if (rest.includes("?") || rest.includes("#")) {
    // SQLite URI parameters (mode=ro, cache=shared, vfs=…) would bypass the pragmas we rely on.
    throw refuse(url, "query parameters are not supported");
  }
  if (rest.startsWith("//")) {
    // file://host/path: only an empty host (file:///abs) or localhost is the local machine.
    const slash = rest.indexOf("/", 2);
    const host = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    if (host !== "" && host !== "localhost") throw refuse(url, `host ${host} is not this machine; use file:///absolute/path`);
    rest = slash === -1 ? "" : rest.slice(slash);
  }
  if (rest === "") throw refuse(url, "the path is empty");
  let path: string;
  try {
    path = decodeURIComponent(rest);
  } catch (cause) {
    throw refuse(url, "the path has a malformed percent-escape", cause);
  }
  if (path.includes("\0")) throw refuse(url, "the path contains a NUL byte");
  const absolute = isAbsolute(path) ? path : resolve(cwd, path);
  return { kind: "file", path: absolute, url: `file:${absolute}` };
}

function refuse(url: string, reason: string, cause?: unknown): InvalidInputError {
  return new InvalidInputError(
    `store url ${JSON.stringify(url)}: ${reason}; use file:<path>, :memory:, or a libsql://, https:// or wss:// server URL`,
    { field: "url", cause },
  );
}

function redactUserinfo(url: URL): string {
  const copy = new URL(url.href);
  copy.username = "";
  copy.password = "";
  return copy.href;
}
