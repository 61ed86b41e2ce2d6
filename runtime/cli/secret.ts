import { mkdir, open } from "node:fs/promises";
import type { SecretView } from "../client/client.js";
import { InvalidInputError } from "../errors.js";
import { checkSecretName, MAX_VALUE_BYTES, MIN_REDACTED_LENGTH } from "../secrets/index.js";
import type { SecretInfo } from "../secrets/index.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withClient, withExistingClient } from "./command-client.js";
import { flagText, jsonOut } from "./render.js";
import { resolveDataDir, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const secretHelp = `clawhive secret — credentials the host proxies inject, encrypted in the store

  clawhive secret set NAME [--value-file PATH]
  clawhive secret list [--json]
  clawhive secret rm NAME

  set:  reads the value from stdin (piped) or from --value-file; one trailing newline is
        dropped. Never from the command line: arguments show in 'ps' to every user and are
        kept in shell history. E.g.
          printf %s "$OPENAI_API_KEY" | clawhive secret set openai_api_key
          clawhive secret set github_token --value-file ./token.txt
  list: names and times, never values (--json for JSON).
  rm:   removes one secret.

  NAME: lower case letters, digits, _ and -, starting with a letter, at most 64 characters.
  Values: text, 1 byte to ${MAX_VALUE_BYTES / 1024} KiB. Values shorter than ${MIN_REDACTED_LENGTH} characters are not
  redacted from logs (too short to find without hiding ordinary text).

  The key: CLAWHIVE_SECRET_KEY (base64 of 32 bytes), else --secret-key-file PATH (or
  CLAWHIVE_SECRET_KEY_FILE), else <data dir>/secret.key, created (mode 0600) with a fresh store.
  Nodes sharing a store need the same key; the store keeps only its id and refuses another key.
  --secret-key-file PATH  a key file: 32 raw bytes or their base64
  Through a server (--server, an admin token) the server holds the key: the value is sent over
  the API (use https to a server on another machine) and never comes back.

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such secret (or no store), or the key does not fit the store, or the
  server could not be reached; 2 bad usage, or a token the server refuses.

  Example:
    printf %s "$GITHUB_TOKEN" | clawhive secret set github_token`;

const usage = "usage: clawhive secret set NAME | list | rm NAME";
const KEY_FLAGS = { "secret-key-file": { type: "string" } } as const;

const ARGV_VALUE_REFUSED =
  "secret set does not take the value on the command line: arguments are visible to every user " +
  "through 'ps' and /proc and are saved in your shell history. Pipe it on stdin " +
  "(printf %s \"$VALUE\" | clawhive secret set NAME) or pass --value-file PATH";

export async function secretCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "set") return set(rest);
  if (sub === "list") return list(rest);
  if (sub === "rm") return remove(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown secret command '${sub}'; ${usage}`);
}

async function set(argv: string[]): Promise<number> {
  // Checked before parsing so the refusal explains itself and never repeats the value.
  if (argv.some((arg) => arg === "--value" || arg.startsWith("--value="))) throw new InvalidInputError(ARGV_VALUE_REFUSED, { field: "value" });
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, ...KEY_FLAGS, "value-file": { type: "string" } });
  if (positionals.length > 1) throw new InvalidInputError(ARGV_VALUE_REFUSED, { field: "value" });
  const name = positionals[0];
  if (name === undefined || name === "") throw new InvalidInputError("usage: clawhive secret set NAME [--value-file PATH] (value on stdin)");
  checkSecretName(name); // before reading the value or touching the store
  const valueFile = flagText(values, "value-file");
  const value = dropNewline(valueFile === undefined ? await readStdin() : await readValueFile(valueFile));
  if (value === "") throw new InvalidInputError(`secret ${name}: the value is empty`, { field: "value" });
  // The data dir holds the key: made private before the runtime creates the key in it.
  if (!(await onServer(values))) await mkdir(resolveDataDir(values), { recursive: true, mode: 0o700 });
  const answer = await withClient(values, (client) => client.setSecret(name, value), keyOptions(values));
  console.log(`${answer.secret.created_at === answer.secret.updated_at ? "created" : "updated"} secret ${answer.secret.name}`);
  if (!answer.redacted) console.error(`clawhive: note: the value is shorter than ${MIN_REDACTED_LENGTH} characters, so it is not redacted from logs`);
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, ...KEY_FLAGS, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError(`secret list takes no arguments; ${usage}`);
  await onServer(values);
  return withExistingClient(
    values,
    async (client) => {
      const found = (await client.listSecrets()).map(infoOf);
      if (values.json) {
        console.log(jsonOut(found));
        return 0;
      }
      if (found.length === 0) {
        console.error("no secrets");
        return 0;
      }
      const width = Math.max(...found.map((s) => s.name.length));
      for (const s of found) {
        console.log(`${s.name.padEnd(width)}  created ${new Date(s.createdAt).toISOString()}  updated ${new Date(s.updatedAt).toISOString()}`);
      }
      return 0;
    },
    keyOptions(values),
  );
}

async function remove(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, ...KEY_FLAGS });
  const [name, ...extra] = positionals;
  if (name === undefined || name === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive secret rm NAME");
  await onServer(values);
  return withExistingClient(
    values,
    async (client) => {
      try {
        await client.removeSecret(name);
      } catch (error) {
        if (error instanceof ServerError && error.status === 404) {
          console.error(`clawhive: ${error.message}`);
          return 1;
        }
        throw error;
      }
      console.log(`removed secret ${name}`);
      return 0;
    },
    keyOptions(values),
  );
}

/** Whether the command goes through a server; the key is the server's business there. */
async function onServer(values: Readonly<Record<string, unknown>>): Promise<boolean> {
  const server = (await resolveServer(values)) !== undefined;
  if (server && values["secret-key-file"] !== undefined) {
    throw new InvalidInputError("--secret-key-file does not combine with --server: the server holds the key", { field: "secret-key-file" });
  }
  return server;
}

/** The times as the store keeps them: `--json` prints milliseconds, as it always has. */
function infoOf(view: SecretView): SecretInfo {
  return { name: view.name, createdAt: Date.parse(view.created_at), updatedAt: Date.parse(view.updated_at) };
}

/**
 * The key file of the store (CLAWHIVE_SECRET_KEY, read by the runtime itself, goes before it).
 * No plugin folders: secrets need no plugin, so a first `secret set` on a fresh store does not
 * wait for the first-party plugins to install (the first runtime that runs tools installs them).
 */
export function keyOptions(values: Readonly<Record<string, unknown>>): { secretKeyFile?: string; pluginDirs: string[] } {
  const keyFile = flagText(values, "secret-key-file") ?? nonEmptyEnv("CLAWHIVE_SECRET_KEY_FILE");
  return { pluginDirs: [], ...(keyFile === undefined ? {} : { secretKeyFile: keyFile }) };
}

function nonEmptyEnv(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === "" ? undefined : value;
}

/** Reads piped stdin, at most the largest value (plus a newline). A terminal is refused: typing would echo the value. */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY === true) {
    throw new InvalidInputError("secret set reads the value from stdin, but stdin is a terminal (it would echo the value): pipe it or pass --value-file PATH", { field: "value" });
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_VALUE_BYTES + 2) throw tooLarge("stdin");
    chunks.push(chunk);
  }
  return decodeValue(Buffer.concat(chunks), "stdin");
}

async function readValueFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new InvalidInputError(`--value-file ${path}: cannot open it: ${(error as { code?: string }).code ?? String(error)}`, { field: "value-file", cause: error });
  }
  try {
    const buffer = Buffer.alloc(MAX_VALUE_BYTES + 3);
    let size = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, size, buffer.length - size, null);
      if (bytesRead === 0) break;
      size += bytesRead;
      if (size > MAX_VALUE_BYTES + 2) throw tooLarge(`--value-file ${path}`);
    }
    return decodeValue(buffer.subarray(0, size), `--value-file ${path}`);
  } finally {
    await handle.close();
  }
}

function tooLarge(where: string): InvalidInputError {
  return new InvalidInputError(`${where}: the value is larger than ${MAX_VALUE_BYTES} bytes`, { field: "value" });
}

/** Strict UTF-8: a lenient decode would silently turn a binary value into a different one. */
function decodeValue(bytes: Buffer, where: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InvalidInputError(`${where}: the value is not UTF-8 text; base64-encode binary secrets`, { field: "value" });
  } finally {
    bytes.fill(0);
  }
}

/** `echo` and editors end the value with a newline that is not part of it: drop one (LF or CRLF). */
function dropNewline(value: string): string {
  if (value.endsWith("\r\n")) return value.slice(0, -2);
  if (value.endsWith("\n")) return value.slice(0, -1);
  return value;
}
