/** Gmail API message parts: decoded body text is capped per message; parts past the cap are not decoded. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { partsOf, type GmailMessagePart } from "../../../host-proxies/gmail/api/parts.js";
import { TRUNCATED_NOTE } from "../../../host-proxies/gmail/local/parse.js";

const text = (body: string, mimeType = "text/plain"): GmailMessagePart => ({ mimeType, body: { data: Buffer.from(body).toString("base64url") } });
const multipart = (...parts: GmailMessagePart[]): GmailMessagePart => ({ mimeType: "multipart/mixed", parts });

test("gmail parts: decoded text past the cap is cut with the truncation note; under it is the control", () => {
  const cap = 3000;
  const cases: Array<[string, GmailMessagePart, string | undefined, boolean]> = [
    ["one part under the cap", text("a".repeat(2000)), "a".repeat(2000), false],
    ["two parts under the cap together", multipart(text("a".repeat(1000)), text("b".repeat(1000))), `${"a".repeat(1000)}\n${"b".repeat(1000)}`, false],
    ["one part past the cap", text("c".repeat(4000)), "", true],
    ["a second part past the cap", multipart(text("a".repeat(2000)), text("b".repeat(2000))), "a".repeat(2000), true],
    ["html past the cap, plain kept", multipart(text("p".repeat(100)), text("<p>x</p>".repeat(1000), "text/html")), "p".repeat(100), true],
    ["many small parts", multipart(...Array.from({ length: 100 }, () => text("z".repeat(60)))), undefined, true],
  ];
  for (const [name, payload, plain, truncated] of cases) {
    const parts = partsOf(payload, { maxTextBytes: cap });
    const decoded = (parts.plain ?? "").length + (parts.html ?? "").length;
    // The cap counts decoded bytes; the joins between parts and the note come on top.
    const joins = (parts.plain?.split("\n").length ?? 0) + (parts.html?.split("<br/>").length ?? 0);
    assert.ok(decoded <= cap + TRUNCATED_NOTE.length + 2 + joins * 5, `${name}: ${decoded} characters decoded`);
    assert.equal(parts.plain?.endsWith(TRUNCATED_NOTE) ?? false, truncated, name);
    if (plain !== undefined) assert.equal(truncated ? parts.plain?.slice(0, -TRUNCATED_NOTE.length).trimEnd() : parts.plain, plain, name);
  }
});
