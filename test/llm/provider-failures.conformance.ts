/**
 * The `LlmProvider` conformance suite, its failures: a cut answer, rate limits, outages, refused
 * and unreadable keys — the same assertions for every provider against its fake, streaming and not.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { text, type ProviderOptions, type RetryInfo } from "../../runtime/llm/index.js";
import { type Fake, type ProviderUnderTest, TEST_KEY } from "./_providers.js";
import { rejectsWithCode, request, withFake } from "./provider.conformance.js";

export function providerFailureConformance(put: ProviderUnderTest): void {
  for (const stream of [true, false]) {
    describe(`${put.name} conformance, failures (${stream ? "streaming" : "non-streaming"})`, () => {
      const make = (fake: Fake, options: Partial<ProviderOptions> = {}) => put.make(fake, { stream, ...options });

      test("max_tokens: the stop reason says the answer was cut", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "max_tokens", text: "The answer is" });
          const r = await make(fake).complete(request());
          assert.equal(r.stop_reason, "max_tokens");
          assert.deepEqual(r.content, [text("The answer is")]);
        }));

      test("429 with Retry-After, then success: waits as told, retries once", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "error", status: 429, message: "Rate limited", headers: { "retry-after": "7" } }, { type: "text", text: "ok" });
          const slept: number[] = [];
          const retries: RetryInfo[] = [];
          const provider = make(fake, { sleep: async (ms) => void slept.push(ms) });
          const r = await provider.complete(request(), { onRetry: (i) => retries.push(i) });
          assert.equal(r.attempts, 2);
          assert.deepEqual(slept, [7000]);
          assert.equal(retries[0]?.status, 429);
          assert.equal(fake.requests.length, 2);
        }));

      test("a Retry-After longer than we wait fails at once with llm_rate_limited", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "error", status: 429, headers: { "retry-after": "3600" } }, { type: "text", text: "never" });
          const error = await rejectsWithCode(make(fake).complete(request()), "llm_rate_limited");
          assert.match(error.message, /retry after 3600 s/);
          assert.equal(fake.requests.length, 1);
        }));

      test("500s on every attempt: llm_unavailable after maxAttempts, with backoff between", () =>
        withFake(put, async (fake) => {
          fake.reply(...Array.from({ length: 3 }, () => ({ type: "error" as const, status: 500, message: "Internal server error" })));
          const slept: number[] = [];
          const provider = make(fake, { retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 }, sleep: async (ms) => void slept.push(ms), random: () => 1 });
          const error = await rejectsWithCode(provider.complete(request()), "llm_unavailable");
          assert.equal(error.attempts, 3);
          assert.equal(error.providerStatus, 500);
          assert.match(error.message, /after 3 attempts/);
          assert.deepEqual(slept, [100, 200]);
          assert.equal(fake.requests.length, 3);
        }));

      test("500 then success", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "error", status: 500 }, { type: "text", text: "recovered" });
          const r = await make(fake).complete(request());
          assert.deepEqual(r.content, [text("recovered")]);
          assert.equal(r.attempts, 2);
        }));

      test("400 is not retried", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "error", status: 400, message: "prompt is too long" });
          const error = await rejectsWithCode(make(fake).complete(request()), "llm_bad_request");
          assert.match(error.message, /prompt is too long/);
          assert.equal(fake.requests.length, 1);
        }));

      test("the key comes from the secret store, by name, on every call (rotation)", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "text", text: "one" }, { type: "text", text: "two" });
          const asked: string[] = [];
          let key = TEST_KEY;
          const provider = make(fake, { apiKeySecret: "anthropic_api_key", secretValue: async (name) => (asked.push(name), key) });
          await provider.complete(request());
          key = "rotated-key-9876543210";
          await provider.complete(request());
          assert.deepEqual(asked, ["anthropic_api_key", "anthropic_api_key"]);
          assert.equal(put.keyOf(fake.requests[0]?.headers ?? {}), TEST_KEY);
          assert.equal(put.keyOf(fake.requests[1]?.headers ?? {}), "rotated-key-9876543210");
        }));

      test("a refused key is llm_auth, not retried", () =>
        withFake(put, async (fake) => {
          fake.reply({ type: "error", status: 401, message: "invalid x-api-key" });
          await rejectsWithCode(make(fake).complete(request()), "llm_auth");
          assert.equal(fake.requests.length, 1);
        }));

      test("an unreadable secret is llm_config and sends nothing", () =>
        withFake(put, async (fake) => {
          const provider = make(fake, { secretValue: async () => Promise.reject(new Error("no secret llm_key")) });
          const error = await rejectsWithCode(provider.complete(request()), "llm_config");
          assert.match(error.message, /clawhive secret set llm_key/);
          assert.equal(fake.requests.length, 0);
        }));
    });
  }
}
