/**
 * `web.search` against local fakes of each provider's real response format (SearXNG's JSON API,
 * the Brave Search API, an OpenAI-compatible search model's chat completion with url_citation
 * annotations), through the http proxy: results capped and inert, the Brave key a grant
 * credential the plugin never sees, and the refusals, each beside a control that passes.
 */
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Runtime } from "../../../runtime/index.js";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { testRuntime } from "../../helpers/runtime.js";

const WEB = join(PROJECT_ROOT, "plugins", "web");
const BRAVE_KEY = "BSA-test-5ecret-key-never-shown";
let runtime: Runtime;
let dispose: () => Promise<void>;
let server: Server;
let port = 0;
const hanging: ServerResponse[] = [];
const seen: Array<{ method: string; url: string; token: string | undefined; body: string }> = [];

// SearXNG's /search?format=json answer, abridged from a real instance (fields the tool ignores kept).
const searxng = (q: string) => ({
  query: q,
  number_of_results: 0,
  results: [
    { url: "https://nodejs.org/api/test.html", title: "Test runner | Node.js <b>v20</b> Documentation", content: "The <span class=\"highlight\">node:test</span> module facilitates the creation of JavaScript tests.\u001b[2J", engine: "duckduckgo", parsed_url: ["https", "nodejs.org", "/api/test.html", "", "", ""], template: "default.html", engines: ["duckduckgo", "google"], positions: [1, 2], score: 4.0, category: "general" },
    { url: "javascript:alert(1)", title: "not a link", content: "dropped", engine: "bing", score: 1.0, category: "general" },
    { url: "https://example.org/\u202eevil", title: "bidi", content: "dropped: the url carries a format character", engine: "bing", score: 0.9, category: "general" },
    ...Array.from({ length: 30 }, (_, i) => ({ url: `https://example.org/${i}`, title: `Result ${i}`, content: "x".repeat(1000), engine: "google", score: 0.5, category: "general" })),
  ],
  answers: [],
  corrections: [],
  infoboxes: [],
  suggestions: ["node test runner"],
  unresponsive_engines: [],
});

// Brave Search API /res/v1/web/search answer, abridged.
const brave = (q: string) => ({
  type: "search",
  query: { original: q, show_strict_warning: false, is_navigational: false, spellcheck_off: true, country: "us", more_results_available: true },
  mixed: { type: "mixed", main: [{ type: "web", index: 0, all: false }], top: [], side: [] },
  web: {
    type: "search",
    results: [
      { title: "SQLite Write-Ahead Logging", url: "https://sqlite.org/wal.html", is_source_local: false, is_source_both: false, description: "The default method by which <strong>SQLite</strong> implements atomic commit and rollback is a rollback journal. &amp; more", page_age: "2024-01-01T00:00:00", profile: { name: "SQLite", url: "https://sqlite.org/wal.html", long_name: "sqlite.org", img: "https://imgs.search.brave.com/x" }, language: "en", family_friendly: true, type: "search_result", subtype: "generic", meta_url: { scheme: "https", netloc: "sqlite.org", hostname: "sqlite.org", favicon: "https://imgs.search.brave.com/y", path: "› wal.html" } },
    ],
    family_friendly: true,
  },
});

// An OpenAI search model's chat completion (gpt-4o-search-preview), abridged.
const openai = () => {
  const content = "libSQL is a fork of SQLite that adds a server mode. ([turso.tech](https://turso.tech/libsql?utm_source=openai)) It keeps the file format. ([github.com](https://github.com/tursodatabase/libsql))";
  const first = content.indexOf("([turso");
  const second = content.indexOf("([github");
  return {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1765000000,
    model: "gpt-4o-search-preview-2025-03-11",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content,
          refusal: null,
          annotations: [
            { type: "url_citation", url_citation: { end_index: content.indexOf("))", first) + 2, start_index: first, title: "libSQL - Turso", url: "https://turso.tech/libsql?utm_source=openai" } },
            { type: "url_citation", url_citation: { end_index: content.length, start_index: second, title: "tursodatabase/libsql", url: "https://github.com/tursodatabase/libsql" } },
          ],
        },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50 },
  };
};

