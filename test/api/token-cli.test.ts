import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openTokenStore, type TokenInfo } from "../../runtime/api/auth/index.js";
import { openStore, systemClock } from "../../runtime/store/index.js";
import { cliPlace, clawhiveIn, type CliPlace } from "../cli/fixtures.js";

const TOKEN_TEXT = /^chv_(tok_[0-9a-f]{16})_[A-Za-z0-9_-]{43}$/;
let place: CliPlace;

before(async () => {
  place = await cliPlace("clawhive-cli-token-");
});
after(() => rm(place.root, { recursive: true, force: true }));

/** What the store says of a token text, read through the library. */
async function verify(token: string) {
  const store = await openStore({ url: `file:${join(place.data, "clawhive.db")}` });
  try {
    return await (await openTokenStore(store, { clock: systemClock })).verify(token);
  } finally {
    await store.close();
  }
}

function create(...args: string[]): { token: string; id: string; stderr: string } {
  const result = clawhiveIn(place, "token", "create", ...args);
  assert.equal(result.code, 0, result.stderr);
  const token = result.stdout.trim();
  const id = TOKEN_TEXT.exec(token)?.[1];
  assert.ok(id, `stdout is the token alone: ${JSON.stringify(result.stdout)}`);
  return { token, id, stderr: result.stderr };
}

describe("clawhive token", () => {
  it("list before any store exists: exit 1, and no store is created", () => {
    const result = clawhiveIn(place, "token", "list");
    assert.equal(result.code, 1);
    assert.match(result.stderr, /no store at/);
  });

  it("create prints the token once, on stdout alone; it works against the store", async () => {
    const made = create("--role", "client", "--name", "ci runner");
    assert.match(made.stderr, new RegExp(`created client token ${made.id} \\(ci runner\\).*only time`));
    assert.doesNotMatch(made.stderr, /chv_/);
    assert.deepEqual(await verify(made.token), { tokenId: made.id, role: "client" });
  });

  it("list shows ids, roles and names, never a token (text and --json)", () => {
    const admin = create("--role", "admin");
    const text = clawhiveIn(place, "token", "list");
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, new RegExp(`${admin.id}\\s+admin\\s+active\\s+created \\S+\\s+never used\\s+admin`));
    assert.match(text.stdout, /client\s+active.*ci runner/);
    assert.doesNotMatch(text.stdout, /chv_/);

    const json = clawhiveIn(place, "token", "list", "--json");
    assert.equal(json.code, 0, json.stderr);
    assert.doesNotMatch(json.stdout, /chv_|sha256/);
    const listed = JSON.parse(json.stdout) as TokenInfo[];
    assert.deepEqual(Object.keys(listed[0]!).sort(), ["created_at", "id", "last_used_at", "name", "revoked_at", "role"]);
    assert.ok(listed.some((t) => t.id === admin.id && t.role === "admin"));
  });

  it("revoke refuses the token from then on; again is a no-op; an unknown id is exit 1", async () => {
    const made = create("--role", "approver");
    const revoked = clawhiveIn(place, "token", "revoke", made.id);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal(revoked.stdout.trim(), `revoked approver token ${made.id}`);
    assert.equal(await verify(made.token), undefined);
    assert.match(clawhiveIn(place, "token", "list").stdout, new RegExp(`${made.id}\\s+approver\\s+revoked \\S+`));

    const again = clawhiveIn(place, "token", "revoke", made.id);
    assert.equal(again.code, 0);
    assert.match(again.stdout, /already revoked at/);

    const unknown = clawhiveIn(place, "token", "revoke", "tok_0000000000000000");
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /not found/);
  });

  it("bad usage is exit 2 and creates nothing", () => {
    const before = clawhiveIn(place, "token", "list", "--json").stdout;
    const cases: string[][] = [
      ["create"],
      ["create", "--role", "root"],
      ["create", "--role", "client", "--name", "\u001b[31mred"],
      ["create", "--role", "client", "extra"],
      ["revoke"],
      ["revoke", "../etc"],
      ["revoke", "chv_tok_0000000000000000_x"],
      ["rotate"],
    ];
    for (const args of cases) {
      const result = clawhiveIn(place, "token", ...args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.doesNotMatch(result.stderr, /\u001b/, "a control character is never echoed raw");
    }
    assert.equal(clawhiveIn(place, "token", "list", "--json").stdout, before);
  });

  it("--help describes the roles", () => {
    const help = clawhiveIn(place, "token", "--help");
    assert.equal(help.code, 0);
    assert.match(help.stdout, /approver decides approvals/);
  });
});
