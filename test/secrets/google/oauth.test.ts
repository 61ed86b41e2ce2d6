/**
 * Google OAuth for installed apps against a local fake of Google's token endpoint: the flow's
 * authorization URL (PKCE S256, state, offline access), the redirect's state check, the code
 * exchange, and the host's access-token refresh with its invalid_grant refusal. Each refusal
 * beside a control that passes.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { GoogleAccessTokens, runInstalledAppFlow, type GoogleCredential } from "../../../runtime/secrets/google/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { fakeGoogle, playBrowser, type FakeGoogle } from "./fake-google.js";

const CLIENT = "123-abc.apps.googleusercontent.com";
const SCOPES = ["https://www.googleapis.com/auth/gmail.send"];
let google: FakeGoogle;
before(async () => {
  google = await fakeGoogle();
});
after(async () => google.close());

/** Starts the flow; resolves with the URL it printed and the flow's own promise. */
async function start(extra: { clientId?: string } = {}): Promise<{ url: string; done: Promise<GoogleCredential> }> {
  let printed!: (url: string) => void;
  const url = new Promise<string>((resolve) => (printed = resolve));
  const done = runInstalledAppFlow({ clientId: extra.clientId ?? CLIENT, scopes: SCOPES, authorizationEndpoint: "https://accounts.google.com/o/oauth2/v2/auth", tokenEndpoint: google.tokenEndpoint, timeoutMs: 20_000, onUrl: printed });
  done.catch(() => {});
  return { url: await url, done };
}

test("the authorization URL asks for a code with PKCE S256, a state, offline access and a loopback redirect", async () => {
  const { url, done } = await start();
  const u = new URL(url);
  assert.equal(u.origin + u.pathname, "https://accounts.google.com/o/oauth2/v2/auth");
  assert.equal(u.searchParams.get("response_type"), "code");
  assert.equal(u.searchParams.get("code_challenge_method"), "S256");
  assert.match(u.searchParams.get("code_challenge")!, /^[A-Za-z0-9_-]{43}$/);
  assert.match(u.searchParams.get("state")!, /^[A-Za-z0-9_-]{22}$/);
  assert.equal(u.searchParams.get("access_type"), "offline");
  assert.match(u.searchParams.get("redirect_uri")!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  assert.equal((await playBrowser(google, url)).status, 200);
  const credential = await done;
  assert.deepEqual({ ...credential, refresh_token: credential.refresh_token.replace(/\d+$/, "N") }, {
    type: "google_oauth",
    client_id: CLIENT,
    client_secret: undefined,
    refresh_token: "1//0g-refresh-N",
    token_endpoint: google.tokenEndpoint,
    scopes: ["https://www.googleapis.com/auth/gmail.send", "https://www.googleapis.com/auth/gmail.readonly"],
  });
  const exchange = google.forms.at(-1)!;
  assert.equal(exchange.grant_type, "authorization_code");
  assert.match(exchange.code_verifier!, /^[A-Za-z0-9_-]{43}$/);
});

test("a redirect with another state is refused (400) and the flow waits on; control: the right state completes it", async () => {
  const { url, done } = await start();
  const forged = await playBrowser(google, url, { state: "forged-state", code: "4/attacker-code" });
  assert.equal(forged.status, 400);
  assert.match(forged.text, /state does not match/);
  const real = await playBrowser(google, url);
  assert.equal(real.status, 200);
  assert.match((await done).refresh_token, /^1\/\/0g-refresh-\d+$/);
});

test("consent refused (error=access_denied) ends the flow with that error; a code whose verifier does not match is Google's invalid_grant", async () => {
  const denied = await start();
  await playBrowser(google, denied.url, { error: "access_denied" });
  await assert.rejects(denied.done, /google: sign-in ended: access_denied \(consent was not given\)/);
  const wrongClient = await start({ clientId: "999-other.apps.googleusercontent.com" });
  await playBrowser(google, wrongClient.url);
  await assert.rejects(wrongClient.done, /google: the token endpoint answered 401 invalid_client: The OAuth client was not found\./);
});

test("access tokens: refreshed by the host and held until near expiry; a revoked refresh token is a token-rejected denial; control: a valid one refreshes", async () => {
  const { url, done } = await start();
  await playBrowser(google, url);
  const stored = JSON.stringify(await done);
  let now = 1_000_000;
  const tokens = new GoogleAccessTokens(async () => stored, { now: () => now });
  const first = await tokens.token("google-oauth", "mail.send");
  assert.match(first, /^ya29\.a0-refreshed-\d+$/);
  assert.equal(await tokens.token("google-oauth", "mail.send"), first, "held, not refreshed again");
  now += 3599_000 - 30_000;
  const second = await tokens.token("google-oauth", "mail.send");
  assert.notEqual(second, first, "refreshed within a minute of expiry");
  google.revoke(JSON.parse(stored).refresh_token);
  now += 3600_000;
  await assert.rejects(tokens.token("google-oauth", "mail.send"), (error: unknown) => {
    assert.ok(error instanceof HostProxyError);
    assert.deepEqual(error.hostError.tag === "denied" && { capability: error.hostError.val.capability, reason: error.hostError.val.reason }, { capability: "mail.send", reason: "token-rejected" });
    assert.match(error.message, /invalid_grant: Token has been expired or revoked\.; connect the account again: clawhive auth google --secret google-oauth/);
    return true;
  });
  // A secret that is not a connected account is a bare access token, used as it is.
  assert.equal(await new GoogleAccessTokens(async () => "ya29.plain").token("gmail-token", "gmail.read"), "ya29.plain");
});

test("endpoints: plain http only to loopback; control: https anywhere", async () => {
  await assert.rejects(runInstalledAppFlow({ clientId: CLIENT, scopes: SCOPES, tokenEndpoint: "http://oauth2.example/token", onUrl: () => {} }), /--token-endpoint: must be https/);
  const { url, done } = await start();
  await playBrowser(google, url);
  await done;
});
