import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { ensureAdminToken, mayReadRun, openTokenStore, type Principal } from "../../runtime/api/auth/index.js";
import { InvalidInputError } from "../../runtime/errors.js";
import { openStore } from "../../runtime/store/index.js";
import { tempDir } from "../helpers/runtime.js";
import { memoryTokens } from "./fixtures.js";

const TOKEN_TEXT = /^chv_(tok_[0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;

describe("the token store", () => {
  it("creates a token whose text exists only in the return value: the store has its SHA-256", async () => {
    const { store, tokens } = await memoryTokens({ now: () => 1_700_000_000_000 });
    const { token, info } = await tokens.create("client", { name: "ci runner" });
    assert.match(token, TOKEN_TEXT);
    assert.equal(TOKEN_TEXT.exec(token)?.[1], info.id);
    assert.deepEqual(info, { id: info.id, name: "ci runner", role: "client", createdAt: 1_700_000_000_000, lastUsedAt: null, revokedAt: null });

    const rows = await store.execute("SELECT * FROM api_tokens");
    assert.equal(rows.rows.length, 1);
    const secret = token.slice(token.lastIndexOf("_", token.length - 44) + 1);
    for (const value of Object.values(rows.rows[0]!)) {
      const text = value instanceof Uint8Array ? Buffer.from(value).toString("latin1") : String(value);
      assert.ok(!text.includes(secret) && !text.includes(token), "no column holds the token or its secret");
    }
    assert.deepEqual(Buffer.from(rows.rows[0]!.secret_sha256 as Uint8Array), createHash("sha256").update(token).digest());
    await store.close();
  });

  it("verifies a token to its principal; refuses wrong, unknown, malformed and revoked ones", async () => {
    const { store, tokens } = await memoryTokens();
    const { token, info } = await tokens.create("approver");
    const other = await tokens.create("admin");
    assert.deepEqual(await tokens.verify(token), { tokenId: info.id, role: "approver" });
    const refused = [
      `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
      `${token.slice(0, 25)}${other.token.slice(25)}`,
      `${other.token.slice(0, 25)}${token.slice(25)}`,
      token.slice(0, -1),
      `${token}A`,
      `chv_tok_ffffffffffffffff_${"A".repeat(43)}`,
      "",
      "chv_",
      token.toUpperCase(),
    ];
    for (const text of refused) assert.equal(await tokens.verify(text), undefined, text);
    const revoked = await tokens.revoke(info.id);
    assert.notEqual(revoked?.revokedAt, null);
    assert.equal(await tokens.verify(token), undefined);
    assert.deepEqual(await tokens.verify(other.token), { tokenId: other.info.id, role: "admin" }, "control: revoking one leaves the other");
    await store.close();
  });

  it("revoke: undefined for an unknown id; a second revoke keeps the first time", async () => {
    let now = 1000;
    const { store, tokens } = await memoryTokens({ now: () => now });
    const { info } = await tokens.create("client");
    assert.equal(await tokens.revoke("tok_0000000000000000"), undefined);
    assert.equal((await tokens.revoke(info.id))?.revokedAt, 1000);
    now = 2000;
    assert.equal((await tokens.revoke(info.id))?.revokedAt, 1000);
    await store.close();
  });

  it("last_used_at is written at most once a minute", async () => {
    let now = 10_000;
    const { store, tokens } = await memoryTokens({ now: () => now });
    const { token, info } = await tokens.create("client");
    await tokens.verify(token);
    assert.equal((await tokens.get(info.id))?.lastUsedAt, 10_000);
    now += 30_000;
    await tokens.verify(token);
    assert.equal((await tokens.get(info.id))?.lastUsedAt, 10_000);
    now += 31_000;
    await tokens.verify(token);
    assert.equal((await tokens.get(info.id))?.lastUsedAt, 71_000);
    await store.close();
  });

  it("refuses a bad role, name or id before touching the store", async () => {
    const { store, tokens } = await memoryTokens();
    const bad: Array<[() => Promise<unknown>, string]> = [
      [() => tokens.create("root" as "admin"), "role"],
      [() => tokens.create("client", { name: "" }), "name"],
      [() => tokens.create("client", { name: "\u001b[2Jhi" }), "name"],
      [() => tokens.create("client", { name: "x".repeat(65) }), "name"],
      [() => tokens.revoke("../tok_0000000000000000"), "id"],
      [() => tokens.get("tok_XYZ"), "id"],
    ];
    for (const [call, field] of bad) {
      await assert.rejects(call, (error: unknown) => error instanceof InvalidInputError && error.field === field);
    }
    assert.deepEqual(await tokens.list(), []);
    await store.close();
  });
});

describe("ensureAdminToken", () => {
  it("creates an admin token on the first start only", async () => {
    const { store, tokens } = await memoryTokens();
    const first = await ensureAdminToken(tokens);
    assert.ok(first);
    assert.equal(first.info.role, "admin");
    assert.deepEqual(await tokens.verify(first.token), { tokenId: first.info.id, role: "admin" });
    assert.equal(await ensureAdminToken(tokens), undefined);
    await tokens.revoke(first.info.id);
    assert.equal(await ensureAdminToken(tokens), undefined, "revoking every token does not re-open first start");
    assert.equal((await tokens.list()).length, 1);
    await store.close();
  });

  it("creates none when tokens were made before the first start", async () => {
    const { store, tokens } = await memoryTokens();
    await tokens.create("client");
    assert.equal(await ensureAdminToken(tokens), undefined);
    await store.close();
  });

  it("two nodes starting at once on one store file make one admin token between them", async () => {
    const dir = await tempDir("clawhive-tokens-");
    const url = `file:${join(dir, "clawhive.db")}`;
    const stores = await Promise.all([openStore({ url }), openStore({ url })]);
    try {
      const nodes = await Promise.all(stores.map((store) => openTokenStore(store, { clock: { now: () => Date.now() } })));
      const made = await Promise.all(nodes.flatMap((node) => [ensureAdminToken(node), ensureAdminToken(node)]));
      assert.equal(made.filter((m) => m !== undefined).length, 1);
      assert.equal((await nodes[0]!.list()).length, 1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("mayReadRun", () => {
  const admin: Principal = { tokenId: "tok_aaaaaaaaaaaaaaaa", role: "admin" };
  const client: Principal = { tokenId: "tok_cccccccccccccccc", role: "client" };
  const approver: Principal = { tokenId: "tok_bbbbbbbbbbbbbbbb", role: "approver" };
  const cases: Array<[Principal, string | null, boolean]> = [
    [admin, "tok_cccccccccccccccc", true],
    [admin, null, true],
    [client, "tok_cccccccccccccccc", true],
    [client, "tok_dddddddddddddddd", false],
    [client, null, false],
    [approver, "tok_bbbbbbbbbbbbbbbb", false],
  ];
  for (const [principal, owner, expected] of cases) {
    it(`${principal.role} on a run owned by ${owner ?? "nobody (CLI)"} → ${expected}`, () => {
      assert.equal(mayReadRun(principal, owner), expected);
    });
  }
});
