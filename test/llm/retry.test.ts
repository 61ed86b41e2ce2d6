import assert from "node:assert/strict";
import { test } from "node:test";
import { LlmError } from "../../runtime/llm/index.js";
import { backoff, classify, retryAfterMs, withRetries, DEFAULT_RETRY_POLICY } from "../../runtime/llm/retry.js";

const headers = (h: Record<string, string>) => new Headers(h);
const NOW = Date.parse("2025-01-01T00:00:00Z");

test("retryAfterMs reads retry-after-ms, delay-seconds and HTTP-dates (RFC 9110 §10.2.3)", () => {
  const rows: Array<[Record<string, string>, number | undefined, string]> = [
    [{ "retry-after": "7" }, 7000, "delay-seconds"],
    [{ "retry-after": "0" }, 0, "zero"],
    [{ "retry-after": "1.5" }, 1500, "fractional seconds (sent by some gateways)"],
    [{ "retry-after-ms": "250" }, 250, "OpenAI/Anthropic's millisecond header"],
    [{ "retry-after-ms": "250", "retry-after": "9" }, 250, "milliseconds win"],
    [{ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }, 30_000, "HTTP-date"],
    [{ "retry-after": "Tue, 31 Dec 2024 23:59:00 GMT" }, 0, "a date in the past is now"],
    [{ "retry-after": "soon" }, undefined, "garbage"],
    [{ "retry-after": "-5" }, undefined, "negative"],
    [{}, undefined, "absent"],
  ];
  for (const [h, expected, why] of rows) assert.equal(retryAfterMs(headers(h), NOW), expected, why);
});

test("backoff doubles up to the cap, with half of each delay random", () => {
  const policy = { baseDelayMs: 500, maxDelayMs: 8000 };
  assert.deepEqual([1, 2, 3, 4, 5, 6].map((n) => backoff(n, policy, () => 1)), [500, 1000, 2000, 4000, 8000, 8000]);
  assert.deepEqual([1, 2, 3].map((n) => backoff(n, policy, () => 0)), [250, 500, 1000]);
});

test("classify: which statuses are retried and what they are called", () => {
  const statusError = (status: number, h: Record<string, string> = {}) => Object.assign(new Error(`${status} status`), { status, headers: headers(h) });
  const rows: Array<[unknown, string, boolean]> = [
    [statusError(400), "llm_bad_request", false],
    [statusError(401), "llm_auth", false],
    [statusError(403), "llm_auth", false],
    [statusError(404), "llm_bad_request", false],
    [statusError(408), "llm_unavailable", true],
    [statusError(409), "llm_unavailable", true],
    [statusError(413), "llm_bad_request", false],
    [statusError(429), "llm_rate_limited", true],
    [statusError(500), "llm_unavailable", true],
    [statusError(503), "llm_unavailable", true],
    [statusError(529), "llm_unavailable", true],
    [statusError(500, { "x-should-retry": "false" }), "llm_unavailable", false],
    [statusError(400, { "x-should-retry": "true" }), "llm_bad_request", true],
    [new TypeError("fetch failed", { cause: new Error("ECONNREFUSED") }), "llm_connection", true],
    [new LlmError("llm_bad_response", "no choices"), "llm_bad_response", false],
  ];
  for (const [error, code, retryable] of rows) {
    const f = classify(error);
    assert.equal(f.code, code, String(error));
    assert.equal(f.retryable, retryable, String(error));
  }
});

test("withRetries: succeeds on a later attempt and reports the count", async () => {
  let calls = 0;
  const { value, attempts } = await withRetries(
    async () => {
      calls++;
      if (calls < 3) throw Object.assign(new Error("overloaded"), { status: 529, headers: headers({}) });
      return "ok";
    },
    { policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 5 }, label: "test", sleep: async () => {} },
  );
  assert.deepEqual([value, attempts], ["ok", 3]);
});

test("withRetries: maxAttempts 1 means no retry", async () => {
  let calls = 0;
  await assert.rejects(
    withRetries(
      async () => {
        calls++;
        throw Object.assign(new Error("boom"), { status: 500, headers: headers({}) });
      },
      { policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 1 }, label: "test", sleep: async () => {} },
    ),
    (e: unknown) => e instanceof LlmError && e.code === "llm_unavailable" && e.attempts === 1 && e.message === "test: boom",
  );
  assert.equal(calls, 1);
});

test("withRetries: a cancel during the backoff sleep ends the call as llm_aborted", async () => {
  const controller = new AbortController();
  const started = Date.now();
  const call = withRetries(
    async () => {
      setTimeout(() => controller.abort(), 10);
      throw Object.assign(new Error("busy"), { status: 429, headers: headers({ "retry-after": "30" }) });
    },
    { policy: DEFAULT_RETRY_POLICY, label: "test", signal: controller.signal },
  );
  await assert.rejects(call, (e: unknown) => e instanceof LlmError && e.code === "llm_aborted");
  assert.ok(Date.now() - started < 5000, "the 30 s Retry-After sleep was cut short");
});

test("withRetries: a cancel during an attempt aborts that attempt's signal and ends the call as llm_aborted", async () => {
  const controller = new AbortController();
  const call = withRetries(
    (signal) =>
      new Promise((_resolve, reject) => {
        signal.addEventListener("abort", () => reject(new Error("request aborted")), { once: true });
        setTimeout(() => controller.abort(), 5);
      }),
    { policy: DEFAULT_RETRY_POLICY, label: "test", signal: controller.signal },
  );
  await assert.rejects(call, (e: unknown) => e instanceof LlmError && e.code === "llm_aborted");
});

test("withRetries: an attempt that timed out is retried and reported as a timeout", async () => {
  let calls = 0;
  const call = withRetries(
    (signal) => {
      calls++;
      return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("aborted by deadline")), { once: true }));
    },
    { policy: { ...DEFAULT_RETRY_POLICY, maxAttempts: 2, timeoutMs: 5 }, label: "test", sleep: async () => {} },
  );
  await assert.rejects(call, (e: unknown) => e instanceof LlmError && e.code === "llm_timeout" && e.attempts === 2);
  assert.equal(calls, 2);
});

test("withRetries: finished attempts stay detached from the caller's signal (a run that ends fires none of their listeners)", async () => {
  const run = new AbortController();
  let fired = 0;
  for (let i = 0; i < 5; i++) {
    await withRetries(
      async (signal) => {
        signal.addEventListener("abort", () => fired++);
        return i;
      },
      { policy: DEFAULT_RETRY_POLICY, label: "test", signal: run.signal },
    );
  }
  run.abort();
  assert.equal(fired, 0);
});