function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? "/", "http://127.0.0.1");
  seen.push({ method: req.method ?? "", url: req.url ?? "", token: req.headers["x-subscription-token"] as string | undefined, body });
  const json = (value: unknown, status = 200) => {
    res.statusCode = status;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify(value));
  };
  const q = url.searchParams.get("q") ?? "";
  if (url.pathname === "/searx/search" && url.searchParams.get("format") === "json") return json(searxng(q));
  if (url.pathname === "/brave/res/v1/web/search") {
    if (req.headers["x-subscription-token"] !== BRAVE_KEY) return json({ type: "ErrorResponse", error: { id: "x", status: 401, code: "SUBSCRIPTION_TOKEN_INVALID", detail: "The provided subscription token is invalid." } }, 401);
    return json(brave(q));
  }
  if (url.pathname === "/oai/v1/chat/completions" && req.method === "POST") return json(openai());
  if (url.pathname === "/garbage/search") {
    res.setHeader("content-type", "text/html");
    return void res.end("<html><body>Too many requests from your IP</body></html>");
  }
  if (url.pathname === "/wrong-shape/search") return json({ hello: "world" });
  if (url.pathname === "/down/search") return json({ error: "engine down" }, 503);
  if (url.pathname === "/huge/search") return json({ results: [{ url: "https://a.example/", title: "a", content: "y".repeat(3 << 20) }] });
  if (url.pathname === "/hang/search") return void hanging.push(res);
  res.statusCode = 404;
  res.end("not here");
}

const http = (ports: number[]) => ({ schemes: ["http"], hosts: ["127.0.0.1"], ports, allow_addresses: ["127.0.0.1"], methods: ["GET", "POST"] });

async function agent(name: string, config: Record<string, unknown>, grants: Record<string, unknown> = { "http.fetch": http([port]) }): Promise<void> {
  await runtime.defineAgent({
    name,
    description: "searches a local fake provider",
    model: { provider: "anthropic", id: "m" },
    system_prompt: "x",
    plugins: [{ name: "web", version: "*", config }],
    grants,
    approvals: { lower_risk: [{ tool: "web.search", to: "safe", acknowledged: true }] },
  } as never);
}

async function search(agentName: string, input: Record<string, unknown>) {
  const run = await runtime.startRun({ agent: agentName });
  const outcome = (await run.callTool("web.search", input)) as { status: string; output?: { provider: string; results: Array<{ title: string; url: string; snippet: string }>; more: boolean }; error?: { kind: string; message: string; denial?: { reason: string } } };
  await run.end();
  return outcome;
}

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => handle(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  ({ runtime, dispose } = await testRuntime({ pluginDirs: [WEB] }));
  await runtime.setSecret("brave-key", BRAVE_KEY);
  const base = `http://127.0.0.1:${port}`;
  await agent("searx", { "search.provider": "searxng", "search.url": `${base}/searx/` });
  await agent("brave", { "search.provider": "brave", "search.url": `${base}/brave` }, {
    "http.fetch": { ...http([port]), credentials: [{ host: "127.0.0.1", secret: "brave-key", header: "x-subscription-token", scheme: "" }] },
  });
  await agent("brave-nokey", { "search.provider": "brave", "search.url": `${base}/brave` });
  await agent("oai", { "search.provider": "openai", "search.url": `${base}/oai/v1`, "search.model": "gpt-4o-mini-search-preview" });
  for (const kind of ["garbage", "wrong-shape", "down", "huge"]) await agent(kind, { "search.url": `${base}/${kind}` });
  await agent("hang", { "search.url": `${base}/hang`, "search.timeout_ms": "300" });
  await agent("elsewhere", { "search.provider": "brave", "search.url": "https://api.search.brave.com" });
  await agent("other-port", { "search.url": `http://127.0.0.1:1/searx` });
  await agent("unset", {});
  await agent("bad-provider", { "search.provider": "google", "search.url": base });
});
after(async () => {
  for (const res of hanging) res.destroy();
  await dispose();
  await new Promise((resolve) => server.close(resolve));
});

