import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { REDACTED } from "../../runtime/audit/index.js";
import { allStoredText, hostDenial, hostIntent, openTempAuditLog, toolIntent } from "./fixtures.js";

const SECRET = "sk-live-7f3a9c1e5b";

describe("redaction in the audit log", () => {
  it("never lets a secret reach any column, nor the database files", async () => {
    const t = await openTempAuditLog({ redaction: { secrets: [SECRET] } });
    try {
      const intent = await t.log.appendIntent(
        hostIntent({
          args: { url: `https://api.example.com/?key=${SECRET}`, headers: { "x-custom": `Bearer ${SECRET}` }, [SECRET]: true },
          grantedCapabilities: [{ capability: "http.fetch", note: SECRET }],
          approvalResult: `approved with ${SECRET}`,
        }),
      );
      await t.log.appendOutcome(intent, { status: "error", error: { code: "http_401", message: `token ${SECRET} was refused` } });
      await t.log.appendDenial(hostDenial({ denial: { capability: "http.fetch", reason: "not_granted", message: `refused ${SECRET}` } }));
      await t.log.appendIntent(toolIntent({ toolCall: { id: "call-9", name: `tool-${SECRET}` }, args: [SECRET] }));

      const text = await allStoredText(t.store);
      assert.ok(!text.includes(SECRET), "no column holds the secret");
      assert.ok(text.includes(REDACTED), "it was replaced, not dropped");
      assert.ok(text.includes("https://api.example.com/?key="), "the rest of the value is kept (control)");
      await t.store.close();
      for (const name of ["store.db", "store.db-wal"]) {
        const bytes = await readFile(join(t.dir.path, name)).catch(() => Buffer.alloc(0));
        assert.equal(bytes.includes(SECRET), false, `${name} does not contain the secret`);
      }
    } finally {
      await t.cleanup().catch(() => undefined);
    }
  });

  it("stores a value that is not a secret as given (control)", async () => {
    const t = await openTempAuditLog({ redaction: { secrets: [SECRET] } });
    try {
      await t.log.appendIntent(hostIntent({ args: { path: "/work/notes/sk-live.md" } }));
      assert.ok((await allStoredText(t.store)).includes("/work/notes/sk-live.md"));
    } finally {
      await t.cleanup();
    }
  });

  it("caps stored arguments and says so", async () => {
    const t = await openTempAuditLog({ redaction: { maxArgsBytes: 64 } });
    try {
      const big = await t.log.appendIntent(hostIntent({ args: { content: "x".repeat(10_000) } }));
      assert.equal(big.argsTruncated, true);
      assert.equal(big.argsBytes, 10_000 + `{"content":""}`.length);
      assert.ok(Buffer.byteLength(big.args ?? "") <= 64);
      const small = await t.log.appendIntent(hostIntent({ args: { content: "x" } }));
      assert.equal(small.argsTruncated, false, "under the cap (control)");
      assert.equal((await t.log.verify()).ok, true);
    } finally {
      await t.cleanup();
    }
  });
});
