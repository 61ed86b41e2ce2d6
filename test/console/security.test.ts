import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { ToolCallOutcome } from "../../runtime/index.js";
import { CONSOLE_CSP } from "../../runtime/console/index.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "../api/routes-fixtures.js";
import { assertForgedPostsRefused, csrfOf, getPage, postForm, setCookieOf, signIn, type Browserish } from "./fixtures.js";

/** What a model, a tool or an email could slip into a field: markup, script, an attribute break-out, ANSI, bidi, C1. */
const HOSTILE = `<script>alert(1)</script><img src=x onerror=alert(2)>"'><b>x</b>\u001b[2J\u202eevil\u009b31m`;
/** None of it may reach the page as markup or as a raw character. */
function assertInert(page: string, what: string): void {
  assert.doesNotMatch(page, /<script>alert|<img src=x|<b>x<\/b>/, `${what}: no injected markup`);
  assert.doesNotMatch(page, /[\u001b\u202e\u009b]/, `${what}: no raw control or bidi character`);
  assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, `${what}: the text is shown, escaped`);
  assert.match(page, /\\u(\{202e\}|202e)evil/, `${what}: the bidi override is shown visibly`);
}

let f: ApiFixture;
let admin: Browserish;
let approver: Browserish;
let client: Browserish;
let approvalId: string;
let runId: string;
let clientRun: string;
let otherRun: string;

before(async () => {
  f = await apiFixture();
  const work = join(f.dataDir, "work");
  await mkdir(work);
  const agent = await defineTestAgent(f.runtime, "writer", { mounts: [{ guest: "/w", host: work, mode: "rw" }] });
  const run = await f.runtime.startRun({ agent, task: `write it ${HOSTILE}` });
  runId = run.id;
  const outcome: ToolCallOutcome = await run.callTool("files.write_file", { path: "/w/out.txt", content: HOSTILE }, { context: HOSTILE });
  assert.equal(outcome.status, "approval_required", JSON.stringify(outcome));
  approvalId = (outcome as Extract<ToolCallOutcome, { status: "approval_required" }>).approval.id;
  const started = await call(f, "POST", "/v1/runs", { token: f.token.client, json: { agent, task: `mine ${HOSTILE}`, tool_calls: [{ name: "probe.echo", input: { text: HOSTILE } }] } });
  assert.ok(started.status === 202 || started.status === 201, started.text);
  clientRun = started.body.run.id;
  const theirs = await call(f, "POST", "/v1/runs", { token: f.token.other, json: { agent, tool_calls: [{ name: "probe.echo", input: { text: "theirs" } }] } });
  otherRun = theirs.body.run.id;
  admin = await signIn(f.server.base, f.token.admin);
  approver = await signIn(f.server.base, f.token.approver);
  client = await signIn(f.server.base, f.token.client);
});
after(() => f.close());

