import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { randomBytes } from "node:crypto";
import type { ApiEnv, Role, TokenStore } from "../api/auth/index.js";
import { ApiCaller, type ApiAnswer } from "./api.js";
import { approvalDetail, approvalList, PATTERN_DURATIONS } from "./approvals-page.js";
import { auditList, auditRecordPage, AUDIT_FILTERS, verifyResult, type AuditFilter } from "./audit-page.js";
import { agentDetail, agentList, patternList } from "./catalog-page.js";
import { addPluginPages } from "./plugin-routes.js";
import { html } from "hono/html";
import { csrfField, page, type Html, type PageFrame } from "./render.js";
import { runDetail, runList } from "./runs-page.js";
import { sameOrigin } from "./headers.js";
import { csrfMatches, type ConsoleSession, type SessionStore } from "./sessions.js";

export const SESSION_COOKIE = "clawhive_session";
export const SIGN_IN_COOKIE = "clawhive_sign_in";
const ID = /^[A-Za-z0-9_-]{1,128}$/;

interface Signed {
  readonly session: ConsoleSession;
  readonly api: ApiCaller;
  frame(title: string, notice?: PageFrame["notice"]): PageFrame;
}

/** The console's pages and forms on `app`, each reading and deciding through `app`'s own `/v1` routes. */
export function addConsoleRoutes(app: Hono<ApiEnv>, sessions: () => Promise<SessionStore>, tokens: Pick<TokenStore, "verify">): void {
  const patterns = () => app.routes.some((r) => r.path === "/v1/approval-patterns");
  const secure = (c: Context) => new URL(c.req.url).protocol === "https:";
  const cookieFlags = (c: Context) => ({ path: "/", httpOnly: true, secure: secure(c), sameSite: "Strict" as const });

  /** The signed-in session, or a redirect to the sign-in page. */
  const signed = async (c: Context): Promise<Signed | Response> => {
    const session = await (await sessions()).get(getCookie(c, SESSION_COOKIE));
    if (session === undefined) return c.redirect(`/sign-in?next=${encodeURIComponent(new URL(c.req.url).pathname)}`, 303);
    return {
      session,
      api: new ApiCaller(app, c.req.raw, session.token),
      frame: (title, notice) => ({ title, role: session.role, csrf: session.csrf, patterns: patterns(), ...(notice === undefined ? {} : { notice }) }),
    };
  };
  /** A POST from a signed-in page: same Origin and the session's CSRF token, or 403. */
  const posted = async (c: Context): Promise<{ s: Signed; form: Record<string, string> } | Response> => {
    if (!sameOrigin(c.req.raw)) return forbidden(c, "cross-origin form post refused: the Origin header must be this console's own");
    const s = await signed(c);
    if (s instanceof Response) return s;
    const form = await formOf(c);
    if (!csrfMatches(s.session, form.csrf)) return forbidden(c, "form refused: its CSRF token is missing or not this session's; reload the page and try again");
    return { s, form };
  };
  /** An API answer that is not a success: the session ended (401), or a page with the API's error. */
  const failed = async (c: Context, s: Signed, title: string, answer: ApiAnswer): Promise<Response> => {
    if (answer.status === 401) {
      await (await sessions()).revoke(getCookie(c, SESSION_COOKIE));
      deleteCookie(c, SESSION_COOKIE, { path: "/" });
      return c.redirect("/sign-in", 303);
    }
    const error = answer.body?.error ?? { message: `the API answered ${answer.status}` };
    const field = typeof error.field === "string" ? ` (${error.field})` : "";
    return c.html(page(s.frame(title, { kind: "error", text: `${String(error.message)}${field}` }), ""), answer.status >= 400 && answer.status < 600 ? (answer.status as 400) : 502);
  };
  const home = (role: Role) => (role === "client" ? "/runs" : "/approvals");

  app.get("/", async (c) => {
    const s = await signed(c);
    return s instanceof Response ? s : c.redirect(home(s.session.role), 303);
  });

  app.get("/sign-in", (c) => {
    const nonce = randomBytes(24).toString("base64url");
    setCookie(c, SIGN_IN_COOKIE, nonce, { ...cookieFlags(c), maxAge: 600 });
    const next = c.req.query("next") ?? "";
    return c.html(signInPage(nonce, next, c.req.query("error")));
  });

  app.post("/sign-in", async (c) => {
    if (!sameOrigin(c.req.raw)) return forbidden(c, "cross-origin sign-in refused: the Origin header must be this console's own");
    const form = await formOf(c);
    const nonce = getCookie(c, SIGN_IN_COOKIE);
    if (nonce === undefined || !csrfMatches({ csrf: nonce }, form.csrf)) return forbidden(c, "sign-in refused: its CSRF token is missing or stale; reload the sign-in page");
    const token = (form.token ?? "").trim();
    const again = (error: string) => c.redirect(`/sign-in?error=${encodeURIComponent(error)}`, 303);
    if (token === "") return again("Give an API token (clawhive token create --role approver).");
    // The API's own check (constant time; revoked tokens refused); the role is the store's, never the form's.
    const principal = await tokens.verify(token);
    if (principal === undefined) return again("That token is unknown, revoked or malformed.");
    const opened = await (await sessions()).create(token, { tokenId: principal.tokenId, role: principal.role });
    deleteCookie(c, SIGN_IN_COOKIE, { path: "/" });
    setCookie(c, SESSION_COOKIE, opened.cookie, { ...cookieFlags(c), expires: new Date(opened.session.expiresAt) });
    const next = form.next ?? "";
    // Only a path of this console: never an absolute or protocol-relative URL (open redirect).
    return c.redirect(/^\/(?![/\\])[A-Za-z0-9/_-]*$/.test(next) && next !== "/sign-in" ? next : home(principal.role), 303);
  });

  app.post("/sign-out", async (c) => {
    const p = await posted(c);
    if (p instanceof Response) return p;
    await (await sessions()).revoke(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return c.redirect("/sign-in", 303);
  });

  app.get("/approvals", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const status = c.req.query("status") ?? "pending";
    const answer = await s.api.get(`/v1/approvals?${new URLSearchParams({ status, limit: "100" })}`);
    if (answer.status !== 200) return failed(c, s, "Approvals", answer);
    const list = approvalList(answer.body.approvals, status);
    return c.html(c.req.query("fragment") === "list" ? list : page(s.frame("Approvals"), list));
  });

  app.get("/approvals/:id", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const id = c.req.param("id");
    if (!ID.test(id)) return c.html(page(s.frame("Approval", { kind: "error", text: "approval id: expected letters, digits, _ and -" }), ""), 400);
    const answer = await s.api.get(`/v1/approvals/${id}`);
    if (answer.status !== 200) return failed(c, s, "Approval", answer);
    const notice = c.req.query("done") === undefined ? undefined : { kind: "ok" as const, text: `Decision recorded: ${c.req.query("done")}` };
    return c.html(page(s.frame(`Approval ${id}`, notice), approvalDetail(answer.body.approval, { csrf: s.session.csrf, canDecide: s.session.role !== "client" })));
  });

  app.post("/approvals/:id", async (c) => {
    const p = await posted(c);
    if (p instanceof Response) return p;
    const id = c.req.param("id");
    if (!ID.test(id)) return c.html(page(p.s.frame("Approval", { kind: "error", text: "approval id: expected letters, digits, _ and -" }), ""), 400);
    const body = await decisionBody(p.s, id, p.form);
    if (typeof body === "string") return c.html(page(p.s.frame(`Approval ${id}`, { kind: "error", text: body }), ""), 400);
    const answer = await p.s.api.post(`/v1/approvals/${id}`, body);
    if (answer.status !== 200) return failed(c, p.s, `Approval ${id}`, answer);
    return c.redirect(`/approvals/${id}?done=${encodeURIComponent(String(body.decision))}`, 303);
  });

  app.get("/console/events/approvals", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    return s.api.raw("GET", "/v1/approvals/events");
  });

  app.get("/runs", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const status = c.req.query("status") ?? "";
    const agent = c.req.query("agent") ?? "";
    const cursor = c.req.query("cursor");
    const query = new URLSearchParams({ limit: "50", ...(status === "" ? {} : { status }), ...(agent === "" ? {} : { agent }), ...(cursor === undefined ? {} : { cursor }) });
    const answer = await s.api.get(`/v1/runs?${query}`);
    if (answer.status !== 200) return failed(c, s, "Runs", answer);
    return c.html(page(s.frame("Runs"), runList(answer.body.runs, { status, agent }, answer.body.next_cursor)));
  });

  app.get("/runs/:id", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const id = c.req.param("id");
    if (!ID.test(id)) return c.html(page(s.frame("Run", { kind: "error", text: "run id: expected letters, digits, _ and -" }), ""), 400);
    const answer = await s.api.get(`/v1/runs/${id}`);
    if (answer.status !== 200) return failed(c, s, "Run", answer);
    const role = s.session.role;
    return c.html(page(s.frame(`Run ${id}`), runDetail(answer.body.run, { csrf: s.session.csrf, canCancel: role !== "approver", canAudit: role !== "approver" })));
  });

  app.get("/runs/:id/events", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const id = c.req.param("id");
    if (!ID.test(id)) return c.text("run id: expected letters, digits, _ and -", 400);
    const last = c.req.header("last-event-id");
    return s.api.raw("GET", `/v1/runs/${id}/events`, undefined, last === undefined ? {} : { "last-event-id": last });
  });

  app.post("/runs/:id/cancel", async (c) => {
    const p = await posted(c);
    if (p instanceof Response) return p;
    const id = c.req.param("id");
    if (!ID.test(id)) return c.html(page(p.s.frame("Run", { kind: "error", text: "run id: expected letters, digits, _ and -" }), ""), 400);
    const answer = await p.s.api.post(`/v1/runs/${id}/cancel`, {});
    if (answer.status !== 202) return failed(c, p.s, `Run ${id}`, answer);
    return c.redirect(`/runs/${id}`, 303);
  });

  app.get("/audit", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const filter: AuditFilter = {};
    for (const name of [...AUDIT_FILTERS, "cursor"] as const) {
      const value = c.req.query(name);
      if (value !== undefined && value !== "") filter[name] = value;
    }
    const answer = await s.api.get(`/v1/audit?${new URLSearchParams({ limit: "100", ...filter })}`);
    if (answer.status !== 200) return failed(c, s, "Audit", answer);
    return c.html(page(s.frame("Audit"), auditList(answer.body.records, filter, { next: answer.body.next_cursor, canVerify: s.session.role === "admin", csrf: s.session.csrf })));
  });

  app.get("/audit/verify", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const answer = await s.api.get("/v1/audit/verify");
    if (answer.status !== 200) return failed(c, s, "Verify the audit chain", answer);
    return c.html(page(s.frame("Verify the audit chain"), verifyResult(answer.body)));
  });

  app.get("/audit/:seq{[0-9]+}", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const answer = await s.api.get(`/v1/audit/${c.req.param("seq")}`);
    if (answer.status !== 200) return failed(c, s, "Audit record", answer);
    return c.html(page(s.frame(`Audit record ${c.req.param("seq")}`), auditRecordPage(answer.body.record)));
  });

  addPluginPages(app, { signed, posted, failed });

  app.get("/agents", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const answer = await s.api.get("/v1/agents?limit=100");
    if (answer.status !== 200) return failed(c, s, "Agents", answer);
    return c.html(page(s.frame("Agents"), agentList(answer.body.agents)));
  });

  app.get("/agents/:name", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const name = c.req.param("name");
    const answer = await s.api.get(`/v1/agents/${encodeURIComponent(name)}`);
    if (answer.status !== 200) return failed(c, s, "Agent", answer);
    return c.html(page(s.frame(`Agent ${name}`), agentDetail(answer.body.agent)));
  });

  app.get("/patterns", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    if (!patterns()) return c.html(page(s.frame("Patterns", { kind: "error", text: "this server has no standing approval patterns" }), ""), 404);
    const status = c.req.query("status") ?? "active";
    const answer = await s.api.get(`/v1/approval-patterns${status === "" ? "" : `?${new URLSearchParams({ status })}`}`);
    if (answer.status !== 200) return failed(c, s, "Patterns", answer);
    return c.html(page(s.frame("Patterns"), patternList(answer.body.patterns, { csrf: s.session.csrf, status })));
  });

  app.post("/patterns/:id/revoke", async (c) => {
    const p = await posted(c);
    if (p instanceof Response) return p;
    const id = c.req.param("id");
    if (!ID.test(id)) return c.html(page(p.s.frame("Patterns", { kind: "error", text: "pattern id: expected letters, digits, _ and -" }), ""), 400);
    const answer = await p.s.api.delete(`/v1/approval-patterns/${id}`);
    if (answer.status !== 200) return failed(c, p.s, "Patterns", answer);
    return c.redirect("/patterns", 303);
  });
}

