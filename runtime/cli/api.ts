import { readFile } from "node:fs/promises";
import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { apiClient, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { flagText, inert, jsonText } from "./render.js";

export const apiHelp = `clawhive api — one request to the server's API, its answer printed

  clawhive api [METHOD] PATH [--data JSON | --data @FILE]

  METHOD            GET (default), POST, PUT or DELETE
  PATH              /health, /metrics, /v1/openapi.json, /v1/runs?status=ended, … (docs/api.md)
  --data JSON       the JSON body; @FILE reads it from a file, @- from stdin

  For what the other commands do not cover, and for scripts: the answer is printed as the
  server sent it (JSON pretty-printed; /metrics as text). Needs a server (--server URL or
  CLAWHIVE_SERVER) and a token.

${SERVER_FLAGS_HELP}

  Exit codes: 0 a 2xx answer; 1 a 5xx answer or no answer; 2 bad usage or a 4xx answer (its
  error printed).

  Example:
    clawhive api GET /v1/openapi.json > openapi.json`;

const METHODS = ["GET", "POST", "PUT", "DELETE"] as const;

export async function apiCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...SERVER_FLAGS, data: { type: "string" } });
  const [first, second, ...extra] = positionals;
  const method = second === undefined ? "GET" : first?.toUpperCase();
  const path = second ?? first;
  if (path === undefined || extra.length > 0 || !(METHODS as readonly (string | undefined)[]).includes(method)) {
    throw new InvalidInputError(`usage: clawhive api [${METHODS.join("|")}] PATH [--data JSON]`);
  }
  if (!path.startsWith("/")) throw new InvalidInputError(`PATH ${inert(path, { newlines: false })}: expected a path from the server's root, e.g. /v1/runs`, { field: "path" });
  const api = await apiClient(values);
  if (api === undefined) throw new InvalidInputError("clawhive api needs a server: --server URL or CLAWHIVE_SERVER", { field: "server" });
  const dataText = flagText(values, "data");
  const body = dataText === undefined ? undefined : parseBody(await bodyText(dataText));
  const [pathname, search = ""] = path.split("?", 2);
  const query = Object.fromEntries(new URLSearchParams(search));
  if (pathname === "/metrics") {
    process.stdout.write(await api.text(pathname));
    return 0;
  }
  const answer = await api.request<unknown>(method!, pathname!, { query, ...(body === undefined ? {} : { json: body }) });
  if (answer !== undefined) console.log(jsonText(answer));
  return 0;
}

async function bodyText(data: string): Promise<string> {
  if (!data.startsWith("@")) return data;
  const file = data.slice(1);
  try {
    return file === "-" ? await readStdin() : await readFile(file, "utf8");
  } catch (error) {
    throw new InvalidInputError(`--data ${data}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { field: "data" });
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError(`--data: not valid JSON: ${(error as Error).message}`, { field: "data" });
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}
