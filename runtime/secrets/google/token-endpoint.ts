/**
 * One POST to Google's token endpoint (RFC 6749 §4.1.3 and §6; form-encoded, JSON answer), with
 * a deadline and a size cap. Google's error answer is `{"error": "invalid_grant",
 * "error_description": "Token has been expired or revoked."}` with status 400 (401 for a wrong
 * client): the error code is kept so a caller can tell a revoked grant from an outage.
 */
import { ClawhiveError } from "../../errors.js";

export interface TokenAnswer {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
}

/** The token endpoint refused the request (`oauth_<error>`), or could not be used (`oauth_unavailable`). */
export class OAuthError extends ClawhiveError {
  /** Google's `error`, e.g. `invalid_grant`; undefined when the endpoint did not answer with one. */
  readonly oauthError: string | undefined;
  constructor(oauthError: string | undefined, message: string, options: { cause?: unknown } = {}) {
    super(oauthError === undefined ? "oauth_unavailable" : `oauth_${oauthError.replace(/[^a-z_]/g, "")}`.slice(0, 64), message, { status: 502, cause: options.cause });
    this.oauthError = oauthError;
  }
}

const MAX_ANSWER = 64 * 1024;

export async function postTokenRequest(endpoint: string, form: Record<string, string>, options: { timeoutMs?: number; fetch?: typeof globalThis.fetch } = {}): Promise<TokenAnswer> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const signal = AbortSignal.timeout(timeoutMs);
  let status: number;
  let text: string;
  try {
    const response = await (options.fetch ?? globalThis.fetch)(endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body: new URLSearchParams(form).toString(),
      redirect: "error",
      signal,
    });
    status = response.status;
    text = (await response.text()).slice(0, MAX_ANSWER);
  } catch (cause) {
    const why = signal.aborted ? `did not answer within ${timeoutMs} ms` : "could not be reached";
    throw new OAuthError(undefined, `google: the token endpoint ${new URL(endpoint).host} ${why}`, { cause });
  }
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Judged by the status below; a 200 that is not JSON is refused as no token.
  }
  if (status < 200 || status > 299 || typeof body.access_token !== "string") {
    const error = typeof body.error === "string" ? body.error.slice(0, 60) : undefined;
    const description = typeof body.error_description === "string" ? `: ${body.error_description.slice(0, 200)}` : "";
    throw new OAuthError(error, `google: the token endpoint answered ${status}${error === undefined ? " without a token" : ` ${error}${description}`}`);
  }
  const expires = typeof body.expires_in === "number" && body.expires_in > 0 ? body.expires_in : 3600;
  return {
    access_token: body.access_token,
    expires_in: expires,
    ...(typeof body.refresh_token === "string" ? { refresh_token: body.refresh_token } : {}),
    ...(typeof body.scope === "string" ? { scope: body.scope } : {}),
    ...(typeof body.token_type === "string" ? { token_type: body.token_type } : {}),
  };
}
