/**
 * The transformed spellings of a secret an output is refused for (secrets/transforms.ts,
 * docs/security.md): each row holds the secret changed one way and is found, beside a control
 * of the same shape made from another value of the same length, which passes.
 */
import assert from "node:assert/strict";
import { describe, it, test } from "node:test";
import { findTransformedSecret, MIN_SKELETON, outputTexts } from "../../runtime/secrets/transforms.js";
import { refusedIfTransformed, SECRET_IN_OUTPUT, SecretsRead } from "../../runtime/runs/secrets-read.js";

const SECRET = "sk-Live-7f3K9qZx2Wm";
/** Same length and character classes, not the secret: every control is built from it. */
const OTHER = "pk-Test-4b8N1rYa6Qe";
const held = [{ name: "api-token", value: SECRET }];

const reverse = (s: string) => [...s].reverse().join("");
const rot13 = (s: string) => s.replace(/[a-z]/gi, (c) => String.fromCharCode(((c.charCodeAt(0) - (c <= "Z" ? 65 : 97) + 13) % 26) + (c <= "Z" ? 65 : 97)));
const b64 = (s: string) => Buffer.from(s).toString("base64");
const b64url = (s: string) => Buffer.from(s).toString("base64url");
const hex = (s: string) => Buffer.from(s).toString("hex");
const unicode = (s: string) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
const percent = (s: string) => [...Buffer.from(s)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
const spaced = (s: string, sep: string) => [...s].join(sep);

/** Each transform: an output made from a value (the secret, or for the control, another). */
const TRANSFORMS: Array<{ name: string; output: (value: string) => unknown }> = [
  { name: "reversed", output: (v) => `token: ${reverse(v)}` },
  { name: "upper case", output: (v) => v.toUpperCase() },
  { name: "lower case", output: (v) => ({ key: v.toLowerCase() }) },
  { name: "base64 (standard, padded)", output: (v) => `Authorization: Basic ${b64(v)}` },
  { name: "base64 (standard, unpadded)", output: (v) => b64(v).replace(/=+$/, "") },
  { name: "base64url", output: (v) => b64url(`x${v}`) },
  { name: "base64 inside a longer base64 text, at another alignment", output: (v) => b64(`prefix-${v}-suffix`) },
  { name: "base64 wrapped across lines", output: (v) => b64(`${v}${v}`).replace(/(.{8})/g, "$1\n") },
  { name: "hex (lower case)", output: (v) => hex(v) },
  { name: "hex (upper case)", output: (v) => hex(v).toUpperCase() },
  { name: "hex with separators", output: (v) => hex(v).replace(/(..)/g, "$1:") },
  { name: "percent-encoding of every byte", output: (v) => percent(v) },
  { name: "percent-encoding, upper case", output: (v) => percent(v).toUpperCase() },
  { name: "JSON unicode escapes", output: (v) => `"${unicode(v)}"` },
  { name: "HTML character references", output: (v) => [...v].map((c) => `&#${c.charCodeAt(0)};`).join("") },
  { name: "ROT13", output: (v) => rot13(v) },
  { name: "spaced out", output: (v) => spaced(v, " ") },
  { name: "interleaved with dashes", output: (v) => spaced(v, "-") },
  { name: "one character a line", output: (v) => spaced(v, "\n") },
  { name: "split across fields, in order", output: (v) => ({ a: v.slice(0, 6), b: { c: v.slice(6, 12) }, d: [v.slice(12)] }) },
  { name: "split across array items", output: (v) => [...v] },
  { name: "reversed, then base64", output: (v) => b64(reverse(v)) },
  { name: "base64, then reversed", output: (v) => reverse(b64(v)) },
  { name: "upper case, then hex", output: (v) => hex(v.toUpperCase()) },
  { name: "ROT13, reversed, spaced", output: (v) => spaced(reverse(rot13(v)), ".") },
  { name: "reversed, upper case, then unicode escapes", output: (v) => unicode(reverse(v).toUpperCase()) },
  { name: "hex, then base64", output: (v) => b64(hex(v)) },
];

describe("a secret in a transformed spelling is found, each beside a control without it", () => {
  for (const row of TRANSFORMS) {
    it(row.name, () => {
      const found = findTransformedSecret(outputTexts(row.output(SECRET)), held);
      assert.equal(found?.name, "api-token", JSON.stringify(row.output(SECRET)));
      assert.equal(findTransformedSecret(outputTexts(row.output(OTHER)), held), undefined, `control: ${JSON.stringify(row.output(OTHER))}`);
    });
  }
});

test("the finding names the secret and the spelling, never the value", () => {
  const found = findTransformedSecret(outputTexts(b64(reverse(SECRET))), held)!;
  assert.deepEqual(found, { name: "api-token", transform: "reversed, in base64" });
  const refused = refusedIfTransformed({ ok: true, output: { note: reverse(SECRET) } }, secretsOf(held), "p.t");
  assert.equal(refused.ok, false);
  assert.equal(refused.error?.kind, SECRET_IN_OUTPUT);
  assert.deepEqual(refused.error?.denial && { capability: refused.error.denial.capability, reason: refused.error.denial.reason }, { capability: "secrets", reason: SECRET_IN_OUTPUT });
  assert.match(refused.error!.message, /holds secret api-token reversed/);
  assert.ok(!refused.error!.message.includes(SECRET) && !refused.error!.message.includes(reverse(SECRET)));
});

test("a tool's error holding a secret transformed is refused too; control: an error without it passes", () => {
  const error = (message: string) => ({ ok: false as const, error: { kind: "failed", message } });
  const kind = (e: ReturnType<typeof refusedIfTransformed>) => (e.ok ? "ok" : e.error?.kind);
  assert.equal(kind(refusedIfTransformed(error(`bad token ${SECRET.toUpperCase()}`), secretsOf(held), "p.t")), SECRET_IN_OUTPUT);
  assert.equal(kind(refusedIfTransformed(error(`bad token ${OTHER.toUpperCase()}`), secretsOf(held), "p.t")), "failed");
});

test(`a secret with fewer than ${MIN_SKELETON} letters and digits is not looked for (it would match ordinary text); control: one with ${MIN_SKELETON} is`, () => {
  const short = [{ name: "pin", value: "a1-b2-c3" }];
  assert.equal(findTransformedSecret(outputTexts(reverse("a1-b2-c3")), short), undefined);
  const enough = [{ name: "pin", value: "a1-b2-c3-d4" }];
  assert.equal(findTransformedSecret(outputTexts(reverse("a1-b2-c3-d4")), enough)?.name, "pin");
});

test("a large ordinary output passes (and the check of it ends)", () => {
  const big = { lines: Array.from({ length: 2000 }, (_, i) => `line ${i}: ${b64(`row ${i} of ordinary data`)} ${hex(`more ${i}`)}`) };
  assert.equal(findTransformedSecret(outputTexts(big), held), undefined);
  assert.equal(findTransformedSecret(outputTexts("x".repeat(4 << 20)), held), undefined);
});

function secretsOf(secrets: ReadonlyArray<{ name: string; value: string }>): SecretsRead {
  const read = new SecretsRead();
  for (const s of secrets) read.add(s.name, s.value);
  return read;
}
