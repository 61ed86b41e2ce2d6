import { html } from "hono/html";
import { j, t, when, type Html } from "./render.js";

// An audit record of `GET /v1/audit` (schemas/audit.ts), read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RecordJson = any;

/** The filters `GET /v1/audit` takes that the page offers, in its query names. */
export const AUDIT_FILTERS = ["run_id", "agent", "tool", "kind", "status", "since", "until", "order"] as const;
export type AuditFilter = Partial<Record<(typeof AUDIT_FILTERS)[number] | "cursor", string>>;

export function auditList(records: readonly RecordJson[], filter: AuditFilter, options: { next: string | null; canVerify: boolean; csrf: string }): Html {
  const input = (name: (typeof AUDIT_FILTERS)[number], label: string, placeholder = "") =>
    html`<label>${label} <input name="${name}" value="${filter[name] ?? ""}" placeholder="${placeholder}" maxlength="128"></label>`;
  const select = (name: "kind" | "status" | "order", label: string, values: readonly string[]) =>
    html`<label>${label} <select name="${name}">${["", ...values].map((v) => html`<option value="${v}" ${filter[name] === v ? "selected" : ""}>${v === "" ? "any" : v}</option>`)}</select></label>`;
  const query = new URLSearchParams(Object.entries(filter).filter(([k, v]) => k !== "cursor" && v !== undefined && v !== "") as [string, string][]);
  if (options.next !== null) query.set("cursor", options.next);
  return html`<form method="get" action="/audit" class="filters">
  ${input("run_id", "Run")} ${input("agent", "Agent")} ${input("tool", "Tool", "plugin.tool")}
  ${select("kind", "Kind", ["tool_call", "host_call", "model_call", "plugin", "approval_pattern"])}
  ${select("status", "Status", ["intent", "ok", "error", "denied"])}
  ${input("since", "Since", "2026-01-01T00:00:00Z")} ${input("until", "Until", "ISO time")}
  ${select("order", "Order", ["desc", "asc"])}
  <button type="submit">Filter</button>
</form>
${options.canVerify ? html`<form method="get" action="/audit/verify" class="inline"><button type="submit">Verify chain</button></form>` : ""}
<ol class="records">${records.length === 0 ? html`<li class="empty">No records.</li>` : records.map(auditRecord)}</ol>
${options.next === null ? "" : html`<p><a href="/audit?${query.toString()}">Next page</a></p>`}`;
}

/** One record: a summary line, and every field of it in a disclosure (no script needed). */
function auditRecord(r: RecordJson): Html {
  return html`<li class="record" id="seq-${t(r.seq)}"><details>
  <summary><code>#${t(r.seq)}</code> <span class="status status-${t(r.status)}">${t(r.status)}</span> <code>${t(r.kind)}</code> <code>${t(r.tool ?? r.tool_call?.name ?? "")}</code> · run <code>${t(r.run_id)}</code> · ${when(Number.isFinite(Number(r.start_at)) ? new Date(Number(r.start_at)).toISOString() : r.start_at)}</summary>
  <pre class="exact">${j(r)}</pre>
  <p><a href="/audit/${encodeURIComponent(String(r.seq))}">Record ${t(r.seq)} on its own page</a></p>
</details></li>`;
}

/** One record on its own page (a link to give someone), every field shown inert. */
export function auditRecordPage(r: RecordJson): Html {
  return html`<p><code>#${t(r.seq)}</code> <span class="status status-${t(r.status)}">${t(r.status)}</span> <code>${t(r.kind)}</code> · run <a href="/audit?run_id=${encodeURIComponent(String(r.run_id))}&amp;order=asc"><code>${t(r.run_id)}</code></a></p>
<pre class="exact" id="audit-record">${j(r)}</pre>
<p><a href="/audit">Back to the audit log</a></p>`;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function verifyResult(report: any): Html {
  return html`<p class="notice ${report.ok ? "ok" : "error"}" role="status" id="verify-result">${report.ok ? "Chain verified: intact." : "Chain broken."}</p>
<pre class="exact">${j(report)}</pre>
<p><a href="/audit">Back to the audit log</a></p>`;
}
