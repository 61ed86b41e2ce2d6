/**
 * Access tokens for the host's Google API calls (Gmail read and send, Calendar), refreshed from
 * the stored refresh token when the one held has less than a minute left, on the main thread.
 * They live only in this object's memory: never stored, never in a worker, never in a result.
 * A secret that is not a connected account (a bare access token, as earlier setups stored) is
 * used as it is.
 *
 * A refresh the endpoint refuses with `invalid_grant` (revoked, expired, password changed) is a
 * `token-rejected` denial naming the fix; an outage is `io`. Concurrent calls share one refresh.
 */
import { createHash } from "node:crypto";
import { HostProxyError } from "../../../host-proxies/types.js";
import { parseGoogleCredential } from "./credential.js";
import { OAuthError, postTokenRequest } from "./token-endpoint.js";

export interface AccessTokensOptions {
  fetch?: typeof globalThis.fetch;
  /** Milliseconds since the epoch; the runtime's clock. */
  now?: () => number;
  timeoutMs?: number;
}

interface Held {
  /** Digest of the stored secret it came from: a new `auth google` drops the old token. */
  source: string;
  token: string;
  expiresAt: number;
}

const EARLY_MS = 60_000;

export class GoogleAccessTokens {
  readonly #read: (name: string) => Promise<string>;
  readonly #options: AccessTokensOptions;
  readonly #held = new Map<string, Held>();
  readonly #refreshing = new Map<string, Promise<Held>>();

  constructor(read: (name: string) => Promise<string>, options: AccessTokensOptions = {}) {
    this.#read = read;
    this.#options = options;
  }

  /** A bearer token for the account in secret `name`; `capability` names a refusal (`gmail.read`, `mail.send`). */
  async token(name: string, capability: string): Promise<string> {
    const stored = await this.#read(name);
    const credential = parseGoogleCredential(stored);
    if (credential === undefined) return stored;
    const source = createHash("sha256").update(stored).digest("hex");
    const now = (this.#options.now ?? Date.now)();
    const held = this.#held.get(name);
    if (held !== undefined && held.source === source && held.expiresAt - EARLY_MS > now) return held.token;
    const key = `${name}\u0000${source}`;
    let refreshing = this.#refreshing.get(key);
    if (refreshing === undefined) {
      refreshing = this.#refresh(credential, source, now, capability, name).finally(() => this.#refreshing.delete(key));
      this.#refreshing.set(key, refreshing);
    }
    const fresh = await refreshing;
    this.#held.set(name, fresh);
    return fresh.token;
  }

  async #refresh(credential: NonNullable<ReturnType<typeof parseGoogleCredential>>, source: string, now: number, capability: string, name: string): Promise<Held> {
    const form: Record<string, string> = { grant_type: "refresh_token", refresh_token: credential.refresh_token, client_id: credential.client_id };
    if (credential.client_secret !== undefined) form.client_secret = credential.client_secret;
    try {
      const answer = await postTokenRequest(credential.token_endpoint, form, this.#options);
      return { source, token: answer.access_token, expiresAt: now + answer.expires_in * 1000 };
    } catch (error) {
      if (error instanceof OAuthError && (error.oauthError === "invalid_grant" || error.oauthError === "invalid_client" || error.oauthError === "unauthorized_client")) {
        throw HostProxyError.denied(capability, "token-rejected", `${error.message}; connect the account again: clawhive auth google --secret ${name}`);
      }
      throw HostProxyError.io(error instanceof Error ? error.message : "google: the access token could not be refreshed", error);
    }
  }
}
