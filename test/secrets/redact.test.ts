import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { secretRedactor } from "../../runtime/secrets/index.js";

const R = "[REDACTED]";

describe("secretRedactor", () => {
  // [what, secrets, input, expected]: each redaction case sits beside controls that must pass through.
  const cases: Array<[string, string[], string, string]> = [
    ["one occurrence", ["sk-live-1234"], "key=sk-live-1234;", `key=${R};`],
    ["every occurrence", ["sk-live-1234"], "sk-live-1234 and sk-live-1234", `${R} and ${R}`],
    ["control: no secret present", ["sk-live-1234"], "nothing to see here", "nothing to see here"],
    ["control: a prefix of the secret is not the secret", ["sk-live-1234"], "sk-live-123", "sk-live-123"],
    ["a secret inside a longer one redacts as one", ["abcd", "xxabcdxx"], "[xxabcdxx] [abcd]", `[${R}] [${R}]`],
    ["overlapping different secrets leave no fragment", ["abcdef", "defghi"], "abcdefghi", R],
    ["overlapping occurrences of one secret", ["aaaa"], "aaaaa", R],
    ["adjacent occurrences stay two markers", ["tok1"], "tok1tok1", `${R}${R}`],
    ["short values are ignored (they would redact ordinary text)", ["abc", "1"], "abc 1 abcdef", "abc 1 abcdef"],
    ["control: exactly the minimum length is redacted", ["abcd"], "xabcdx", `x${R}x`],
    ["empty and duplicate values are harmless", ["", "pass-word", "pass-word"], "pass-word", R],
    ["regex metacharacters are literal", ["a.b*c+?(d)"], "a.b*c+?(d) aXbbbc", `${R} aXbbbc`],
    ["control: regex metacharacters do not match as patterns", ["a.b*c+?(d)"], "aXbbbc+d", "aXbbbc+d"],
    ["unicode", ["pässwörd-🔑"], "x pässwörd-🔑 y", `x ${R} y`],
    ["JSON-escaped form", ['quote"back\\slash'], JSON.stringify({ v: 'quote"back\\slash' }), `{"v":"${R}"}`],
    ["URL-encoded form", ["pa ss+wo/rd"], "https://h/?k=pa%20ss%2Bwo%2Frd&x=1", `https://h/?k=${R}&x=1`],
    ["control: case differs", ["Secret-Value"], "secret-value", "secret-value"],
    ["no secrets at all", [], "text", "text"],
  ];

  for (const [what, secrets, input, expected] of cases) {
    it(`text: ${what}`, () => assert.equal(secretRedactor(secrets)(input), expected));
    it(`bytes: ${what}`, () => {
      const out = secretRedactor(secrets)(new TextEncoder().encode(input));
      assert.ok(out instanceof Uint8Array);
      assert.equal(new TextDecoder().decode(out), expected);
    });
  }

  it("bytes: binary bodies are searched as bytes, not decoded", () => {
    const body = Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from("tok-12345"), Buffer.from([0x80, 0xc3])]);
    const out = Buffer.from(secretRedactor(["tok-12345"])(new Uint8Array(body)));
    assert.deepEqual(out, Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from(R), Buffer.from([0x80, 0xc3])]));
  });

  it("bytes: a view into a larger buffer is read at its offset", () => {
    const backing = Buffer.from("HEADERsecret-valueTRAILER");
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 6, 12);
    assert.equal(Buffer.from(secretRedactor(["secret-value"])(view)).toString(), R);
  });

  it("input without a secret is returned as is", () => {
    const body = new Uint8Array([1, 2, 3, 4]);
    assert.equal(secretRedactor(["zzzz"])(body), body);
  });

  it("minLength is configurable (control: the default ignores the same value)", () => {
    assert.equal(secretRedactor(["ab"], { minLength: 2 })("xaby"), `x${R}y`);
    assert.equal(secretRedactor(["ab"])("xaby"), "xaby");
  });
});
