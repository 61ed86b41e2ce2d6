/**
 * The web plugin's HTML to Markdown conversion, which runs in the AssemblyScript guest: what a
 * page becomes, and that a hostile page (deep nesting, unclosed constructs, forged Markdown, bytes
 * that are not text) ends as a bounded result or a clear tool error, never a trap or a stall.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { Run, Runtime, ToolCallOutcome } from "../../../runtime/index.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { testRuntime } from "../../helpers/runtime.js";

const pages = new Map<string, { type: string; body: string | Buffer }>();
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Server;
let port = 0;
let run: Run;

before(async () => {
  server = createServer((req, res) => {
    const page = pages.get(req.url ?? "");
    if (page === undefined) {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (page.type !== "") res.setHeader("content-type", page.type);
    res.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [join(PROJECT_ROOT, "plugins", "web")] }));
  await runtime.defineAgent({
    name: "reader",
    description: "reads the local test site",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "web", version: "*" }],
    grants: { "http.fetch": { schemes: ["http"], hosts: ["127.0.0.1"], ports: [port], allow_addresses: ["127.0.0.1"] } },
    approvals: { lower_risk: [{ tool: "web.fetch_page", to: "safe", acknowledged: true }] },
  });
  run = await runtime.startRun({ agent: "reader" });
});
after(async () => {
  await run.end();
  await dispose();
  await new Promise((resolve) => server.close(resolve));
});

let n = 0;
async function fetchPage(body: string | Buffer, type = "text/html; charset=utf-8", input: Record<string, unknown> = {}): Promise<ToolCallOutcome> {
  const path = `/p${++n}`;
  pages.set(path, { type, body });
  return run.callTool("web.fetch_page", { url: `http://127.0.0.1:${port}${path}`, ...input });
}

async function markdown(html: string): Promise<string> {
  const outcome = await fetchPage(html);
  assert.equal(outcome.status, "ok", JSON.stringify(outcome));
  return (outcome as { output: { content: string } }).output.content;
}

const conversions: Array<[string, string, string]> = [
  ["headings and paragraphs", "<h1>Title</h1><p>One  two\n three.</p><h3>Sub</h3>", "# Title\n\nOne two three.\n\n### Sub"],
  ["links, emphasis and code", '<p>See <a href="/docs">the <b>docs</b></a>, <em>now</em>, run <code>npm test</code>.</p>', "See [the **docs**](/docs), _now_, run `npm test`."],
  ["lists, nested", "<ul><li>a</li><li>b<ol><li>c</li><li>d</li></ol></li></ul>", "* a\n* b\n  1. c\n  2. d"],
  ["a quote and a rule", "<blockquote><p>said</p></blockquote><hr><p>after</p>", "> said\n\n---\n\nafter"],
  ["preformatted text keeps its lines", "<pre><code>if (a &lt; b) {\n  go();\n}</code></pre>", "```\nif (a < b) {\n  go();\n}\n```"],
  ["a table", "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>", "| k | v |\n| --- | --- |\n| a | 1 |"],
  ["an image", '<p><img src="/i.png" alt="logo"></p>', "![logo](/i.png)"],
  ["entities", "<p>&amp; &lt;b&gt; &#169; &#x1F600; &eacute;x; &bogus;</p>", "& \\<b> © 😀 &eacute;x; &bogus;"],
  ["inert containers dropped with their content", "<head><title>t</title><style>p{}</style></head><body><p>kept</p><script>steal()</script><noscript>no</noscript><svg><text>s</text></svg></body>", "kept"],
  ["Markdown in text is escaped, not forged", "<p># not a heading, [not](a link) *or* _this_</p>", "\\# not a heading, \\[not\\](a link) \\*or\\* \\_this\\_"],
  ["a link target cannot close the link early", '<a href="/a b)(c">x</a>', "[x](/a%20b%29%28c)"],
  ["comments and doctype vanish", "<!DOCTYPE html><!-- hidden --><p>shown</p>", "shown"],
  ["an unclosed comment ends the page", "<p>before</p><!-- never closed <p>after</p>", "before"],
  ["a stray < is text", "<p>1 < 2 and a<b</p>", "1 \\< 2 and a"],
  ["non-ASCII case folding keeps offsets", "<P>İstanbul</P><SCRIPT>x</SCRIPT><p>ok</p>", "İstanbul\n\nok"],
];

for (const [name, html, expected] of conversions) {
  test(`markdown: ${name}`, async () => {
    assert.equal(await markdown(html), expected);
  });
}

test("markdown: nesting far past the element cap is read as flat text, and the page still converts", async () => {
  const depth = 20_000;
  const content = await markdown(`${"<div><b>".repeat(depth)}deep${"</b></div>".repeat(depth)}<p>end</p>`);
  assert.match(content, /deep/);
  assert.match(content, /end$/);
});

test("markdown: a large page converts in one bounded pass (control: its text is all there)", async () => {
  const rows = 20_000;
  const content = await markdown(`<ul>${"<li>item <i>x</i></li>".repeat(rows)}</ul>`);
  assert.equal(content.split("\n").length, rows);
});

const refusals: Array<[string, Buffer | string, string, RegExp]> = [
  ["a body that is not UTF-8", Buffer.from([0x3c, 0x70, 0x3e, 0xc3, 0x28]), "text/html", /the body is not UTF-8 text/],
  ["a NUL byte in the first bytes", Buffer.from("<p>a\u0000b</p>"), "text/html", /the body is not UTF-8 text/],
  ["an overlong encoding", Buffer.from([0xc0, 0xaf]), "text/plain", /the body is not UTF-8 text/],
  ["a binary type", "GIF89a", "image/gif", /image\/gif is not text; fetch_page reads text pages only/],
];

for (const [name, body, type, message] of refusals) {
  test(`refused: ${name}; control: the same type with good text passes`, async () => {
    const outcome = await fetchPage(body, type);
    assert.equal(outcome.status, "error", JSON.stringify(outcome));
    assert.match((outcome as { error: { message: string } }).error.message, message);
    const good = await fetchPage("<p>fine</p>", type.startsWith("text/") ? type : "text/plain");
    assert.equal(good.status, "ok", JSON.stringify(good));
  });
}

test("an untyped body is converted only when it opens as HTML; a UTF-8 BOM is dropped", async () => {
  const html = await fetchPage("\ufeff  <!doctype html><h2>T</h2>", "");
  assert.equal((html as { output: { content: string } }).output.content, "## T");
  const plain = await fetchPage("just *text*", "");
  assert.equal((plain as { output: { content: string } }).output.content, "just *text*");
});

test("format raw returns the text unconverted; max_bytes below zero is refused naming the field", async () => {
  const raw = await fetchPage("<h1>x</h1>", "text/html", { format: "raw" });
  assert.equal((raw as { output: { content: string } }).output.content, "<h1>x</h1>");
  const bad = await fetchPage("<h1>x</h1>", "text/html", { max_bytes: -1 });
  assert.equal(bad.status, "error");
  assert.match((bad as { error: { message: string } }).error.message, /max_bytes/);
});
