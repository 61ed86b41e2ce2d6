/** Signing in to the console over plain HTTP, the way a browser does (cookies, Origin, the forms' CSRF field). */
import assert from "node:assert/strict";

export interface Browserish {
  readonly base: string;
  /** `name=value` of the session cookie. */
  readonly cookie: string;
  readonly csrf: string;
}

/** The value of the first hidden `csrf` field on a page. */
export function csrfOf(page: string): string {
  const found = /name="csrf" value="([^"]*)"/.exec(page)?.[1];
  assert.ok(found, `no csrf field in:\n${page.slice(0, 500)}`);
  return found;
}

/** The `name=value` of `name` among a response's Set-Cookie headers, and the whole header. */
export function setCookieOf(response: Response, name: string): { pair: string; header: string } | undefined {
  const header = response.headers.getSetCookie().find((h) => h.startsWith(`${name}=`));
  return header === undefined ? undefined : { pair: header.split(";")[0]!, header };
}

/** A form POST with the given cookie and Origin (default this server's own), not following redirects. */
export async function postForm(base: string, path: string, fields: Record<string, string>, options: { cookie?: string; origin?: string | null } = {}): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  if (options.origin !== null) headers.origin = options.origin ?? base;
  return fetch(`${base}${path}`, { method: "POST", headers, body: new URLSearchParams(fields).toString(), redirect: "manual" });
}

export async function getPage(b: Pick<Browserish, "base" | "cookie">, path: string): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(`${b.base}${path}`, { headers: { cookie: b.cookie }, redirect: "manual" });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** Signs in with `token` as a browser would: the sign-in page's nonce cookie and field, then the session cookie. */
export async function signIn(base: string, token: string): Promise<Browserish> {
  const form = await fetch(`${base}/sign-in`);
  const nonce = setCookieOf(form, "clawhive_sign_in");
  assert.ok(nonce, "the sign-in page sets its nonce cookie");
  const answer = await postForm(base, "/sign-in", { csrf: csrfOf(await form.text()), token }, { cookie: nonce.pair });
  assert.equal(answer.status, 303, await answer.text());
  const session = setCookieOf(answer, "clawhive_session");
  assert.ok(session, `signed in: ${answer.headers.get("location")}`);
  const home = await getPage({ base, cookie: session.pair }, answer.headers.get("location") ?? "/");
  assert.equal(home.status, 200, home.text.slice(0, 500));
  return { base, cookie: session.pair, csrf: csrfOf(home.text) };
}

/**
 * Posts `path` as `victim` once per forged way (no token, a wrong one, `other`'s, a cross-site,
 * null or missing Origin) and asserts each is refused with 403.
 */
export async function assertForgedPostsRefused(victim: Browserish, other: Browserish, path: string, fields: Record<string, string>, what: string): Promise<void> {
  for (const [how, csrf, origin] of [
    ["no token", undefined, undefined],
    ["a wrong token", "A".repeat(43), undefined],
    ["another session's token", other.csrf, undefined],
    ["a cross-site Origin", victim.csrf, "https://evil.example"],
    ["the null Origin", victim.csrf, "null"],
    ["no Origin", victim.csrf, null],
  ] as const) {
    const answer = await postForm(victim.base, path, { ...fields, ...(csrf === undefined ? {} : { csrf }) }, { cookie: victim.cookie, ...(origin === undefined ? {} : { origin }) });
    assert.equal(answer.status, 403, `${what} with ${how}`);
  }
}
