import { html } from "hono/html";
import { csrfField, j, risk, t, when, type Html } from "./render.js";

// The approval JSON of `GET /v1/approvals/:id` (schemas/approvals.ts), read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type ApprovalJson = any;

/** How long a standing pattern lasts, offered when the API offers pattern choices. */
export const PATTERN_DURATIONS = ["1h", "2h", "8h", "today", "24h"] as const;

/** One approval as a card in the list: enough to tell it apart, a link to decide. */
export function approvalCard(a: ApprovalJson): Html {
  return html`<li class="card approval" data-approval="${t(a.id)}">
  <a href="/approvals/${encodeURIComponent(String(a.id))}"><strong>${t(a.tool)}</strong></a> ${risk(a.risk)}
  <span class="status status-${t(a.status)}">${t(a.status)}</span>
  ${a.untrusted_sources?.length > 0 ? html`<span class="untrusted" title="the run read external content">untrusted input</span>` : ""}
  <div class="meta">agent <code>${t(a.agent)}</code> · run <code>${t(a.run_id)}</code> · expires ${when(a.expires_at)}</div>
  <div class="text">${t(a.task)}</div>
  <div class="reason meta">${t(a.reason)}</div>
</li>`;
}

export function approvalList(approvals: readonly ApprovalJson[], status: string): Html {
  const tabs = ["pending", "approved", "denied", "expired", "used", "all"].map(
    (s) => html`<a href="/approvals?status=${s}" ${s === status ? html`aria-current="page"` : ""}>${s}</a> `,
  );
  return html`<p class="tabs">${tabs}</p>
<ul class="cards" id="approval-list" data-live="${status === "pending" ? "approvals" : ""}">
${approvals.length === 0 ? html`<li class="empty">No ${status === "all" ? "" : status} approvals.</li>` : approvals.map(approvalCard)}
</ul>`;
}

/** Everything a person needs to decide, then the decision forms (plain HTML forms: no script needed). */
export function approvalDetail(a: ApprovalJson, options: { csrf: string; canDecide: boolean }): Html {
  const pending = a.status === "pending";
  const facts = html`<dl class="facts">
  <dt>Status</dt><dd><span class="status status-${t(a.status)}">${t(a.status)}</span></dd>
  <dt>Agent</dt><dd><code>${t(a.agent)}</code>${a.chain?.length > 0 ? html` (through ${a.chain.map((c: ApprovalJson) => html`<code>${t(c.agent)}</code> `)})` : ""}</dd>
  <dt>Run</dt><dd><a href="/runs/${encodeURIComponent(String(a.run_id))}"><code>${t(a.run_id)}</code></a></dd>
  <dt>Task</dt><dd class="text">${t(a.task)}</dd>
  <dt>Tool</dt><dd><code>${t(a.tool)}</code> ${risk(a.risk)} (${t(a.kind === "effect" ? "one effect" : "tool call")})</dd>
  <dt>Reason</dt><dd class="text">${t(a.reason)}</dd>
  ${a.context === null || a.context === undefined ? "" : html`<dt>Context</dt><dd class="text">${t(a.context)}</dd>`}
  <dt>Untrusted input</dt><dd>${a.untrusted_sources?.length > 0 ? html`<strong class="untrusted">yes: the run read ${a.untrusted_sources.map((s: unknown) => html`<code>${t(s)}</code> `)}</strong>` : "none read"}</dd>
  ${a.secrets_read?.length > 0 ? html`<dt>Secrets read</dt><dd>${a.secrets_read.map((s: ApprovalJson) => html`<code>${t(s.tool)}</code>: ${s.secrets.map((n: unknown) => html`<code>${t(n)}</code> `)}`)}</dd>` : ""}
  <dt>Created</dt><dd>${when(a.created_at)}</dd>
  <dt>Expires</dt><dd>${when(a.expires_at)}</dd>
</dl>
${a.effect ? html`<h2>The exact effect (${t(a.effect.capability)})</h2><pre class="exact" data-label="effect">${exactJson(a.effect)}</pre>` : ""}
<h2>The exact arguments</h2>
<pre class="exact" data-label="arguments">${exactJson(a.arguments)}</pre>
<p class="meta">sha256 <code>${t(a.arguments?.sha256)}</code></p>
${a.decision ? html`<h2>Decision</h2><p>${t(a.decision.decision)}${a.decision.scope ? html` (${t(a.decision.scope)})` : ""} by <code>${t(a.decision.by)}</code> at ${when(a.decision.at)}${a.decision.reason ? html`: <span class="text">${t(a.decision.reason)}</span>` : ""}</p>` : ""}`;
  if (!pending || !options.canDecide) return html`${facts}${pending ? html`<p class="notice">Your role cannot decide approvals.</p>` : ""}`;
  const action = `/approvals/${encodeURIComponent(String(a.id))}`;
  const choices: readonly ApprovalJson[] = Array.isArray(a.pattern_choices) ? a.pattern_choices : [];
  return html`${facts}
<h2>Decide</h2>
<div class="decide">
<form method="post" action="${action}">${csrfField(options.csrf)}<input type="hidden" name="decision" value="approve"><input type="hidden" name="scope" value="once"><button type="submit" class="approve">Approve once</button></form>
${a.kind === "tool_call" ? html`<form method="post" action="${action}">${csrfField(options.csrf)}<input type="hidden" name="decision" value="approve"><input type="hidden" name="scope" value="run"><button type="submit" class="approve">Approve for this run</button></form>` : ""}
${choices.map((choice, i) => html`<form method="post" action="${action}" class="pattern">${csrfField(options.csrf)}<input type="hidden" name="decision" value="approve"><input type="hidden" name="scope" value="pattern"><input type="hidden" name="pattern_index" value="${i}">
  <button type="submit" class="approve">Approve pattern: ${t(choice.summary)}</button>
  <label>for <select name="expires_in">${PATTERN_DURATIONS.map((d) => html`<option value="${d}">${d}</option>`)}</select></label>
  <label>applies to <select name="applies_to"><option value="run">this run</option><option value="agent">the agent</option></select></label>
</form>`)}
<form method="post" action="${action}" class="deny">${csrfField(options.csrf)}<input type="hidden" name="decision" value="deny">
  <label for="deny-reason">Reason</label><input id="deny-reason" name="reason" maxlength="2000" placeholder="why not">
  <button type="submit" class="deny">Deny</button></form>
</div>`;
}

/**
 * The exact value an approval binds, from its JSON text (what its hash covers), indented, with
 * every unsafe character as a `\u` escape: not the field-by-field inert copy, whose escapes
 * would read as part of the value.
 */
function exactJson(bound: { json?: unknown; value?: unknown } | null | undefined): string {
  if (typeof bound?.json === "string") {
    try {
      return j(JSON.parse(bound.json));
    } catch {
      return t(bound.json);
    }
  }
  return j(bound?.value);
}
