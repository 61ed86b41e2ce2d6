import { html, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { inert, jsonText } from "../text/inert.js";
import type { Role } from "../api/auth/index.js";

/** What a page renders to: `hono/html` escapes every interpolated value unless it is itself HTML. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/**
 * Text from anywhere (a model, a tool, a plugin, an email) as a person should see it: control,
 * bidi and invisible characters shown as visible escapes (`\u{202e}`), then HTML-escaped by the
 * template. Applied to every value a page shows, even values the API already made inert.
 */
export function t(value: unknown): string {
  if (value === null || value === undefined) return "";
  return inert(typeof value === "string" ? value : String(value));
}

/** A JSON value as inert, indented text (for `<pre>`). */
export function j(value: unknown): string {
  return inert(jsonText(value, { indent: 2 }));
}

export interface PageFrame {
  readonly title: string;
  readonly role?: Role;
  readonly csrf?: string;
  /** Shown above the content: what just happened, or what went wrong. */
  readonly notice?: { readonly kind: "ok" | "error"; readonly text: string } | undefined;
  /** Whether the API serves standing patterns (the nav shows the page only then). */
  readonly patterns?: boolean;
}

/** The hidden field every form carries (checked on every POST). */
export function csrfField(csrf: string | undefined): Html {
  return html`<input type="hidden" name="csrf" value="${csrf ?? ""}">`;
}

export function page(frame: PageFrame, body: Html | string): Html {
  const role = frame.role;
  const link = (href: string, label: string) => html`<li><a href="${href}">${label}</a></li>`;
  const nav =
    role === undefined
      ? ""
      : html`<nav aria-label="main"><ul>
          ${role !== "client" ? link("/approvals", "Approvals") : ""}
          ${role !== "client" && frame.patterns === true ? link("/patterns", "Patterns") : ""}
          ${link("/runs", "Runs")}
          ${role !== "approver" ? link("/audit", "Audit") : ""}
          ${role === "admin" ? link("/plugins", "Plugins") : ""}
          ${role === "admin" ? link("/agents", "Agents") : ""}
        </ul>
        <form method="post" action="/sign-out" class="inline">${csrfField(frame.csrf)}<button type="submit">Sign out (${role})</button></form>
      </nav>`;
  const notice = frame.notice === undefined ? "" : html`<p class="notice ${frame.notice.kind}" role="${frame.notice.kind === "error" ? "alert" : "status"}">${t(frame.notice.text)}</p>`;
  return html`${raw("<!doctype html>")}
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · clawhive</title>
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head>
<body>
<header><a class="brand" href="/">clawhive</a>${nav}</header>
<main id="main">
<h1>${frame.title}</h1>
${notice}
${body}
</main>
</body>
</html>`;
}

/** A risk as a labelled badge (its word is always shown, never colour alone). */
export function risk(value: unknown): Html {
  const r = t(value);
  return html`<span class="risk risk-${/^(safe|guarded|unsafe)$/.test(r) ? r : "unknown"}">${r}</span>`;
}

export function when(iso: unknown): Html {
  const text = t(iso);
  return html`<time datetime="${text}">${text}</time>`;
}
