/**
 * The `LlmProvider` conformance suite: the same script and the same assertions for every
 * provider, each against its fake server, streaming and not. Provider-specific wire details are
 * read back through `ProviderUnderTest.seen`, so what is asserted is what the model was shown.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { assistant, LlmError, text, toolResult, toolUse, user, type LlmRequest, type ProviderOptions } from "../../runtime/llm/index.js";
import { startFakeProxy } from "../helpers/fake-llm/index.js";
import { type Fake, type ProviderUnderTest } from "./_providers.js";

const READ_FILE = { name: "files.read_file", description: "Read a file", input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } };
const LIST_DIR = { name: "files.list_dir", description: "List a folder", input_schema: { type: "object", properties: { path: { type: "string" } } } };

export function request(overrides: Partial<LlmRequest> = {}): LlmRequest {
  return { system: "You are a test.", messages: [user("Hello")], tools: [READ_FILE, LIST_DIR], max_tokens: 256, ...overrides };
}

export async function withFake(put: ProviderUnderTest, body: (fake: Fake) => Promise<void>): Promise<void> {
  const fake = await put.start();
  try {
    await body(fake);
  } finally {
    await fake.close();
  }
}

export async function rejectsWithCode(promise: Promise<unknown>, code: string): Promise<LlmError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof LlmError, `expected an LlmError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}, got a response`);
}

export function providerConformance(put: ProviderUnderTest): void {
  for (const stream of [true, false]) {
    describe(`${put.name} conformance (${stream ? "streaming" : "non-streaming"})`, () => {
      const make = (fake: Fake, options: Partial<ProviderOptions> = {}) => put.make(fake, { stream, ...options });

      test("a text answer: content, end_turn, usage, deltas that add up to the text", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "text", text: "Hello there, how can I help?" });
          const deltas: string[] = [];
          const r = await make(fake).complete(request(), { onText: (d) => deltas.push(d) });
          assert.deepEqual(r.content, [text("Hello there, how can I help?")]);
          assert.equal(r.stop_reason, "end_turn");
          assert.equal(r.attempts, 1);
          assert.ok(r.usage.input_tokens > 0 && r.usage.output_tokens > 0);
          assert.equal(deltas.join(""), "Hello there, how can I help?");
          if (stream) assert.ok(deltas.length > 1, "a stream delivers several deltas");
          const seen = put.seen(fake.requests[0]?.body);
          assert.equal(seen.stream, stream);
          assert.equal(seen.system, "You are a test.");
          assert.deepEqual(seen.userTexts, ["Hello"]);
        }));

      test("tool names travel as plugin__tool and come back as plugin.tool", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "tool_calls", text: "Reading it.", calls: [{ id: "call_1", name: "files__read_file", arguments: { path: "a.txt" } }] });
          const r = await make(fake).complete(request());
          assert.deepEqual(put.seen(fake.requests[0]?.body).tools, ["files__read_file", "files__list_dir"]);
          assert.deepEqual(r.content, [text("Reading it."), toolUse("call_1", "files.read_file", { path: "a.txt" })]);
          assert.equal(r.stop_reason, "tool_use");
        }));

      test("parallel tool calls keep their order, ids and inputs", () =>
        withFake(put, async (fake) => {
          fake.reply({
            type: "tool_calls",
            calls: [
              { id: "call_a", name: "files__read_file", arguments: { path: "a.txt" } },
              { id: "call_b", name: "files__list_dir", arguments: { path: "src" } },
              { id: "call_c", name: "files__read_file", arguments: { path: "b.txt" } },
            ],
          });
          const r = await make(fake).complete(request());
          assert.deepEqual(r.content, [
            toolUse("call_a", "files.read_file", { path: "a.txt" }),
            toolUse("call_b", "files.list_dir", { path: "src" }),
            toolUse("call_c", "files.read_file", { path: "b.txt" }),
          ]);
        }));

      test("a tool round trip: the model sees its calls and every result, errors marked", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "text", text: "Both read." });
          const messages = [
            user("Read a.txt and b.txt"),
            assistant("Reading both.", toolUse("call_a", "files.read_file", { path: "a.txt" }), toolUse("call_b", "files.read_file", { path: "b.txt" })),
            user(toolResult("call_a", "contents of a"), toolResult("call_b", "not found: b.txt", { isError: true })),
          ];
          const r = await make(fake).complete(request({ messages }));
          assert.deepEqual(r.content, [text("Both read.")]);
          const seen = put.seen(fake.requests[0]?.body);
          assert.deepEqual(seen.toolCalls, [
            { id: "call_a", name: "files__read_file", input: { path: "a.txt" } },
            { id: "call_b", name: "files__read_file", input: { path: "b.txt" } },
          ]);
          assert.deepEqual(seen.toolResults, [
            { id: "call_a", content: "contents of a", isError: false },
            { id: "call_b", content: "not found: b.txt", isError: true },
          ]);
        }));

      test("tool results and a new user text in one turn are both delivered", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "text", text: "ok" });
          const messages = [user("Start"), assistant(toolUse("call_a", "files.list_dir", {})), user(toolResult("call_a", "[]"), "Also, stop after this.")];
          await make(fake).complete(request({ messages }));
          const seen = put.seen(fake.requests[0]?.body);
          assert.deepEqual(seen.toolResults, [{ id: "call_a", content: "[]", isError: false }]);
          assert.deepEqual(seen.userTexts, ["Start", "Also, stop after this."]);
        }));

      if (stream || put.malformedWithoutStream) {
        for (const [why, args, error] of [
          ["invalid JSON", '{"path": "a.txt"', /^invalid JSON: /],
          ["an array", "[1, 2]", /^expected a JSON object, got an array$/],
          ["a string", '"a.txt"', /^expected a JSON object, got a string$/],
        ] as const) {
          test(`malformed arguments (${why}) become input_error, not a crash`, () =>
            withFake(put, async (fake) => {
              fake.reply({ type: "tool_calls", calls: [{ id: "call_bad", name: "files__read_file", arguments: args }, { id: "call_ok", name: "files__list_dir", arguments: { path: "." } }] });
              const r = await make(fake).complete(request());
              const [bad, ok] = r.content;
              assert.equal(bad?.type, "tool_use");
              if (bad?.type !== "tool_use") return;
              assert.equal(bad.name, "files.read_file");
              assert.deepEqual(bad.input, {});
              assert.match(bad.input_error ?? "", error);
              assert.equal(bad.raw_input, args);
              assert.deepEqual(ok, toolUse("call_ok", "files.list_dir", { path: "." }), "the well-formed call beside it is kept");
            }));
        }
      }

      test("through an outbound proxy (CONNECT tunnel, credentials from the URL)", async () => {
        const proxy = await startFakeProxy();
        try {
          await withFake(put, async (fake) => {
            fake.reply({ type: "text", text: "via proxy" });
            const proxyUrl = proxy.url.replace("http://", "http://alice:s3cret@");
            const r = await make(fake, { proxyUrl }).complete(request());
            assert.deepEqual(r.content, [text("via proxy")]);
            assert.equal(proxy.connects.length, 1);
            assert.equal(proxy.connects[0]?.target, new URL(fake.url).host);
            assert.equal(proxy.connects[0]?.proxyAuthorization, `Basic ${Buffer.from("alice:s3cret").toString("base64")}`);
          });
        } finally {
          await proxy.close();
        }
      });

      if (stream) {
        test("text deltas arrive while the answer is still streaming (the server holds its last fragment)", () =>
          withFake(put, async (fake) => {
            const answer = "Streaming answers show up word by word, not at the end.";
            let release!: () => void;
            fake.reply({ type: "text", text: answer, hold: new Promise<void>((resolve) => (release = resolve)) });
            const deltas: string[] = [];
            let settled = false;
            const call = make(fake).complete(request(), { onText: (d) => deltas.push(d) }).finally(() => (settled = true));
            await fake.holding();
            while (deltas.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
            const sofar = deltas.join("");
            assert.equal(settled, false, "the call has not ended while the server holds the stream");
            assert.ok(sofar.length < answer.length && answer.startsWith(sofar), sofar);
            release();
            const r = await call;
            assert.deepEqual(r.content, [text(answer)]);
            assert.equal(deltas.join(""), answer);
            assert.equal(r.stop_reason, "end_turn");
          }));

        test("cancel aborts the in-flight request: the server sees the connection close", () =>
          withFake(put, async (fake) => {
            fake.reply({ type: "hang", text: "Thinking" });
            const controller = new AbortController();
            const call = make(fake).complete(request(), { signal: controller.signal, onText: () => controller.abort(new Error("run cancelled")) });
            await rejectsWithCode(call, "llm_aborted");
            await fake.clientClosed();
            assert.equal(fake.requests[0]?.clientClosed, true);
            assert.equal(fake.requests.length, 1, "a cancelled call is not retried");
          }));

        test("a signal that already fired sends nothing", () =>
          withFake(put, async (fake) => {
            await rejectsWithCode(make(fake).complete(request(), { signal: AbortSignal.abort() }), "llm_aborted");
            assert.equal(fake.requests.length, 0);
          }));

        test("a stalled stream hits the request timeout (llm_timeout) and the connection is closed", () =>
          withFake(put, async (fake) => {
            fake.reply({ type: "hang" }, { type: "hang" });
            const error = await rejectsWithCode(make(fake, { retry: { timeoutMs: 150, maxAttempts: 2, baseDelayMs: 1 } }).complete(request()), "llm_timeout");
            assert.equal(error.attempts, 2);
            await fake.clientClosed();
          }));

        test("a connection dropped before any text is retried", () =>
          withFake(put, async (fake) => {
            fake.reply({ type: "drop" }, { type: "text", text: "second time lucky" });
            const r = await make(fake).complete(request());
            assert.deepEqual(r.content, [text("second time lucky")]);
            assert.equal(r.attempts, 2);
          }));

        test("a connection dropped after text was streamed is not retried (no duplicate text)", () =>
          withFake(put, async (fake) => {
            fake.reply({ type: "drop", text: "Half an ans" }, { type: "text", text: "never asked" });
            const deltas: string[] = [];
            await rejectsWithCode(make(fake).complete(request(), { onText: (d) => deltas.push(d) }), "llm_connection");
            assert.deepEqual(deltas, ["Half an ans"]);
            assert.equal(fake.requests.length, 1);
          }));
      }
    });
  }
}
