/**
 * A local fake of Google's OAuth token endpoint (https://oauth2.googleapis.com/token) with its
 * real answers: the authorization-code exchange (`access_token`, `expires_in: 3599`,
 * `refresh_token`, `scope`, `token_type: "Bearer"`, `id_token`), the refresh (no new refresh
 * token), and its errors as Google sends them: 400 `{"error": "invalid_grant",
 * "error_description": "Bad Request"}` for a wrong code or verifier, and `"Token has been
 * expired or revoked."` for a revoked refresh token.
 */
import { createHash } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeGoogle {
  tokenEndpoint: string;
  /** Codes the fake "issued" and the PKCE challenge each was issued for. */
  issue(code: string, challenge: string, redirectUri: string): void;
  revoke(refreshToken: string): void;
  forms: Array<Record<string, string>>;
  close(): Promise<void>;
}

export async function fakeGoogle(): Promise<FakeGoogle> {
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const revoked = new Set<string>();
  const forms: Array<Record<string, string>> = [];
  let n = 0;
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const c of request) chunks.push(c as Buffer);
    const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
    forms.push(form);
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache, no-store, max-age=0, must-revalidate" });
      response.end(JSON.stringify(body, null, 2));
    };
    if (request.method !== "POST" || request.url !== "/token") return json(404, { error: "not_found" });
    if (form.client_id !== "123-abc.apps.googleusercontent.com") return json(401, { error: "invalid_client", error_description: "The OAuth client was not found." });
    if (form.grant_type === "authorization_code") {
      const issued = codes.get(form.code ?? "");
      const verified = issued !== undefined && createHash("sha256").update(form.code_verifier ?? "").digest("base64url") === issued.challenge && form.redirect_uri === issued.redirectUri;
      if (!verified) return json(400, { error: "invalid_grant", error_description: "Bad Request" });
      codes.delete(form.code!);
      n += 1;
      return json(200, {
        access_token: `ya29.a0-access-${n}`,
        expires_in: 3599,
        refresh_token: `1//0g-refresh-${n}`,
        scope: "https://www.googleapis.com/auth/gmail.send https://www.googleapis.com/auth/gmail.readonly",
        token_type: "Bearer",
        id_token: "eyJhbGciOiJSUzI1NiJ9.e30.sig",
      });
    }
    if (form.grant_type === "refresh_token") {
      if (revoked.has(form.refresh_token ?? "") || !(form.refresh_token ?? "").startsWith("1//0g-refresh-")) return json(400, { error: "invalid_grant", error_description: "Token has been expired or revoked." });
      n += 1;
      return json(200, { access_token: `ya29.a0-refreshed-${n}`, expires_in: 3599, scope: "https://www.googleapis.com/auth/gmail.send", token_type: "Bearer" });
    }
    json(400, { error: "unsupported_grant_type", error_description: `Invalid grant_type: ${form.grant_type ?? ""}` });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    tokenEndpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    issue: (code, challenge, redirectUri) => codes.set(code, { challenge, redirectUri }),
    revoke: (token) => revoked.add(token),
    forms,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * Plays Google's consent page: reads the authorization URL the flow printed, "issues" a code
 * for its PKCE challenge and redirect URI, and requests the redirect as a browser would.
 */
export async function playBrowser(google: FakeGoogle, authorizationUrl: string, options: { state?: string; code?: string; error?: string } = {}): Promise<{ status: number; text: string }> {
  const url = new URL(authorizationUrl);
  const redirectUri = url.searchParams.get("redirect_uri")!;
  const code = options.code ?? "4/0AeanS0-code";
  google.issue(code, url.searchParams.get("code_challenge")!, redirectUri);
  const back = new URL(redirectUri);
  back.searchParams.set("state", options.state ?? url.searchParams.get("state")!);
  if (options.error === undefined) back.searchParams.set("code", code);
  else back.searchParams.set("error", options.error);
  back.searchParams.set("scope", url.searchParams.get("scope")!);
  const response = await fetch(back);
  return { status: response.status, text: await response.text() };
}
