/**
 * A Google account connected with `clawhive auth google`, as one secret: the OAuth client, the
 * refresh token and the token endpoint it was issued by, as JSON. The access tokens it yields
 * are the host's (access-tokens.ts): never stored, never handed to a plugin.
 */
import { InvalidInputError } from "../../errors.js";

export const GOOGLE_AUTHORIZATION_ENDPOINT = "https://accounts.google.com/o/oauth2/v2/auth";
export const GOOGLE_TOKEN_ENDPOINT = "https://oauth2.googleapis.com/token";
export const DEFAULT_GOOGLE_SECRET = "google-oauth";

/** Short names for the scopes clawhive's proxies use (https://developers.google.com/identity/protocols/oauth2/scopes). */
export const GOOGLE_SCOPES: Readonly<Record<string, string>> = {
  "gmail.readonly": "https://www.googleapis.com/auth/gmail.readonly",
  "gmail.send": "https://www.googleapis.com/auth/gmail.send",
  calendar: "https://www.googleapis.com/auth/calendar",
  "calendar.readonly": "https://www.googleapis.com/auth/calendar.readonly",
  "calendar.events": "https://www.googleapis.com/auth/calendar.events",
};

export interface GoogleCredential {
  type: "google_oauth";
  client_id: string;
  /** Installed-app clients have one too; Google does not treat it as secret, clawhive stores it sealed anyway. */
  client_secret?: string | undefined;
  refresh_token: string;
  token_endpoint: string;
  scopes: string[];
}

/** The stored credential, or undefined when the secret holds something else (a bare access token). */
export function parseGoogleCredential(text: string): GoogleCredential | undefined {
  if (!text.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const c = value as Partial<GoogleCredential>;
  if (c === null || typeof c !== "object" || c.type !== "google_oauth") return undefined;
  if (typeof c.client_id !== "string" || typeof c.refresh_token !== "string" || typeof c.token_endpoint !== "string") return undefined;
  return {
    type: "google_oauth",
    client_id: c.client_id,
    client_secret: typeof c.client_secret === "string" ? c.client_secret : undefined,
    refresh_token: c.refresh_token,
    token_endpoint: c.token_endpoint,
    scopes: Array.isArray(c.scopes) ? c.scopes.filter((s): s is string => typeof s === "string") : [],
  };
}

/**
 * An endpoint that may receive a client secret, a code or a refresh token: https, or plain http
 * to a loopback address (a local fake in tests). Throws `InvalidInputError` naming `field`.
 */
export function checkEndpoint(text: string, field: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new InvalidInputError(`${field}: not a URL: ${JSON.stringify(text.slice(0, 200))}`, { field, cause });
  }
  const loopback = url.protocol === "http:" && ["127.0.0.1", "[::1]", "localhost"].includes(url.hostname);
  if (url.protocol !== "https:" && !loopback) throw new InvalidInputError(`${field}: must be https (or plain http to 127.0.0.1 for a local test server)`, { field });
  if (url.username !== "" || url.password !== "" || url.hash !== "") throw new InvalidInputError(`${field}: no credentials or fragment in the URL`, { field });
  return url;
}

/** `gmail.send` → its URL; a full URL is kept; anything else is refused with the known names. */
export function scopeUrl(name: string): string {
  if (Object.hasOwn(GOOGLE_SCOPES, name)) return GOOGLE_SCOPES[name]!;
  if (/^https:\/\/www\.googleapis\.com\/auth\/[a-z0-9._-]+$/.test(name)) return name;
  throw new InvalidInputError(`--scope ${JSON.stringify(name)}: expected one of ${Object.keys(GOOGLE_SCOPES).join(", ")} or a https://www.googleapis.com/auth/… URL`, { field: "scope" });
}
