import { html } from "hono/html";
import { csrfField, j, t, when, type Html } from "./render.js";

// The run JSON of `GET /v1/runs[/:id]` (schemas/runs.ts), read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RunJson = any;

const RUN_STATUSES = ["", "active", "awaiting_approval", "ended"] as const;

export function runList(runs: readonly RunJson[], filter: { status: string; agent: string }, next: string | null): Html {
  // The API filters by agent (`?agent=`), so a page and its cursor hold that agent's runs alone.
  const shown = runs;
  const more = next === null ? "" : html`<p><a href="/runs?${new URLSearchParams({ ...(filter.status ? { status: filter.status } : {}), ...(filter.agent ? { agent: filter.agent } : {}), cursor: next }).toString()}">Older runs</a></p>`;
  return html`<form method="get" action="/runs" class="filters">
  <label>Status <select name="status">${RUN_STATUSES.map((s) => html`<option value="${s}" ${s === filter.status ? "selected" : ""}>${s === "" ? "any" : s}</option>`)}</select></label>
  <label>Agent <input name="agent" value="${filter.agent}" maxlength="64"></label>
  <button type="submit">Filter</button>
</form>
<table class="list"><thead><tr><th scope="col">Run</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Task</th><th scope="col">Started</th></tr></thead>
<tbody>${shown.length === 0 ? html`<tr><td colspan="5" class="empty">No runs.</td></tr>` : shown.map((r) => html`<tr>
  <td><a href="/runs/${encodeURIComponent(String(r.id))}"><code>${t(r.id)}</code></a></td><td><code>${t(r.agent)}</code></td>
  <td><span class="status status-${t(r.status)}">${t(r.status)}</span></td><td class="text">${t(r.task)}</td><td>${when(r.created_at)}</td></tr>`)}</tbody></table>
${more}`;
}

export function runDetail(r: RunJson, options: { csrf: string; canCancel: boolean; canAudit: boolean }): Html {
  const ended = r.ended_at !== null && r.ended_at !== undefined;
  return html`<dl class="facts">
  <dt>Agent</dt><dd><code>${t(r.agent)}</code></dd>
  <dt>Status</dt><dd><span class="status status-${t(r.status)}" id="run-status">${t(r.status)}</span>${r.end_reason ? html` <span class="text">${t(r.end_reason)}</span>` : ""}</dd>
  <dt>Task</dt><dd class="text">${t(r.task)}</dd>
  <dt>Trace</dt><dd><code>${t(r.trace_id)}</code></dd>
  <dt>Started</dt><dd>${when(r.created_at)}</dd>
  <dt>Ended</dt><dd>${ended ? when(r.ended_at) : "not yet"}</dd>
  ${r.pending_approval ? html`<dt>Waiting for</dt><dd><a href="/approvals/${encodeURIComponent(String(r.pending_approval.id))}">approval of <code>${t(r.pending_approval.tool)}</code></a></dd>` : ""}
</dl>
${!ended && options.canCancel ? html`<form method="post" action="/runs/${encodeURIComponent(String(r.id))}/cancel">${csrfField(options.csrf)}<button type="submit" class="deny">Cancel run</button></form>` : ""}
${options.canAudit ? html`<p><a href="/audit?run_id=${encodeURIComponent(String(r.id))}&amp;order=asc">Audit records of this run</a></p>` : ""}
<h2>Events</h2>
<p class="meta">Live with JavaScript; <a href="/runs/${encodeURIComponent(String(r.id))}">reload</a> for the outcomes.</p>
<ol class="events" id="run-events" data-live="run" data-run="${t(r.id)}"></ol>
<h2>Tool calls</h2>
${Array.isArray(r.outcomes) && r.outcomes.length > 0 ? html`<pre class="exact">${j(r.outcomes)}</pre>` : html`<p class="empty">None yet.</p>`}
${r.result !== null && r.result !== undefined ? html`<h2>Result</h2><pre class="exact">${j(r.result)}</pre>` : ""}
<h2>Least-privilege report</h2>
${r.report ? html`<pre class="exact" id="report">${j(r.report)}</pre>` : html`<p class="empty">Written when the run ends.</p>`}`;
}
