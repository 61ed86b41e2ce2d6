import { html } from "hono/html";
import { csrfField, j, risk, t, when, type Html } from "./render.js";

// The JSON of `GET /v1/plugins`, `/v1/agents[/:name]`, `/v1/approval-patterns` (schemas/), read field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

export function pluginList(plugins: readonly Json[]): Html {
  return html`<ul class="cards">${plugins.length === 0 ? html`<li class="empty">No plugins installed.</li>` : plugins.map((p) => html`<li class="card plugin">
  <strong><code>${t(p.name)}</code></strong> ${t(p.version)} <span class="meta">${t(p.format)} · ${t(p.publisher)}${p.first_party ? " · first party" : ""}</span>
  <div class="text">${t(p.description)}</div>
  <div>Capabilities: ${p.capabilities.length === 0 ? "none" : p.capabilities.map((c: unknown) => html`<code>${t(c)}</code> `)}</div>
  <table class="list"><thead><tr><th scope="col">Tool</th><th scope="col">Risk</th><th scope="col">Capabilities</th></tr></thead><tbody>
  ${p.tools.map((tool: Json) => html`<tr><td><code>${t(tool.name)}</code></td><td>${risk(tool.risk)}</td><td>${tool.capabilities.map((c: unknown) => html`<code>${t(c)}</code> `)}</td></tr>`)}
  </tbody></table>
  <div class="meta">sha256 <code>${t(p.sha256)}</code> · installed ${when(p.installed_at)}</div>
</li>`)}</ul>`;
}

export function agentList(agents: readonly Json[]): Html {
  return html`<table class="list"><thead><tr><th scope="col">Agent</th><th scope="col">Origin</th><th scope="col">Valid</th><th scope="col">Plugins</th><th scope="col">Grants</th></tr></thead><tbody>
${agents.length === 0 ? html`<tr><td colspan="5" class="empty">No agents.</td></tr>` : agents.map((a) => html`<tr>
  <td><a href="/agents/${encodeURIComponent(String(a.name))}"><code>${t(a.name)}</code></a><div class="text">${t(a.description)}</div></td>
  <td>${t(a.origin)}</td><td>${a.valid ? "yes" : html`<strong class="untrusted">no</strong>`}</td>
  <td>${a.plugins.map((p: Json) => html`<code>${t(p.name)}@${t(p.version)}</code> `)}</td>
  <td>${a.capabilities.map((c: unknown) => html`<code>${t(c)}</code> `)}</td></tr>`)}
</tbody></table>`;
}

export function agentDetail(a: Json): Html {
  return html`<dl class="facts">
  <dt>Origin</dt><dd>${t(a.origin)}${a.file ? html` <code>${t(a.file)}</code>` : ""}</dd>
  <dt>Valid</dt><dd>${a.valid ? "yes" : html`<strong class="untrusted">no</strong>`}</dd>
  <dt>Model</dt><dd><code>${t(a.model ?? "none")}</code></dd>
  <dt>Grants</dt><dd>${a.capabilities.map((c: unknown) => html`<code>${t(c)}</code> `)}</dd>
</dl>
${a.problems?.length > 0 ? html`<h2>Validation problems</h2><ul class="problems">${a.problems.map((p: Json) => html`<li><code>${t(p.field ?? p.path ?? "")}</code> ${t(p.message)}</li>`)}</ul>` : ""}
${a.warnings?.length > 0 ? html`<h2>Acknowledged dangers</h2><ul>${a.warnings.map((w: Json) => html`<li><code>${t(w.id)}</code> ${t(w.message)}</li>`)}</ul>` : ""}
<h2>Manifest</h2><pre class="exact">${a.source === undefined ? j(a.manifest) : t(a.source)}</pre>`;
}

export function patternList(patterns: readonly Json[], options: { csrf: string; status: string }): Html {
  const tabs = ["active", "expired", "revoked", ""].map((s) => html`<a href="/patterns${s === "" ? "" : `?status=${s}`}" ${s === options.status ? html`aria-current="page"` : ""}>${s === "" ? "all" : s}</a> `);
  return html`<p class="tabs">${tabs}</p><table class="list"><thead><tr><th scope="col">Agent</th><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Run</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col">Matched</th><th scope="col"></th></tr></thead><tbody>
${patterns.length === 0 ? html`<tr><td colspan="8" class="empty">No patterns.</td></tr>` : patterns.map((p) => html`<tr>
  <td><code>${t(p.agent)}</code></td><td><code>${t(p.tool)}</code></td><td><pre class="exact">${j(p.arguments)}</pre></td>
  <td>${p.run_id === null ? "any" : html`<code>${t(p.run_id)}</code>`}</td><td>${when(p.expires_at)}</td><td>${t(p.status)}</td><td>${t(p.matched)}</td>
  <td>${p.status === "active" ? html`<form method="post" action="/patterns/${encodeURIComponent(String(p.id))}/revoke">${csrfField(options.csrf)}<button type="submit" class="deny">Revoke</button></form>` : ""}</td></tr>`)}
</tbody></table>`;
}