/** The JSON `POST /v1/approvals/:id` takes, from a decision form; a string says what is wrong. */
async function decisionBody(s: Signed, id: string, form: Record<string, string>): Promise<Record<string, unknown> | string> {
  const reason = form.reason === undefined || form.reason === "" ? {} : { reason: form.reason };
  if (form.decision === "deny") return { decision: "deny", ...reason };
  if (form.decision !== "approve") return "decision: expected approve or deny";
  if (form.scope === "once" || form.scope === "run") return { decision: "approve", scope: form.scope, ...reason };
  if (form.scope !== "pattern") return "scope: expected once, run or pattern";
  // The pattern is the one the API offered, read again here: a form names a choice, never its content.
  const answer = await s.api.get(`/v1/approvals/${id}`);
  const choices: unknown = answer.body?.approval?.pattern_choices;
  const index = Number(form.pattern_index);
  const choice = Array.isArray(choices) && Number.isInteger(index) ? choices[index] : undefined;
  if (choice === undefined) return "pattern_index: not one of the pattern choices this approval offers";
  if (!(PATTERN_DURATIONS as readonly string[]).includes(form.expires_in ?? "")) return `expires_in: expected one of ${PATTERN_DURATIONS.join(", ")}`;
  if (form.applies_to !== "run" && form.applies_to !== "agent") return "applies_to: expected run or agent";
  return { decision: "approve", scope: "pattern", pattern: choice.pattern, expires_in: form.expires_in, applies_to: form.applies_to, ...reason };
}

async function formOf(c: Context): Promise<Record<string, string>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")) return {};
  const parsed = await c.req.parseBody().catch(() => ({}));
  return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === "string"));
}

function forbidden(c: Context, message: string): Response | Promise<Response> {
  return c.html(page({ title: "Refused", notice: { kind: "error", text: message } }, html`<p><a href="/">Back to the console</a></p>`), 403);
}

function signInPage(nonce: string, next: string, error: string | undefined): Html {
  return page(
    { title: "Sign in", ...(error === undefined ? {} : { notice: { kind: "error", text: error } }) },
    html`<form method="post" action="/sign-in" class="sign-in">${csrfField(nonce)}<input type="hidden" name="next" value="${next}">
  <label for="token">API token</label>
  <input id="token" name="token" type="password" autocomplete="off" required placeholder="chv_tok_…" size="60">
  <button type="submit">Sign in</button>
</form>
<p class="meta">The same tokens as the API (<code>clawhive token create --role approver</code>). The console keeps the token only sealed under a key your browser holds.</p>`,
  );
}
