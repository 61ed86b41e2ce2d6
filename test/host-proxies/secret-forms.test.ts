import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { redactBytes, redactText } from "../../host-proxies/http/redact.js";
import { Redactor } from "../../runtime/audit/redact.js";

const SECRET = "sk-live-Zq9/x+y=ABCdef 42";
const b = (text: string) => Buffer.from(text, "utf8");
const pct = (text: string, upper: boolean) => [...b(text)].map((x) => `%${x.toString(16).padStart(2, "0")}`).map((s) => (upper ? s.toUpperCase() : s)).join("");

/** A secret echoed inside a longer text, encoded whole: the secret at every base64 alignment. */
const echoes: Array<[string, string]> = [
  ["verbatim", `Bearer ${SECRET}`],
  ["JSON-escaped", JSON.stringify({ h: `Bearer ${SECRET}"` })],
  ["URI component", `?token=${encodeURIComponent(SECRET)}&x=1`],
  ["form encoding (space as +)", `token=${encodeURIComponent(SECRET).replaceAll("%20", "+")}`],
  ["every byte percent-encoded, upper case", `q=${pct(SECRET, true)}`],
  ["every byte percent-encoded, lower case", `q=${pct(SECRET, false)}`],
  ["hex, lower case", `digest ${b(SECRET).toString("hex")} end`],
  ["hex, upper case", `DIGEST ${b(SECRET).toString("hex").toUpperCase()} END`],
  ["base64, aligned", b(SECRET).toString("base64")],
  ["base64, after one byte", b(`a${SECRET}`).toString("base64")],
  ["base64, after two bytes", b(`ab${SECRET}zz`).toString("base64")],
  ["base64 of a whole header line", b(`Authorization: Bearer ${SECRET}\r\n`).toString("base64")],
  ["base64url, aligned", b(SECRET).toString("base64url")],
  ["base64url, after one byte", b(`?${SECRET}`).toString("base64url")],
  ["base64url, after two bytes", b(`?>${SECRET}`).toString("base64url")],
];

/** How much of the secret survives: its longest substring (of 6+ chars) found in the output. */
function leaks(output: string): boolean {
  const forms = [SECRET, b(SECRET).toString("hex"), b(SECRET).toString("hex").toUpperCase()];
  if (forms.some((f) => output.includes(f))) return true;
  // Decode any base64 run and look for a recognisable piece of the secret.
  for (const run of output.match(/[A-Za-z0-9+/_-]{8,}={0,2}/g) ?? []) {
    for (const enc of ["base64", "base64url"] as const) {
      const decoded = Buffer.from(run, enc).toString("latin1");
      if (decoded.includes(SECRET.slice(2, 14)) || decoded.includes(SECRET.slice(10, 22))) return true;
    }
  }
  return decodeURIComponent(output.replaceAll("+", " ").replace(/%(?![0-9a-fA-F]{2})/g, "%25")).includes(SECRET);
}

describe("secret forms: a secret echoed by a server, in its common encodings", () => {
  for (const [label, echo] of echoes) {
    it(`the http proxy redacts it ${label}`, () => {
      assert.ok(leaks(echo), "the unredacted echo does show the secret (the check can fail)");
      const out = Buffer.from(redactBytes(b(echo), [SECRET])).toString("utf8");
      assert.ok(out.includes("[REDACTED]"), out);
      assert.ok(!leaks(out), out);
      assert.equal(redactText(echo, [SECRET]), out);
    });
    it(`the audit log redacts it ${label}`, () => {
      const redactor = new Redactor({ secrets: [SECRET] });
      const text = redactor.text(echo, redactor.secrets());
      assert.ok(text.includes("[REDACTED]"), text);
      assert.ok(!leaks(text), text);
    });
  }

  const controls: Array<[string, string]> = [
    ["another token", "Bearer sk-live-OTHER-value-000"],
    ["base64 of other text", b("Authorization: Bearer sk-live-OTHER-value-000").toString("base64")],
    ["hex of other text", b("sk-live-OTHER-value-000").toString("hex")],
    ["a percent-encoded URL", "https://example.test/?q=a%20b%2Fc"],
    ["a prefix of the secret only", SECRET.slice(0, 5)],
  ];
  for (const [label, text] of controls) {
    it(`leaves ${label} unchanged (control)`, () => {
      assert.equal(Buffer.from(redactBytes(b(text), [SECRET])).toString("utf8"), text);
      const redactor = new Redactor({ secrets: [SECRET] });
      assert.equal(redactor.text(text, redactor.secrets()), text);
    });
  }
});
