import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { InvalidInputError } from "../../runtime/errors.js";
import { SecretError } from "../../runtime/secrets/index.js";
import { T0, withPlace } from "./_fixtures.js";

function isSecretError(code: string, pattern?: RegExp) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof SecretError, `expected SecretError, got ${String(error)}`);
    assert.equal(error.code, code);
    if (pattern) assert.match(error.message, pattern);
    return true;
  };
}

describe("SecretStore", () => {
  it("round trip: set, get, has, list, remove", () =>
    withPlace(async (p) => {
      const { secrets } = await p.open();
      const created = await secrets.set("openai_api_key", "sk-proj-0123456789");
      assert.deepEqual(created, { name: "openai_api_key", createdAt: T0, updatedAt: T0 });
      assert.equal(await secrets.get("openai_api_key"), "sk-proj-0123456789");
      assert.equal(await secrets.has("openai_api_key"), true);
      assert.equal(await secrets.has("other"), false);

      p.clock.advance(1000);
      const updated = await secrets.set("openai_api_key", "sk-proj-rotated");
      assert.deepEqual(updated, { name: "openai_api_key", createdAt: T0, updatedAt: T0 + 1000 });
      assert.equal(await secrets.get("openai_api_key"), "sk-proj-rotated");

      await secrets.set("github-token", "ghp_ünïcødé 🔑 value");
      assert.equal(await secrets.get("github-token"), "ghp_ünïcødé 🔑 value");
      assert.deepEqual((await secrets.list()).map((s) => s.name), ["github-token", "openai_api_key"]);
      assert.deepEqual((await secrets.values()).sort(), ["ghp_ünïcødé 🔑 value", "sk-proj-rotated"]);

      assert.equal(await secrets.remove("openai_api_key"), true);
      assert.equal(await secrets.remove("openai_api_key"), false);
      assert.equal(await secrets.has("openai_api_key"), false);
    }));

  it("survives a reopen with the same (auto-created) key", () =>
    withPlace(async (p) => {
      const first = await p.open();
      await first.secrets.set("token", "persisted-value");
      await first.store.close();
      const second = await p.open();
      assert.equal(second.secrets.keyId, first.secrets.keyId);
      assert.equal(await second.secrets.get("token"), "persisted-value");
    }));

  it("get of a missing secret: a clear 404 SecretError naming it and what to do", () =>
    withPlace(async (p) => {
      const { secrets } = await p.open();
      await assert.rejects(secrets.get("missing"), (error: unknown) => {
        isSecretError("secret_not_found", /^secret missing: not found; add it with `clawhive secret set missing`$/)(error);
        assert.equal((error as SecretError).status, 404);
        return true;
      });
    }));

  it("list shows names and times, never values", () =>
    withPlace(async (p) => {
      const { secrets } = await p.open();
      await secrets.set("alpha", "value-alpha-123");
      const listed = await secrets.list();
      assert.deepEqual(listed, [{ name: "alpha", createdAt: T0, updatedAt: T0 }]);
      assert.ok(!JSON.stringify(listed).includes("value-alpha-123"));
    }));

  it("names and values are validated; controls are accepted", async () => {
    const bad: Array<[string, string, RegExp]> = [
      ["", "v-1234", /secret name: must match/],
      ["Upper", "v-1234", /secret name: must match/],
      ["1leading-digit", "v-1234", /secret name: must match/],
      ["has space", "v-1234", /secret name: must match/],
      ["dots.not.allowed", "v-1234", /secret name: must match/],
      ["a".repeat(65), "v-1234", /got 65 characters/],
      ["ok", "", /the value is empty/],
      ["ok", "x".repeat(64 * 1024 + 1), /more than the 65536 allowed/],
      ["ok", "é".repeat(32 * 1024 + 1), /more than the 65536 allowed/],
      ["ok", "lone \ud800 surrogate", /not well-formed Unicode/],
    ];
    const good: Array<[string, string]> = [
      ["a", "v"],
      ["a".repeat(64), "x".repeat(64 * 1024)],
      ["with_under-and-dash9", "multi\nline\r\nvalue\u0000with nul"],
    ];
    await withPlace(async (p) => {
      const { secrets } = await p.open();
      for (const [name, value, pattern] of bad) {
        await assert.rejects(secrets.set(name, value), (error: unknown) => {
          assert.ok(error instanceof InvalidInputError, `${name}: ${String(error)}`);
          assert.match(error.message, pattern);
          return true;
        });
      }
      for (const [name, value] of good) {
        await secrets.set(name, value);
        assert.equal(await secrets.get(name), value);
      }
    });
  });

  it("an invalid name is never echoed (it may be a pasted value)", () =>
    withPlace(async (p) => {
      const { secrets } = await p.open();
      await assert.rejects(secrets.get("sk-LIVE-SECRET"), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError);
        assert.ok(!error.message.includes("sk-LIVE-SECRET"), error.message);
        return true;
      });
    }));
});

