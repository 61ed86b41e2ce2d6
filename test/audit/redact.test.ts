import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { JsonValue } from "../../runtime/audit/index.js";
import { MIN_REDACTED_LENGTH, Redactor, truncateUtf8 } from "../../runtime/audit/redact.js";
import type { RedactionSubject } from "../../runtime/audit/redact.js";

const subject: RedactionSubject = { kind: "host_call", proxy: "http", function: "fetch", tool: "web" };

function redactArgs(redactor: Redactor, args: JsonValue): string {
  return redactor.args(args, subject, redactor.secrets()).text;
}

describe("Redactor.args", () => {
  const secrets = ["sk-live-123456", 'pa"ss\\word', "424242"];
  const redactor = new Redactor({ secrets });
  const cases: [string, JsonValue, string][] = [
    ["a secret as a whole value", { key: "sk-live-123456" }, `{"key":"[REDACTED]"}`],
    ["a secret inside a longer string", { header: "Bearer sk-live-123456!" }, `{"header":"Bearer [REDACTED]!"}`],
    ["a secret deep in arrays and objects", { a: [{ b: ["x sk-live-123456"] }] }, `{"a":[{"b":["x [REDACTED]"]}]}`],
    ["a secret used as an object key", { "sk-live-123456": 1 }, `{"[REDACTED]":1}`],
    ["a secret with JSON-escaped characters", { p: 'pa"ss\\word' }, `{"p":"[REDACTED]"}`],
    ["a secret that only appears once serialised (a number)", { pin: 424242 }, `{"pin":[REDACTED]}`],
    ["a value under a credential key, whatever it is", { Authorization: "Basic abc", "X-Api-Key": 7, nested: { password: ["a"] } }, `{"Authorization":"[REDACTED]","X-Api-Key":"[REDACTED]","nested":{"password":"[REDACTED]"}}`],
    ["nothing secret (control)", { max_tokens: 5, path: "/work/a.md", note: "sk-live" }, `{"max_tokens":5,"note":"sk-live","path":"/work/a.md"}`],
  ];
  for (const [label, args, expected] of cases) {
    it(`redacts ${label}`, () => assert.equal(redactArgs(redactor, args), expected));
  }

  it("redacts the longer of two overlapping secrets whole", () => {
    const overlapping = new Redactor({ secrets: ["abcd", "abcdefgh"] });
    assert.equal(redactArgs(overlapping, "xabcdefghx abcd"), `"x[REDACTED]x [REDACTED]"`);
  });

  it("reads a secrets function on every record, so a rotated secret applies at once", () => {
    let current = ["old-secret"];
    const rotating = new Redactor({ secrets: () => current });
    assert.equal(redactArgs(rotating, "old-secret new-secret"), `"[REDACTED] new-secret"`);
    current = ["new-secret"];
    assert.equal(redactArgs(rotating, "old-secret new-secret"), `"old-secret [REDACTED]"`);
  });

  it("runs the hook first, then still redacts what the hook returns", () => {
    const hooked = new Redactor({
      secrets: ["sk-live-123456"],
      redactArgs: (args, s) => ({ ...(args as Record<string, JsonValue>), url: "https://api.example.com/v1", proxy: s.proxy }),
    });
    assert.equal(
      redactArgs(hooked, { url: "https://api.example.com/v1?key=abc", body: "sk-live-123456" }),
      `{"body":"[REDACTED]","proxy":"http","url":"https://api.example.com/v1"}`,
    );
  });

  it("ignores an empty secret rather than redacting everything", () => {
    assert.equal(redactArgs(new Redactor({ secrets: [""] }), "abc"), `"abc"`);
  });

  it("ignores a secret shorter than MIN_REDACTED_LENGTH: it would rewrite key names and spell itself out", () => {
    const short = new Redactor({ secrets: ["k", "tok"] });
    assert.equal(MIN_REDACTED_LENGTH, 4);
    assert.equal(redactArgs(short, { input_tokens: 12, note: "token" }), `{"input_tokens":12,"note":"token"}`);
    // Control: from four characters on, every occurrence goes.
    assert.equal(redactArgs(new Redactor({ secrets: ["toke"] }), { note: "token" }), `{"note":"[REDACTED]n"}`);
  });

  it("caps stored arguments at maxArgsBytes after redaction, and reports the full size", () => {
    const capped = new Redactor({ secrets: ["sk-live-123456"], maxArgsBytes: 40 });
    const args = { text: "é".repeat(30) + "sk-live-123456" };
    const out = capped.args(args, subject, capped.secrets());
    assert.equal(out.truncated, true);
    assert.ok(Buffer.byteLength(out.text) <= 40);
    assert.ok(!out.text.includes("\uFFFD"), "never splits a character");
    assert.equal(out.bytes, Buffer.byteLength(`{"text":"${"é".repeat(30)}[REDACTED]"}`));
    const small = capped.args({ a: 1 }, subject, capped.secrets());
    assert.deepEqual(small, { text: `{"a":1}`, bytes: 7, truncated: false }, "under the cap (control)");
  });
});

describe("Redactor.text", () => {
  it("sweeps secrets from free text and caps it", () => {
    const redactor = new Redactor({ secrets: ["hunter2"], maxTextBytes: 16 });
    assert.equal(redactor.text("pw hunter2", redactor.secrets()), "pw [REDACTED]");
    assert.equal(redactor.text("x".repeat(40), redactor.secrets()), "x".repeat(16));
  });
});

describe("truncateUtf8", () => {
  const cases: [string, number, string][] = [
    ["abcdef", 3, "abc"],
    ["abc", 10, "abc"],
    ["éé", 3, "é"],
    ["a😀b", 4, "a"],
    ["a😀b", 5, "a😀"],
    ["", 0, ""],
  ];
  for (const [text, max, expected] of cases) {
    it(`${JSON.stringify(text)} to ${max} bytes is ${JSON.stringify(expected)}`, () => assert.equal(truncateUtf8(text, max), expected));
  }
});
