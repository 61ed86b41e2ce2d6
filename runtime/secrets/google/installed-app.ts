/**
 * Google's OAuth flow for installed apps (RFC 8252, "OAuth 2.0 for Native Apps"): a one-shot
 * listener on 127.0.0.1 takes the redirect, PKCE (RFC 7636, S256) binds the code to this
 * process, and `state` ties the redirect to this request, so neither a code caught on the way
 * nor a forged redirect from a web page can be used. The code is exchanged for tokens at the
 * token endpoint; the caller stores the refresh token as a secret.
 *
 * A redirect whose state does not match is answered 400 and waited past (a stray or hostile
 * request must not end the flow); one that says `error=access_denied` ends it with that error.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { InvalidInputError } from "../../errors.js";
import { checkEndpoint, GOOGLE_AUTHORIZATION_ENDPOINT, GOOGLE_TOKEN_ENDPOINT, type GoogleCredential } from "./credential.js";
import { OAuthError, postTokenRequest } from "./token-endpoint.js";

export interface InstalledAppFlowOptions {
  clientId: string;
  clientSecret?: string | undefined;
  /** Full scope URLs. */
  scopes: readonly string[];
  authorizationEndpoint?: string | undefined;
  tokenEndpoint?: string | undefined;
  /** The loopback port; default 0 (any free port, as Google allows for loopback redirects). */
  port?: number | undefined;
  /** How long to wait for the browser. Default 300 000 ms. */
  timeoutMs?: number | undefined;
  /** Told the URL to open, once the listener is up. */
  onUrl: (url: string) => void;
  /** Told of a redirect refused (a wrong state), so the person sees it. */
  onRefused?: ((why: string) => void) | undefined;
  fetch?: typeof globalThis.fetch;
}

const CALLBACK = "/callback";

export async function runInstalledAppFlow(options: InstalledAppFlowOptions): Promise<GoogleCredential> {
  if (!/^[A-Za-z0-9._-]{1,200}$/.test(options.clientId)) throw new InvalidInputError("--client-id: expected the OAuth client id from the Google Cloud console (letters, digits, . _ -)", { field: "client-id" });
  if (options.scopes.length === 0) throw new InvalidInputError("--scope: at least one scope", { field: "scope" });
  const authorization = checkEndpoint(options.authorizationEndpoint ?? GOOGLE_AUTHORIZATION_ENDPOINT, "--auth-endpoint");
  const tokenEndpoint = checkEndpoint(options.tokenEndpoint ?? GOOGLE_TOKEN_ENDPOINT, "--token-endpoint").href;
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const state = randomBytes(16).toString("base64url");
  const timeoutMs = options.timeoutMs ?? 300_000;

  let settle!: { resolve: (code: string) => void; reject: (error: Error) => void };
  const redirected = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  const server = createServer((request, response) => onRedirect(request, response, state, settle, options.onRefused));
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(new InvalidInputError(`--port ${options.port ?? 0}: the loopback listener could not start: ${error.message}`, { field: "port", cause: error })));
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK}`;
  const url = new URL(authorization);
  for (const [k, v] of Object.entries({
    client_id: options.clientId,
    redirect_uri: redirectUri,
    response_type: "code",
    scope: options.scopes.join(" "),
    code_challenge: challenge,
    code_challenge_method: "S256",
    state,
    // A refresh token is issued only for offline access, and again only when consent is shown.
    access_type: "offline",
    prompt: "consent",
  })) url.searchParams.set(k, v);
  const timer = setTimeout(() => settle.reject(new OAuthError(undefined, `google: no redirect within ${Math.round(timeoutMs / 1000)} s; run the command again and open the URL it prints`)), timeoutMs);
  try {
    options.onUrl(url.href);
    const code = await redirected;
    const form: Record<string, string> = { grant_type: "authorization_code", code, redirect_uri: redirectUri, client_id: options.clientId, code_verifier: verifier };
    if (options.clientSecret !== undefined) form.client_secret = options.clientSecret;
    const answer = await postTokenRequest(tokenEndpoint, form, options.fetch === undefined ? {} : { fetch: options.fetch });
    if (answer.refresh_token === undefined) {
      throw new OAuthError(undefined, "google: the token endpoint issued no refresh token; remove clawhive's access at https://myaccount.google.com/permissions and run the command again");
    }
    const granted = answer.scope === undefined ? [...options.scopes] : answer.scope.split(" ").filter((s) => s !== "");
    return { type: "google_oauth", client_id: options.clientId, client_secret: options.clientSecret, refresh_token: answer.refresh_token, token_endpoint: tokenEndpoint, scopes: granted };
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function onRedirect(request: IncomingMessage, response: ServerResponse, state: string, settle: { resolve: (code: string) => void; reject: (error: Error) => void }, onRefused: ((why: string) => void) | undefined): void {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const page = (status: number, text: string) => {
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store", connection: "close" });
    response.end(`${text}\n`);
  };
  if (request.method !== "GET" || url.pathname !== CALLBACK) return page(404, "clawhive: not the sign-in callback");
  const given = url.searchParams.get("state");
  if (given !== state) {
    onRefused?.("a redirect arrived with a state that is not this sign-in's; it was refused and the sign-in waits on");
    return page(400, "clawhive: this sign-in link is not the one clawhive is waiting for (state does not match); nothing was stored");
  }
  const error = url.searchParams.get("error");
  if (error !== null) {
    page(400, `clawhive: Google answered ${error.slice(0, 60)}; nothing was stored`);
    return settle.reject(new OAuthError(error.slice(0, 60), `google: sign-in ended: ${error.slice(0, 60)}${error === "access_denied" ? " (consent was not given)" : ""}`));
  }
  const code = url.searchParams.get("code");
  if (code === null || code === "" || code.length > 2048) return page(400, "clawhive: the redirect carries no code");
  page(200, "clawhive: signed in. You may close this tab and return to the terminal.");
  settle.resolve(code);
}
