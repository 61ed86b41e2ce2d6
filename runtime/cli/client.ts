/**
 * The command line's HTTP client of a running `clawhive serve`: where the server is and which
 * token to send (flags, then environment), typed requests, and the API's error bodies turned
 * back into ClawhiveErrors with the same code and status, so a command exits the same way
 * whether it went through the API or opened the store itself.
 */
import { readFile } from "node:fs/promises";
import type { ParseArgsConfig } from "node:util";
import { InvalidInputError } from "../errors.js";
import { inert } from "./render.js";
import { ApiClient, type ServerTarget } from "../client/transport.js";

export { ApiClient, segment, ServerError } from "../client/transport.js";
export type { Query, RequestOptions, ServerTarget, StreamedEvent } from "../client/transport.js";

/** The parseArgs options of every command that can go through the API. */
export const SERVER_FLAGS = {
  server: { type: "string" },
  token: { type: "string" },
  "token-file": { type: "string" },
} as const satisfies NonNullable<ParseArgsConfig["options"]>;

export const SERVER_FLAGS_HELP = `  --server URL      go through the API of a running 'clawhive serve' (env CLAWHIVE_SERVER),
                    e.g. http://127.0.0.1:7878; without it the command opens the store itself
  --token-file FILE the API token, as 'clawhive token create' wrote it (env CLAWHIVE_TOKEN_FILE)
  --token TOKEN     the API token (env CLAWHIVE_TOKEN; prefer the variable or the file: an
                    argument shows in 'ps' to every user)`;


function fromEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

function flag(values: Readonly<Record<string, unknown>>, name: string): string | undefined {
  const value = values[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value === "") throw new InvalidInputError(`--${name}: expected a value`, { field: name });
  return value;
}

/**
 * The server a command goes through, or undefined to open the store directly. Flags beat the
 * environment: `--data-dir`/`--store` given on the command line mean the store, even when
 * CLAWHIVE_SERVER is set; given with `--server` they are a mistake, said so.
 */
export async function resolveServer(values: Readonly<Record<string, unknown>>): Promise<ServerTarget | undefined> {
  const serverFlag = flag(values, "server");
  const storeFlag = ["data-dir", "store"].find((name) => values[name] !== undefined);
  if (serverFlag !== undefined && storeFlag !== undefined) {
    throw new InvalidInputError(`--${storeFlag} and --server do not combine: the server has its own store; give one or the other`, { field: storeFlag });
  }
  const url = serverFlag ?? (storeFlag === undefined ? fromEnv("CLAWHIVE_SERVER") : undefined);
  const tokenGiven = ["token", "token-file"].find((name) => values[name] !== undefined);
  if (url === undefined) {
    if (tokenGiven !== undefined) throw new InvalidInputError(`--${tokenGiven} is for the API: give --server URL too (or set CLAWHIVE_SERVER)`, { field: tokenGiven });
    return undefined;
  }
  return { url: serverUrl(url), token: await resolveToken(values) };
}

function serverUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidInputError(`--server ${inert(text, { newlines: false })}: expected an http:// or https:// URL, e.g. http://127.0.0.1:7878`, { field: "server" });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new InvalidInputError(`--server ${inert(text, { newlines: false })}: expected an http:// or https:// URL`, { field: "server" });
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new InvalidInputError("--server: give only scheme, host, port and path; the token goes in --token-file or CLAWHIVE_TOKEN", { field: "server" });
  }
  return url.href.replace(/\/+$/, "");
}

async function resolveToken(values: Readonly<Record<string, unknown>>): Promise<string> {
  const direct = flag(values, "token") ?? (values["token-file"] === undefined ? fromEnv("CLAWHIVE_TOKEN") : undefined);
  const file = direct === undefined ? (flag(values, "token-file") ?? fromEnv("CLAWHIVE_TOKEN_FILE")) : undefined;
  let token = direct;
  if (file !== undefined) {
    try {
      token = (await readFile(file, "utf8")).trim();
    } catch (error) {
      throw new InvalidInputError(`--token-file ${file}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { field: "token-file", cause: error });
    }
  }
  if (token === undefined || token === "") {
    throw new InvalidInputError("the API needs a token: set CLAWHIVE_TOKEN or pass --token-file FILE ('clawhive token create --role admin' makes one)", { field: "token" });
  }
  // A header cannot carry it anyway; said here rather than as a fetch TypeError.
  if (!/^[\x21-\x7e]+$/.test(token)) throw new InvalidInputError("the API token holds spaces or other characters a token never has: check --token-file or CLAWHIVE_TOKEN", { field: "token" });
  return token;
}

/** The client of the server a command goes through, or undefined to open the store directly. */
export async function apiClient(values: Readonly<Record<string, unknown>>): Promise<ApiClient | undefined> {
  const target = await resolveServer(values);
  return target === undefined ? undefined : new ApiClient(target);
}
