import { html } from "hono/html";
import { csrfField, t, when, type Html } from "./render.js";

// The JSON of `GET /v1/plugins/upgrades` (schemas/resources.ts PendingUpgradeSchema), read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/**
 * Pending upgrades, each with its permission diff: `+` lines widen (marked), `-` narrow. Every
 * value is the plugin's or the API's text shown inert and escaped; the forms name only the
 * plugin (the package accepted is the one kept, never anything the form carries).
 */
export function pendingUpgradeList(upgrades: readonly Json[], options: { csrf: string; canDecide: boolean }): Html {
  if (upgrades.length === 0) return html`<p class="empty" id="pending-upgrades">No pending upgrades.</p>`;
  return html`<ul class="cards" id="pending-upgrades">${upgrades.map((u) => html`<li class="card upgrade">
  <strong><code>${t(u.name)}</code></strong> ${t(u.installed_version)} → ${t(u.version)} <span class="meta">${t(u.publisher)} · proposed by <code>${t(u.proposed_by)}</code> ${when(u.proposed_at)} · kept until ${when(u.expires_at)}</span>
  <div class="text">${t(u.description)}</div>
  <pre class="exact diff">${u.diff.lines.map((line: unknown) => diffLine(String(line)))}</pre>
  <div class="meta">sha256 <code>${t(u.sha256)}</code> · from ${t(u.origin)}</div>
  ${options.canDecide ? decisionForms(String(u.name), options.csrf) : ""}
</li>`)}</ul>`;
}

function diffLine(line: string): Html {
  const kind = line.startsWith("+") ? "widen" : line.startsWith("-") ? "narrow" : "other";
  return html`<span class="${kind}">${t(line)}</span>\n`;
}

function decisionForms(name: string, csrf: string): Html {
  const action = `/plugins/${encodeURIComponent(name)}/upgrade`;
  return html`<div class="decide">
  <form method="post" action="${action}/accept" class="inline">${csrfField(csrf)}<button type="submit" class="approve">Grant these permissions and upgrade</button></form>
  <form method="post" action="${action}/reject" class="inline">${csrfField(csrf)}<button type="submit" class="deny">Reject</button></form>
</div>`;
}
