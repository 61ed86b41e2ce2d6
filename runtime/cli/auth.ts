import { mkdir, readFile } from "node:fs/promises";
import { InvalidInputError } from "../errors.js";
import { checkSecretName } from "../secrets/index.js";
import { DEFAULT_GOOGLE_SECRET, GOOGLE_SCOPES, runInstalledAppFlow, scopeUrl } from "../secrets/google/index.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { withClient } from "./command-client.js";
import { flagText } from "./render.js";
import { keyOptions } from "./secret.js";
import { resolveDataDir, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const authHelp = `clawhive auth — connect accounts the host proxies use

  clawhive auth google --client-id ID [--scope NAME]… [--secret NAME]

  Runs Google's sign-in for installed apps: prints a URL to open in a browser, listens on
  127.0.0.1 for Google's redirect (PKCE and a state check bind it to this command), exchanges
  the code at the token endpoint and stores the account (client and refresh token) as secret
  NAME (default ${DEFAULT_GOOGLE_SECRET}). The host refreshes access tokens from it when Gmail or Calendar
  is used; no plugin ever sees a token.

  --client-id ID            the OAuth client id ("Desktop app") from the Google Cloud console
  --client-secret-file PATH the client's secret, read from a file (or CLAWHIVE_GOOGLE_CLIENT_SECRET)
  --scope NAME              ${Object.keys(GOOGLE_SCOPES).join(", ")}, or a scope URL;
                            repeatable; default gmail.readonly and gmail.send
  --secret NAME             where to store the account; default ${DEFAULT_GOOGLE_SECRET}
  --port N                  the loopback port for the redirect; default any free port
  --timeout SECONDS         how long to wait for the browser; default 300
  --auth-endpoint URL       default https://accounts.google.com/o/oauth2/v2/auth
  --token-endpoint URL      default https://oauth2.googleapis.com/token (stored with the account)
  --secret-key-file PATH    the store's key file (see clawhive secret --help)

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 stored; 1 the sign-in failed or timed out, or the token endpoint refused the
  code; 2 bad usage.

  Then: CLAWHIVE_MAIL_SEND=gmail CLAWHIVE_MAIL_FROM=you@gmail.com for mail.send, or
  CLAWHIVE_MAIL_BACKEND=gmail CLAWHIVE_GMAIL_TOKEN_SECRET=${DEFAULT_GOOGLE_SECRET} for gmail.read.`;

const usage = "usage: clawhive auth google --client-id ID [--scope NAME]… [--secret NAME]";

const FLAGS = {
  "client-id": { type: "string" },
  "client-secret-file": { type: "string" },
  scope: { type: "string", multiple: true },
  secret: { type: "string" },
  port: { type: "string" },
  timeout: { type: "string" },
  "auth-endpoint": { type: "string" },
  "token-endpoint": { type: "string" },
  "secret-key-file": { type: "string" },
} as const;

export async function authCommand(argv: string[]): Promise<number> {
  const [provider, ...rest] = argv;
  if (provider !== "google") throw new InvalidInputError(provider === undefined ? usage : `unknown account kind '${provider}'; ${usage}`);
  const { values, positionals } = parseCommandArgs(rest, { ...STORE_FLAGS, ...SERVER_FLAGS, ...FLAGS });
  if (positionals.length > 0) throw new InvalidInputError(`auth google takes no arguments; ${usage}`);
  const clientId = flagText(values, "client-id");
  if (clientId === undefined) throw new InvalidInputError(`--client-id is required; ${usage}`, { field: "client-id" });
  const secret = flagText(values, "secret") ?? DEFAULT_GOOGLE_SECRET;
  checkSecretName(secret);
  const scopes = ((values.scope as string[] | undefined) ?? ["gmail.readonly", "gmail.send"]).map(scopeUrl);
  const port = whole(flagText(values, "port"), "port", 0, 65535);
  const timeout = whole(flagText(values, "timeout"), "timeout", 1, 3600);
  const clientSecret = await readClientSecret(flagText(values, "client-secret-file"));
  const server = (await resolveServer(values)) !== undefined;
  if (!server) await mkdir(resolveDataDir(values), { recursive: true, mode: 0o700 });
  const credential = await runInstalledAppFlow({
    clientId,
    clientSecret,
    scopes,
    authorizationEndpoint: flagText(values, "auth-endpoint"),
    tokenEndpoint: flagText(values, "token-endpoint"),
    port,
    timeoutMs: timeout === undefined ? undefined : timeout * 1000,
    onUrl: (url) => {
      console.log(`Open this URL in a browser and sign in with the Google account to connect:\n\n  ${url}\n`);
      console.log(`Waiting for Google to redirect to ${new URL(new URL(url).searchParams.get("redirect_uri") ?? "http://127.0.0.1/").origin} …`);
    },
    onRefused: (why) => console.error(`clawhive: ${why}`),
  });
  await withClient(values, (client) => client.setSecret(secret, JSON.stringify(credential)), keyOptions(values));
  console.log(`stored the Google account as secret ${secret} (scopes: ${credential.scopes.map(shortScope).join(", ")})`);
  return 0;
}

function shortScope(url: string): string {
  return Object.entries(GOOGLE_SCOPES).find(([, u]) => u === url)?.[0] ?? url;
}

function whole(text: string | undefined, field: string, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) throw new InvalidInputError(`--${field}: expected a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`, { field });
  return n;
}

async function readClientSecret(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) {
    const env = process.env.CLAWHIVE_GOOGLE_CLIENT_SECRET;
    return env === undefined || env === "" ? undefined : env;
  }
  try {
    const text = (await readFile(path, "utf8")).trim();
    if (text === "" || text.length > 512) throw new InvalidInputError(`--client-secret-file ${path}: expected the client secret on one line`, { field: "client-secret-file" });
    return text;
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(`--client-secret-file ${path}: cannot read it: ${(error as { code?: string }).code ?? String(error)}`, { field: "client-secret-file", cause: error });
  }
}
