/**
 * A model's answer is capped in bytes (`max_response_bytes`), and so is what the provider sends
 * for it: long text, long tool arguments, endless pings, one endless SSE event, a gzip bomb.
 * Both adapters, streaming and not; each refusal beside an answer just under the cap.
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { createProvider, LlmError, user, type LlmProvider, type LlmRequest, type ProviderOptions } from "../../runtime/llm/index.js";
import { anthropicUnderTest, openAiUnderTest, type Fake } from "./_providers.js";

const REQUEST: LlmRequest = { system: "s", messages: [user("hi")], tools: [{ name: "files.write", description: "w", input_schema: { type: "object" } }], max_tokens: 100 };
const CAP = 4096;

async function tooLarge(call: Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(call, (e: LlmError) => {
    assert.ok(e instanceof LlmError, `${what}: ${String(e)}`);
    assert.equal(e.code, "llm_response_too_large", `${what}: ${e.message}`);
    assert.equal(e.attempts, 1, `${what}: an oversized answer is not asked for again`);
    assert.match(e.message, /max_response_bytes/);
    return true;
  });
}

for (const under of [anthropicUnderTest, openAiUnderTest]) {
  for (const stream of [true, false]) {
    test(`response cap: ${under.name}${stream ? " streaming" : ""}: text or tool arguments past the cap fail; just under it is the control`, async () => {
      const fake: Fake = await under.start();
      try {
        const provider = under.make(fake, { stream, maxResponseBytes: CAP });
        // Controls: an answer of 3000 bytes (and one of 1000 three-byte characters) passes.
        fake.reply({ type: "text", text: "a".repeat(3000) }, { type: "text", text: "€".repeat(1000) });
        assert.equal((await provider.complete(REQUEST)).content.length, 1);
        assert.equal((await provider.complete(REQUEST)).content.length, 1);
        const cases: Array<[string, Parameters<Fake["reply"]>[0]]> = [
          ["long text", { type: "text", text: "a".repeat(CAP + 1) }],
          ["multibyte text counted in bytes", { type: "text", text: "€".repeat(1400) }],
          ["long tool arguments", { type: "tool_calls", calls: [{ name: "files__write", arguments: { content: "x".repeat(CAP) } }] }],
          ["many tool calls", { type: "tool_calls", calls: Array.from({ length: 200 }, () => ({ name: "files__write", arguments: { content: "y".repeat(30) } })) }],
        ];
        for (const [what, reply] of cases) {
          const before = fake.requests.length;
          fake.reply(reply);
          await tooLarge(provider.complete(REQUEST), what);
          assert.equal(fake.requests.length, before + 1, `${what}: one request, no retry`);
        }
      } finally {
        await fake.close();
      }
    });
  }
}

/** What a hostile server at the provider's URL sends; it stops writing when the client goes away. */
type Flood = "pings" | "endless-event" | "gzip-bomb" | "padded-json" | "declared-huge";

let server: Server;
let base = "";
let flood: Flood = "pings";
const written: number[] = [];
let served: () => void = () => undefined;

function drainedOrClosed(res: import("node:http").ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => void answer(res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const BOMB = gzipSync(Buffer.concat([Buffer.from('{"id":"x","pad":"'), Buffer.alloc(64 << 20, 0x61), Buffer.from('"}')]), { level: 9 });

async function answer(res: import("node:http").ServerResponse): Promise<void> {
  let sent = 0;
  const limit = 32 << 20;
  if (flood === "gzip-bomb") {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(BOMB);
    written.push(BOMB.length);
    served();
    return;
  }
  const sse = flood === "pings" || flood === "endless-event";
  res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json", ...(flood === "declared-huge" ? { "content-length": String(1 << 30) } : {}) });
  const chunk = Buffer.from(flood === "pings" ? ": ping\n\n".repeat(8192) : "a".repeat(64 << 10));
  res.write(flood === "endless-event" ? "data: {\"junk\":\"" : flood === "padded-json" || flood === "declared-huge" ? '{"id":"x","pad":"' : "");
  // Writes until the client hangs up (or far past any cap, so a missing cap fails the test, not hangs it).
  while (!res.destroyed && sent < limit) {
    sent += chunk.length;
    if (!res.write(chunk)) await drainedOrClosed(res);
  }
  written.push(sent);
  res.end();
  served();
}

function hostile(name: "anthropic" | "openai", options: Partial<ProviderOptions>): LlmProvider {
  return createProvider(
    { provider: name === "anthropic" ? "anthropic" : "openai-compatible", id: "m", base_url: name === "anthropic" ? base : `${base}/v1`, max_response_bytes: CAP },
    { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 }, ...options },
  );
}

test("response cap: floods on the wire (pings, one endless event, padded or huge-declared JSON, a gzip bomb) stop at 64 times the cap", async () => {
  const cases: Array<[Flood, boolean]> = [["pings", true], ["endless-event", true], ["padded-json", false], ["declared-huge", false], ["gzip-bomb", false]];
  for (const name of ["anthropic", "openai"] as const) {
    for (const [kind, stream] of cases) {
      flood = kind;
      written.length = 0;
      const done = new Promise<void>((resolve) => (served = resolve));
      await tooLarge(hostile(name, { stream }).complete(REQUEST), `${name} ${kind}`);
      await done;
      // One request, and the client hung up long before the server's 32 MiB.
      assert.equal(written.length, 1, `${name} ${kind}`);
      if (kind !== "gzip-bomb") assert.ok(written[0]! < 8 << 20, `${name} ${kind}: ${written[0]} bytes were sent`);
    }
  }
});

test("response cap: max_response_bytes is checked where the provider is made", () => {
  assert.throws(() => createProvider({ provider: "openai-compatible", id: "m", base_url: base, max_response_bytes: 0 }), (e: LlmError) => e.code === "llm_config" && /max_response_bytes/.test(e.message));
  // Control: a sane value makes a provider.
  assert.equal(createProvider({ provider: "openai-compatible", id: "m", base_url: base, max_response_bytes: 1 << 20 }).model, "m");
});