describe("each provider's real answer becomes {title, url, snippet}", () => {
  test("SearXNG: markup and controls dropped, unsafe links dropped, count and snippet capped", async () => {
    const outcome = await search("searx", { query: "node test runner", count: 3 });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    const { results, more, provider } = outcome.output!;
    assert.equal(provider, "searxng");
    assert.equal(results.length, 3);
    assert.deepEqual(results[0], { title: "Test runner | Node.js v20 Documentation", url: "https://nodejs.org/api/test.html", snippet: "The node:test module facilitates the creation of JavaScript tests. [2J" });
    assert.deepEqual(results.map((r) => r.url), ["https://nodejs.org/api/test.html", "https://example.org/0", "https://example.org/1"]);
    assert.equal(results[1]!.snippet.length, 301, "300 characters and an ellipsis");
    assert.ok(more);
    assert.match(seen.at(-1)!.url, /^\/searx\/search\?q=node%20test%20runner&format=json$/);
  });

  test("the agent's search.max_results caps what the model asks for", async () => {
    await agent("searx-two", { "search.url": `http://127.0.0.1:${port}/searx`, "search.max_results": "2" });
    const outcome = await search("searx-two", { query: "q", count: 20 });
    assert.equal(outcome.output?.results.length, 2, JSON.stringify(outcome));
  });

  test("Brave: the key is a grant credential the server receives and the output never holds", async () => {
    const outcome = await search("brave", { query: "sqlite wal" });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    assert.deepEqual(outcome.output!.results, [{ title: "SQLite Write-Ahead Logging", url: "https://sqlite.org/wal.html", snippet: "The default method by which SQLite implements atomic commit and rollback is a rollback journal. & more" }]);
    assert.equal(seen.at(-1)!.token, BRAVE_KEY);
    assert.match(seen.at(-1)!.url, /count=5$/);
    const { records } = await runtime.audit.query({ limit: 200 });
    assert.ok(!JSON.stringify(records).includes(BRAVE_KEY), "the key is in no audit record");
  });

  test("Brave without the credential: the provider's refusal is the tool's error", async () => {
    const outcome = await search("brave-nokey", { query: "sqlite wal" });
    assert.equal(outcome.status, "error");
    assert.match(outcome.error!.message, /HTTP 401: .*SUBSCRIPTION_TOKEN_INVALID/);
  });

  test("OpenAI-compatible: url_citation annotations, the cited sentence as snippet", async () => {
    const outcome = await search("oai", { query: "what is libsql" });
    assert.equal(outcome.status, "ok", JSON.stringify(outcome));
    assert.deepEqual(outcome.output!.results, [
      { title: "libSQL - Turso", url: "https://turso.tech/libsql?utm_source=openai", snippet: "libSQL is a fork of SQLite that adds a server mode." },
      { title: "tursodatabase/libsql", url: "https://github.com/tursodatabase/libsql", snippet: "It keeps the file format." },
    ]);
    const sent = JSON.parse(seen.at(-1)!.body) as { model: string; messages: Array<{ content: string }>; web_search_options: unknown };
    assert.deepEqual(sent, { model: "gpt-4o-mini-search-preview", messages: [{ role: "user", content: "what is libsql" }], web_search_options: {} });
  });
});

describe("refusals, each beside the control above", () => {
  test("a provider host not in the allow-list is denied by the http proxy; nothing is sent", async () => {
    const before = seen.length;
    const outcome = await search("elsewhere", { query: "q" });
    assert.equal(outcome.status, "error");
    assert.equal(outcome.error!.kind, "denied", JSON.stringify(outcome));
    const port1 = await search("other-port", { query: "q" });
    assert.equal(port1.error?.kind, "denied", JSON.stringify(port1));
    assert.equal(seen.length, before);
  });

  const failures: Array<[string, string, RegExp]> = [
    ["a provider answering garbage", "garbage", /the answer is not JSON .*Too many requests/],
    ["JSON that is not the provider's shape", "wrong-shape", /not searxng's search response shape \(keys: hello\)/],
    ["a provider failing", "down", /HTTP 503/],
    ["an oversized answer", "huge", /larger than 1048576 bytes; refused unread/],
    ["a provider that hangs", "hang", /time|deadline/i],
    ["no search.url for SearXNG", "unset", /"search\.url" is not set/],
    ["an unknown provider", "bad-provider", /"search\.provider" is google; expected one of searxng, brave, openai/],
  ];
  for (const [name, agentName, message] of failures) {
    test(`${name}: a clear error`, async () => {
      const outcome = await search(agentName, { query: "q" });
      assert.equal(outcome.status, "error", JSON.stringify(outcome));
      assert.match(outcome.error!.message, message);
    });
  }

  const inputs: Array<[string, Record<string, unknown>, RegExp]> = [
    ["an empty query", { query: "  " }, /"query": must not be empty/],
    ["a query too long", { query: "q".repeat(401) }, /"query": at most 400/],
    ["a count out of range", { query: "q", count: 0 }, /"count": expected a whole number from 1 to 20/],
  ];
  for (const [name, input, message] of inputs) {
    test(`${name}: invalid input`, async () => {
      const outcome = await search("searx", input);
      assert.equal(outcome.error?.kind, "invalid-input", JSON.stringify(outcome));
      assert.match(outcome.error!.message, message);
    });
  }
});