describe("encryption at rest", () => {
  it("the value never reaches the database files in plaintext; control: the name does", () =>
    withPlace(async (p) => {
      const canary = "plaintext-canary-7f3a9c1e";
      const { store, secrets } = await p.open();
      await secrets.set("canary_name", canary);
      await secrets.set("big", `${canary}-${"z".repeat(5000)}`);
      await store.close();
      const files = (await readdir(p.dataDir)).filter((f) => f.startsWith("clawhive.db"));
      // -wal and -shm come and go with connections: read what is there.
      const bytes = Buffer.concat(await Promise.all(files.map((f) => readFile(join(p.dataDir, f)).catch(() => Buffer.alloc(0)))));
      assert.ok(bytes.length > 0);
      assert.equal(bytes.indexOf(canary), -1, "plaintext value found in the database files");
      assert.ok(bytes.indexOf("canary_name") >= 0, "control: the scan does see what is stored");
      const reopened = await p.open();
      assert.equal(await reopened.secrets.get("canary_name"), canary);
    }));

  it("every write gets a fresh 12-byte nonce, so equal values seal differently", () =>
    withPlace(async (p) => {
      const { store, secrets } = await p.open();
      const written: Array<{ nonce: string; ciphertext: string }> = [];
      for (let i = 0; i < 50; i++) {
        const name = i % 2 === 0 ? "same" : `n${i}`; // rewrites of one name and writes of many
        await secrets.set(name, "identical value");
        const row = (await store.execute({ sql: "SELECT nonce, ciphertext FROM secrets WHERE name = ?", args: [name] })).rows[0]!;
        assert.equal((row.nonce as Uint8Array).length, 12);
        written.push({ nonce: Buffer.from(row.nonce as Uint8Array).toString("hex"), ciphertext: Buffer.from(row.ciphertext as Uint8Array).toString("hex") });
      }
      assert.equal(new Set(written.map((w) => w.nonce)).size, 50, "a nonce was reused");
      assert.equal(new Set(written.map((w) => w.ciphertext)).size, 50, "equal plaintexts sealed to equal ciphertexts");
      assert.equal(await secrets.get("same"), "identical value");
    }));

  it("the name is bound: swapping two rows' ciphertexts fails with a clear error; control: unswapped rows read", () =>
    withPlace(async (p) => {
      const { store, secrets } = await p.open();
      await secrets.set("first", "value-of-first");
      await secrets.set("second", "value-of-second");
      await store.batch([
        "CREATE TEMP TABLE saved AS SELECT name, nonce, ciphertext, tag FROM secrets",
        `UPDATE secrets SET
           nonce = (SELECT nonce FROM saved WHERE saved.name <> secrets.name),
           ciphertext = (SELECT ciphertext FROM saved WHERE saved.name <> secrets.name),
           tag = (SELECT tag FROM saved WHERE saved.name <> secrets.name)`,
        "DROP TABLE saved",
      ]);
      for (const name of ["first", "second"]) {
        await assert.rejects(secrets.get(name), isSecretError("secret_undecryptable", new RegExp(`^secret ${name}: does not decrypt under key id [0-9a-f]{16} — .*altered or belong to another secret`)));
      }
      await assert.rejects(secrets.values(), isSecretError("secret_undecryptable"));
      // Control: swap back and both read again.
      await store.batch([
        "CREATE TEMP TABLE saved AS SELECT name, nonce, ciphertext, tag FROM secrets",
        `UPDATE secrets SET
           nonce = (SELECT nonce FROM saved WHERE saved.name <> secrets.name),
           ciphertext = (SELECT ciphertext FROM saved WHERE saved.name <> secrets.name),
           tag = (SELECT tag FROM saved WHERE saved.name <> secrets.name)`,
        "DROP TABLE saved",
      ]);
      assert.equal(await secrets.get("first"), "value-of-first");
      assert.equal(await secrets.get("second"), "value-of-second");
    }));

  it("tampered bytes fail with a clear error, not a crash; control: an untouched secret still reads", async () => {
    const flipFirst = (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === 0 ? x ^ 0x01 : x));
    const flipLast = (b: Uint8Array) => Uint8Array.from(b, (x, i) => (i === b.length - 1 ? x ^ 0x80 : x));
    const tamper: Array<[string, "nonce" | "ciphertext" | "tag", (b: Uint8Array) => Uint8Array]> = [
      ["one ciphertext bit", "ciphertext", flipFirst],
      ["one tag bit", "tag", flipLast],
      ["one nonce bit", "nonce", flipFirst],
      ["truncated ciphertext", "ciphertext", (b) => b.subarray(0, 3)],
      ["extended ciphertext", "ciphertext", (b) => Uint8Array.from([...b, 0])],
    ];
    await withPlace(async (p) => {
      const { store, secrets } = await p.open();
      await secrets.set("bystander", "bystander-value");
      for (const [what, column, change] of tamper) {
        await secrets.set("victim", "victim-value-long-enough");
        const row = (await store.execute(`SELECT ${column} AS bytes FROM secrets WHERE name = 'victim'`)).rows[0]!;
        await store.execute({ sql: `UPDATE secrets SET ${column} = ? WHERE name = 'victim'`, args: [change(row.bytes as Uint8Array)] });
        await assert.rejects(secrets.get("victim"), isSecretError("secret_undecryptable", /^secret victim: does not decrypt/), what);
        assert.equal(await secrets.get("bystander"), "bystander-value");
      }
    });
  });

  it("a row sealed under another key id says which key it needs", () =>
    withPlace(async (p) => {
      const { store, secrets } = await p.open();
      await secrets.set("old", "old-value-1234");
      await store.execute({ sql: "INSERT INTO secret_keys (key_id, active, created_at) VALUES ('00000000deadbeef', 0, 0)" });
      await store.execute("UPDATE secrets SET key_id = '00000000deadbeef'");
      await assert.rejects(secrets.get("old"), isSecretError("secret_undecryptable", new RegExp(`sealed with key id 00000000deadbeef, but this runtime's key has id ${secrets.keyId}`)));
    }));
});