describe("sign-in", () => {
  test("the session cookie is httpOnly, SameSite=Strict, path /, and not Secure over plain http", async () => {
    const form = await fetch(`${f.server.base}/sign-in`);
    const nonce = setCookieOf(form, "clawhive_sign_in")!;
    const answer = await postForm(f.server.base, "/sign-in", { csrf: csrfOf(await form.text()), token: f.token.approver }, { cookie: nonce.pair });
    const session = setCookieOf(answer, "clawhive_session");
    assert.ok(session);
    assert.match(session.header, /; HttpOnly/i);
    assert.match(session.header, /; SameSite=Strict/i);
    assert.match(session.header, /; Path=\//i);
    assert.doesNotMatch(session.header, /; Secure/i, "Secure only when served over https");
    assert.doesNotMatch(session.header, new RegExp(f.token.approver.slice(-20)), "the cookie never holds the token");
  });

  const cases: ReadonlyArray<[string, (nonce: string, csrf: string) => { fields: Record<string, string>; cookie?: string; origin?: string | null }, number]> = [
    ["control: the nonce cookie, its field and our Origin", (nonce, csrf) => ({ fields: { csrf, token: f.token.client }, cookie: nonce }), 303],
    ["no CSRF field", (nonce) => ({ fields: { token: f.token.client }, cookie: nonce }), 403],
    ["a wrong CSRF field", (nonce) => ({ fields: { csrf: "x".repeat(32), token: f.token.client }, cookie: nonce }), 403],
    ["no nonce cookie", (_n, csrf) => ({ fields: { csrf, token: f.token.client } }), 403],
    ["a cross-site Origin", (nonce, csrf) => ({ fields: { csrf, token: f.token.client }, cookie: nonce, origin: "https://evil.example" }), 403],
    ["no Origin", (nonce, csrf) => ({ fields: { csrf, token: f.token.client }, cookie: nonce, origin: null }), 403],
  ];
  for (const [what, make, status] of cases) {
    test(`POST /sign-in with ${what}: ${status}`, async () => {
      const form = await fetch(`${f.server.base}/sign-in`);
      const sent = make(setCookieOf(form, "clawhive_sign_in")!.pair, csrfOf(await form.text()));
      const answer = await postForm(f.server.base, "/sign-in", sent.fields, { ...(sent.cookie === undefined ? {} : { cookie: sent.cookie }), ...(sent.origin === undefined ? {} : { origin: sent.origin }) });
      assert.equal(answer.status, status, await answer.text());
      assert.equal(setCookieOf(answer, "clawhive_session") !== undefined, status === 303);
    });
  }

  test("a wrong or revoked token opens no session; a revoked token's session ends on its next page", async () => {
    const form = await fetch(`${f.server.base}/sign-in`);
    const answer = await postForm(f.server.base, "/sign-in", { csrf: csrfOf(await form.text()), token: `${f.token.client.slice(0, -3)}AAA` }, { cookie: setCookieOf(form, "clawhive_sign_in")!.pair });
    assert.equal(answer.status, 303);
    assert.match(answer.headers.get("location") ?? "", /^\/sign-in\?error=/);
    assert.equal(setCookieOf(answer, "clawhive_session"), undefined);
    const doomed = await f.tokens.create("client", { name: "doomed" });
    const s = await signIn(f.server.base, doomed.token);
    assert.equal((await getPage(s, "/runs")).status, 200);
    await f.tokens.revoke(doomed.info.id);
    const after = await getPage(s, "/runs");
    assert.equal(after.status, 303);
    assert.equal(after.headers.get("location"), "/sign-in");
  });

  test("sign-out ends the session on the server: the old cookie no longer opens a page", async () => {
    const s = await signIn(f.server.base, f.token.approver);
    assert.equal((await postForm(f.server.base, "/sign-out", { csrf: "wrong" }, { cookie: s.cookie })).status, 403, "sign-out is a form like any other");
    const out = await postForm(f.server.base, "/sign-out", { csrf: s.csrf }, { cookie: s.cookie });
    assert.equal(out.status, 303);
    const again = await getPage(s, "/approvals");
    assert.equal(again.status, 303);
    assert.match(again.headers.get("location") ?? "", /^\/sign-in/);
  });

  test("the next page after sign-in is a console path only (no open redirect)", async () => {
    for (const [next, expected] of [["/runs", "/runs"], ["//evil.example", "/approvals"], ["https://evil.example", "/approvals"], ["/\\evil.example", "/approvals"]] as const) {
      const form = await fetch(`${f.server.base}/sign-in`);
      const answer = await postForm(f.server.base, "/sign-in", { csrf: csrfOf(await form.text()), token: f.token.approver, next }, { cookie: setCookieOf(form, "clawhive_sign_in")!.pair });
      assert.equal(answer.headers.get("location"), expected, next);
    }
  });
});

describe("CSRF on every form", () => {
  const forms = (): ReadonlyArray<[string, string, Record<string, string>]> => [
    ["deny an approval", `/approvals/${approvalId}`, { decision: "deny", reason: "no" }],
    ["cancel a run", `/runs/${runId}/cancel`, {}],
    ["sign out", "/sign-out", {}],
    ["revoke a pattern", "/patterns/pat_x/revoke", {}],
  ];
  test("a missing token, a wrong token, another session's token, a foreign or missing Origin: 403, nothing changes", async () => {
    for (const [what, path, fields] of forms()) await assertForgedPostsRefused(admin, client, path, fields, what);
    assert.equal((await f.runtime.approvals.get(approvalId))?.status, "pending", "no forged form decided");
    assert.equal((await getPage(admin, "/runs")).status, 200, "no forged form signed the session out");
    assert.equal((await f.runtime.records.get(runId))?.status === "ended", false, "no forged form cancelled the run");
  });
});

describe("roles", () => {
  test("a client sees only its own runs and cannot decide: no decision form, and a forged decision is refused", async () => {
    const runs = await getPage(client, "/runs");
    assert.match(runs.text, new RegExp(clientRun));
    assert.doesNotMatch(runs.text, new RegExp(otherRun), "another client's run is not listed");
    assert.doesNotMatch(runs.text, new RegExp(runId), "a run the store started is not listed");
    assert.equal((await getPage(client, `/runs/${otherRun}`)).status, 404);
    assert.doesNotMatch(runs.text, /href="\/approvals"/, "no Approvals link for a client");
    const page = await getPage(client, `/approvals/${approvalId}`);
    assert.equal(page.status, 403);
    assert.doesNotMatch(page.text, /Approve once/);
    const forged = await postForm(f.server.base, `/approvals/${approvalId}`, { csrf: client.csrf, decision: "approve", scope: "once" }, { cookie: client.cookie });
    assert.equal(forged.status, 403, "the API's role check answers");
    assert.equal((await f.runtime.approvals.get(approvalId))?.status, "pending");
  });

  test("control: an approver sees the decision forms", async () => {
    const page = await getPage(approver, `/approvals/${approvalId}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Approve once/);
    assert.match(page.text, /Approve for this run/);
    assert.match(page.text, /Deny/);
    // The page offers exactly the pattern choices the API offers for this approval, narrowest first.
    const answer = await call(f, "GET", `/v1/approvals/${approvalId}`, { token: f.token.approver });
    const offered = (answer.body as { approval: { pattern_choices: { summary: string }[] } }).approval.pattern_choices;
    assert.ok(offered.length > 0, "a Guarded write is offered patterns");
    const shown = page.text.match(/Approve pattern:/g)?.length ?? 0;
    assert.equal(shown, offered.length, "one pattern form per choice the API offers");
  });
});

describe("injection: every field a plugin, a model or an email can influence is shown inert", () => {
  test("approval list and decision page: tool arguments, task, context", async () => {
    const list = await getPage(approver, "/approvals");
    assert.equal(list.status, 200);
    assertInert(list.text, "approvals list");
    const one = await getPage(approver, `/approvals/${approvalId}`);
    assertInert(one.text, "decision page");
    assert.ok(one.text.split("&lt;script&gt;").length >= 4, "arguments, task and context each shown");
  });

  test("run pages: task text and tool results", async () => {
    const run = await call(f, "GET", `/v1/runs/${clientRun}?wait=true`, { token: f.token.client });
    assert.equal(run.status, 200);
    for (const path of ["/runs", `/runs/${clientRun}`]) assertInert((await getPage(client, path)).text, path);
  });

  test("plugin descriptions and agent names and descriptions", async () => {
    await f.runtime.defineAgent({ name: "sneaky", description: HOSTILE, model: { provider: "anthropic", id: "m" }, system_prompt: "x", plugins: [{ name: "probe", version: "*" }], grants: { log: {} } });
    const agents = await getPage(admin, "/agents");
    assertInert(agents.text, "agents");
    const plugins = await getPage(admin, "/plugins");
    assert.equal(plugins.status, 200);
    assert.match(plugins.text, /<code>files<\/code>/);
    assertInert((await getPage(admin, "/agents/sneaky")).text, "agent page");
  });

  test("audit records", async () => {
    const page = await getPage(admin, `/audit?run_id=${clientRun}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /probe\.echo/);
    assert.doesNotMatch(page.text, /<script>alert|[\u001b\u202e\u009b]/);
  });

  test("bad filters answer the API's error, naming the field", async () => {
    const page = await getPage(admin, "/audit?kind=nope");
    assert.equal(page.status, 400);
    assert.match(page.text, /query\.kind/);
    assert.equal((await getPage(admin, "/approvals/a%22b")).status, 400);
  });
});

describe("headers", () => {
  test("every console page: CSP without inline script, no framing, nosniff, no referrer, no cache", async () => {
    for (const [who, path] of [[approver, "/approvals"], [approver, `/approvals/${approvalId}`], [admin, "/runs"], [admin, "/audit"], [admin, "/plugins"], [admin, "/agents"], [admin, "/audit/verify"]] as const) {
      const page = await getPage(who, path);
      assert.equal(page.status, 200, `${path}: ${page.text.slice(0, 300)}`);
      assert.equal(page.headers.get("content-security-policy"), CONSOLE_CSP, path);
      assert.equal(page.headers.get("x-frame-options"), "DENY", path);
      assert.equal(page.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(page.headers.get("referrer-policy"), "same-origin", path);
      assert.equal(page.headers.get("cache-control"), "no-store", path);
      assert.doesNotMatch(page.text, /<script(?![^>]*\ssrc="\/console\/console\.js")/, `${path}: the one script is the external file`);
      assert.doesNotMatch(page.text, /<[a-z][^>]*\s(style|on[a-z]+)=/i, `${path}: no inline style or handler`);
    }
    const signInPage = await fetch(`${f.server.base}/sign-in`);
    assert.equal(signInPage.headers.get("x-frame-options"), "DENY");
    assert.match(CONSOLE_CSP, /default-src 'self'/);
    assert.match(CONSOLE_CSP, /frame-ancestors 'none'/);
    assert.doesNotMatch(CONSOLE_CSP, /unsafe-inline|unsafe-eval|https?:/);
  });

  test("signed out, a page redirects to sign-in; the API under /v1 is unchanged", async () => {
    const page = await fetch(`${f.server.base}/approvals`, { redirect: "manual" });
    assert.equal(page.status, 303);
    assert.equal(page.headers.get("location"), "/sign-in?next=%2Fapprovals");
    const api = await call(f, "GET", "/v1/approvals", { token: "" });
    assert.equal(api.status, 401);
    assert.equal((await fetch(`${f.server.base}/approvals`, { headers: { cookie: "clawhive_session=forged.value" }, redirect: "manual" })).status, 303);
  });
});
