import type { Hono } from "hono";
import type { ApiEnv } from "../api/auth/index.js";

/**
 * The console's only script, served from this origin (the CSP allows no inline script). It adds
 * what a plain page cannot: new approvals appearing as they are asked, and a run's events as
 * they happen, both over the API's own Server-Sent Events. Every decision is a plain form that
 * works without it. Event text is made inert like the server's (controls and bidi shown as escapes) and put
 * on the page with `textContent`, never parsed as HTML.
 */
const SCRIPT = String.raw`"use strict";
(function () {
  // The same characters runtime/text/inert.ts escapes: shown as \u{...}, never obeyed (bidi, controls).
  var UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/g;
  function inert(text) {
    return String(text).replace(UNSAFE, function (c) { return "\\u{" + c.charCodeAt(0).toString(16) + "}"; });
  }
  function liveApprovals(list) {
    var source = new EventSource("/console/events/approvals");
    var refresh = function () {
      fetch("/approvals?status=pending&fragment=list", { credentials: "same-origin" }).then(function (r) {
        return r.ok ? r.text() : Promise.reject(r.status);
      }).then(function (text) {
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.getElementById("approval-list");
        var current = document.getElementById("approval-list");
        if (fresh && current) current.replaceWith(document.importNode(fresh, true));
      }).catch(function () {});
    };
    source.addEventListener("approval.requested", refresh);
    source.addEventListener("approval.decided", refresh);
  }
  function liveRun(list) {
    var run = list.getAttribute("data-run");
    var source = new EventSource("/runs/" + encodeURIComponent(run) + "/events");
    var names = ["tool-call", "tool-result", "approval-required", "host-call", "log", "instance", "text", "step", "run-ended"];
    names.forEach(function (name) {
      source.addEventListener(name, function (event) {
        var item = document.createElement("li");
        item.className = "event event-" + name;
        var label = document.createElement("strong");
        label.textContent = name;
        var body = document.createElement("code");
        body.textContent = " " + inert(event.data);
        item.appendChild(label);
        item.appendChild(body);
        list.appendChild(item);
        if (name === "run-ended") {
          var status = document.getElementById("run-status");
          if (status) status.textContent = "ended";
        }
      });
    });
    source.addEventListener("end", function () { source.close(); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    var approvals = document.querySelector('[data-live="approvals"]');
    if (approvals) liveApprovals(approvals);
    var run = document.querySelector('[data-live="run"]');
    if (run) liveRun(run);
  });
})();
`;

/** System fonts only (no download), one column on a phone, visible focus for keyboard use. */
const STYLE = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fbfbfc;--muted:#5b6470;--line:#d6d9de;--ok:#126b2f;--bad:#a8071a;--warn:#8a5a00;--link:#0b57d0}
@media (prefers-color-scheme:dark){:root{--fg:#e6e8eb;--bg:#15171a;--muted:#9aa3ad;--line:#353a40;--ok:#5fd38a;--bad:#ff7b86;--warn:#f2c14e;--link:#8ab4f8}}
*{box-sizing:border-box}body{margin:0;font:16px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--link)}:focus-visible{outline:3px solid var(--link);outline-offset:2px}
header{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line)}
.brand{font-weight:700;text-decoration:none}nav{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center;flex:1}
nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0;flex:1}
main{max-width:72rem;margin:0 auto;padding:1rem}h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.1rem;margin-top:1.5rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
pre.exact{white-space:pre-wrap;word-break:break-all;background:rgba(127,127,127,.1);border:1px solid var(--line);padding:.6rem;border-radius:4px;max-height:30rem;overflow:auto}
.text{white-space:pre-wrap;overflow-wrap:anywhere}.meta{color:var(--muted);font-size:.9em}.empty{color:var(--muted)}
.cards{list-style:none;padding:0;display:grid;gap:.6rem}.card{border:1px solid var(--line);border-radius:6px;padding:.7rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0;overflow-wrap:anywhere}
@media (max-width:40rem){dl.facts{grid-template-columns:1fr}dl.facts dd{margin-bottom:.4rem}}
.risk,.status,.untrusted{display:inline-block;padding:0 .4em;border-radius:3px;border:1px solid currentColor;font-size:.85em}
.risk-safe,.status-approved,.status-ok{color:var(--ok)}.risk-guarded,.status-pending,.status-intent{color:var(--warn)}.risk-unsafe,.status-denied,.status-error,.untrusted{color:var(--bad)}
.decide{display:flex;flex-wrap:wrap;gap:.6rem;align-items:flex-end}.decide form{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center}
button{font:inherit;padding:.45rem .9rem;border-radius:4px;border:1px solid var(--line);background:transparent;color:inherit;cursor:pointer;min-height:2.5rem}
button.approve{border-color:var(--ok);color:var(--ok)}button.deny{border-color:var(--bad);color:var(--bad)}
.diff .widen{color:var(--bad);font-weight:600}.diff .narrow{color:var(--ok)}
input,select{font:inherit;padding:.35rem;border:1px solid var(--line);border-radius:4px;background:transparent;color:inherit;max-width:100%}
.filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin-bottom:1rem}.inline{display:inline}
table.list{width:100%;border-collapse:collapse}table.list th,table.list td{text-align:left;border-bottom:1px solid var(--line);padding:.35rem;vertical-align:top}
@media (max-width:40rem){table.list thead{display:none}table.list td{display:block;border:0;padding:.15rem 0}table.list tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}}
.notice{padding:.5rem .8rem;border-radius:4px;border:1px solid var(--line)}.notice.ok{border-color:var(--ok)}.notice.error{border-color:var(--bad);color:var(--bad)}
.tabs a{margin-right:.6rem}.tabs a[aria-current]{font-weight:700}ol.events,ol.records{padding-left:1.2rem}ol.events li{overflow-wrap:anywhere}
.sign-in{display:grid;gap:.5rem;max-width:36rem}`;

export function consoleAssets(app: Hono<ApiEnv>): void {
  app.get("/console/console.js", (c) => c.body(SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "no-cache" }));
  app.get("/console/console.css", (c) => c.body(STYLE, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "no-cache" }));
}
