/** A whole runtime behind the HTTP API on 127.0.0.1, with one token of each role, for the route tests. */
import { createApp, type AppOptions } from "../../runtime/api/app.js";
import { openTokenStore, type TokenStore } from "../../runtime/api/auth/index.js";
import type { Runtime, RuntimeOptions } from "../../runtime/index.js";
import { testRuntime } from "../helpers/runtime.js";
import { listen, raw, type Listening, type RawResponse } from "./fixtures.js";

export type TokenName = "admin" | "approver" | "client" | "other";

export interface ApiFixture {
  runtime: Runtime;
  dataDir: string;
  tokens: TokenStore;
  token: Record<TokenName, string>;
  /** The token ids (`tok_…`): what runs record as their owner and approvals as who decided. */
  tokenId: Record<TokenName, string>;
  server: Listening;
  close(): Promise<void>;
}

export async function apiFixture(options: { runtime?: Partial<RuntimeOptions>; app?: Partial<AppOptions> } = {}): Promise<ApiFixture> {
  const made = await testRuntime(options.runtime ?? {});
  const tokens = await openTokenStore(made.runtime.store, { clock: made.runtime.clock });
  const token = {} as Record<TokenName, string>;
  const tokenId = {} as Record<TokenName, string>;
  for (const [name, role] of [["admin", "admin"], ["approver", "approver"], ["client", "client"], ["other", "client"]] as const) {
    const created = await tokens.create(role, { name });
    token[name] = created.token;
    tokenId[name] = created.info.id;
  }
  const server = await listen(createApp({ runtime: made.runtime, tokens, version: "test", ...options.app }));
  return {
    runtime: made.runtime,
    dataDir: made.dataDir,
    tokens,
    token,
    tokenId,
    server,
    close: async () => {
      await server.close();
      await made.dispose();
    },
  };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // Tests read answers field by field; their shapes are what the routes promise.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  token?: string;
  /** Sent as JSON (`Content-Type: application/json`). */
  json?: unknown;
  /** Sent as is, with `type` as its Content-Type. */
  body?: string | Uint8Array;
  type?: string;
}

/** One request through `fetch` (which normalises the path: use `rawCall` for paths it would change). */
export async function call(f: ApiFixture, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token !== "") headers.authorization = `Bearer ${options.token ?? f.token.admin}`;
  let body: string | Buffer | undefined;
  if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  } else if (options.body !== undefined) {
    if (options.type !== undefined) headers["content-type"] = options.type;
    body = typeof options.body === "string" ? options.body : Buffer.from(options.body);
  }
  const response = await fetch(`${f.server.base}${path}`, { method, headers, ...(body === undefined ? {} : { body: body as BodyInit }) });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    parsed = null;
  }
  return { status: response.status, headers: response.headers, text, body: parsed };
}

/** A request sent byte for byte (path as given, chunks as given: chunked without Content-Length). */
export function rawCall(
  f: ApiFixture,
  method: string,
  path: string,
  options: { token?: string; type?: string; chunks?: readonly (string | Buffer)[]; contentLength?: boolean | number } = {},
): Promise<RawResponse> {
  const chunks = options.chunks ?? [];
  const size = chunks.reduce((sum, c) => sum + Buffer.byteLength(c), 0);
  return raw(f.server.port, {
    method,
    path,
    headers: {
      authorization: `Bearer ${options.token ?? f.token.admin}`,
      ...(options.type === undefined ? {} : { "content-type": options.type }),
      // A number declares a length other than what is sent: the server must decide on the header alone.
      ...(options.contentLength === true ? { "content-length": String(size) } : typeof options.contentLength === "number" ? { "content-length": String(options.contentLength) } : {}),
    },
    chunks,
  });
}

/**
 * Bad path parameters, as sent, and the code each is answered with: `invalid_path` before any
 * route runs (the path check), `invalid_input` by the route's own parameter schema.
 */
export const BAD_PATH_NAMES: ReadonlyArray<[what: string, segment: string, code: "invalid_path" | "invalid_input"]> = [
  ["traversal", "..", "invalid_path"],
  ["encoded traversal", "%2e%2e", "invalid_path"],
  ["encoded slash", "a%2Fb", "invalid_path"],
  ["encoded backslash", "a%5Cb", "invalid_path"],
  ["traversal through an encoded slash", "..%2Fsecrets", "invalid_path"],
  ["an encoded NUL", "a%00b", "invalid_path"],
  ["upper case", "Echo", "invalid_input"],
  ["too long", "a".repeat(65), "invalid_input"],
  ["a leading digit", "1abc", "invalid_input"],
  ["encoded space", "a%20b", "invalid_input"],
];
