import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createApp } from "../../runtime/api/app.js";
import { principalOf, requireRole, type Role, type TokenStore } from "../../runtime/api/auth/index.js";
import type { Store } from "../../runtime/store/index.js";
import { errorOf, listen, memoryTokens, raw, type Listening } from "./fixtures.js";

let store: Store;
let tokens: TokenStore;
let server: Listening;
const token: Record<Role | "revoked", string> = { admin: "", approver: "", client: "", revoked: "" };
const ids: Record<Role | "revoked", string> = { admin: "", approver: "", client: "", revoked: "" };

before(async () => {
  ({ store, tokens } = await memoryTokens());
  for (const role of ["admin", "approver", "client"] as const) {
    const made = await tokens.create(role);
    token[role] = made.token;
    ids[role] = made.info.id;
  }
  const revoked = await tokens.create("client", { name: "revoked one" });
  token.revoked = revoked.token;
  ids.revoked = revoked.info.id;
  await tokens.revoke(revoked.info.id);

  const app = createApp({ version: "test", tokens });
  for (const role of ["admin", "approver", "client"] as const) {
    app.get(`/v1/test/${role}`, requireRole(role), (c) => c.json({ ok: role }));
  }
  // Outside /v1, so `authenticate` never ran: the role check must refuse, not wave it through.
  app.get("/outside", requireRole("client"), (c) => c.json({ ok: true }));
  app.get("/v1/test/whoami", requireRole("admin", "approver", "client"), (c) => c.json(principalOf(c)));
  server = await listen(app);
});
after(async () => {
  await server.close();
  await store.close();
});

const get = (path: string, authorization?: string) =>
  raw(server.port, { path, headers: authorization === undefined ? {} : { Authorization: authorization } });

/** A token of the right shape whose secret is not the stored one. */
function wrongSecret(text: string): string {
  const last = text.at(-1) === "A" ? "B" : "A";
  return `${text.slice(0, -1)}${last}`;
}

describe("authentication: the Authorization header", () => {
  // [what, header (undefined: none), status, error code]
  const cases: Array<[string, () => string | undefined, number, string]> = [
    ["no header", () => undefined, 401, "unauthorized"],
    ["Bearer with no token", () => "Bearer", 400, "invalid_authorization"],
    ["Bearer and spaces only", () => "Bearer    ", 400, "invalid_authorization"],
    ["another scheme (Basic)", () => "Basic dXNlcjpwYXNz", 400, "invalid_authorization"],
    ["another scheme (Token)", () => `Token ${token.client}`, 400, "invalid_authorization"],
    ["the token with no scheme", () => token.client, 400, "invalid_authorization"],
    ["two tokens", () => `Bearer ${token.client} ${token.admin}`, 400, "invalid_authorization"],
    ["Bearer a b", () => "Bearer a b", 400, "invalid_authorization"],
    ["a comma list", () => `Bearer ${token.client},x`, 400, "invalid_authorization"],
    ["non-ASCII in the token", () => `Bearer ${token.client}\u00e9`, 400, "invalid_authorization"],
    ["a quote in the token", () => `Bearer "${token.client}"`, 400, "invalid_authorization"],
    ["a well-formed token68 that is not ours", () => "Bearer abcdef", 401, "unauthorized"],
    ["an unknown id", () => `Bearer chv_tok_0123456789abcdef_${"A".repeat(43)}`, 401, "unauthorized"],
    ["a known id with a wrong secret", () => `Bearer ${wrongSecret(token.client)}`, 401, "unauthorized"],
    ["one id with another token's secret", () => `Bearer ${token.client.slice(0, 24)}${token.admin.slice(24)}`, 401, "unauthorized"],
    ["a revoked token", () => `Bearer ${token.revoked}`, 401, "unauthorized"],
    ["a truncated token", () => `Bearer ${token.admin.slice(0, -1)}`, 401, "unauthorized"],
  ];
  for (const [what, header, status, code] of cases) {
    it(`${what} → ${status}`, async () => {
      const response = await get("/v1/test/client", header());
      assert.equal(response.status, status, response.text);
      assert.equal(errorOf(response.text).code, code);
      assert.match(String(response.headers["www-authenticate"]), /^Bearer /);
      assert.equal(response.headers["content-type"], "application/json");
      assert.doesNotMatch(response.text, /chv_/, "an error never echoes a token");
    });
  }

  it("controls: the right token passes, the scheme in any case (RFC 7235)", async () => {
    for (const header of [`Bearer ${token.client}`, `bearer ${token.client}`, `BEARER ${token.client}`]) {
      const response = await get("/v1/test/client", header);
      assert.equal(response.status, 200, `${header.split(" ")[0]}: ${response.text}`);
    }
  });

  it("a 401 says which challenge: realm when missing, invalid_token when wrong", async () => {
    assert.equal((await get("/v1/test/client")).headers["www-authenticate"], 'Bearer realm="clawhive"');
    assert.equal((await get("/v1/test/client", `Bearer ${token.revoked}`)).headers["www-authenticate"], 'Bearer error="invalid_token"');
    assert.equal((await get("/v1/test/client", "Basic x")).headers["www-authenticate"], 'Bearer error="invalid_request"');
  });

  it("a role check on a route authenticate never ran for refuses (401), even with a valid token", async () => {
    const response = await get("/outside", `Bearer ${token.admin}`);
    assert.equal(response.status, 401);
    assert.equal(errorOf(response.text).code, "unauthorized");
  });

  it("/health needs no token; an unknown /v1 route needs one before it is a 404", async () => {
    assert.equal((await get("/health")).status, 200);
    assert.equal((await get("/v1/nothing-here")).status, 401);
    const known = await get("/v1/nothing-here", `Bearer ${token.client}`);
    assert.equal(known.status, 404);
    assert.equal(errorOf(known.text).code, "not_found");
  });
});

describe("authorisation: each role against each route", () => {
  const matrix: Array<[Role, Role, number]> = [
    ["admin", "admin", 200],
    ["admin", "approver", 200],
    ["admin", "client", 200],
    ["approver", "admin", 403],
    ["approver", "approver", 200],
    ["approver", "client", 403],
    ["client", "admin", 403],
    ["client", "approver", 403],
    ["client", "client", 200],
  ];
  for (const [holder, route, status] of matrix) {
    it(`${holder} token on a ${route} route → ${status}`, async () => {
      const response = await get(`/v1/test/${route}`, `Bearer ${token[holder]}`);
      assert.equal(response.status, status, response.text);
      if (status === 403) {
        const error = errorOf(response.text);
        assert.equal(error.code, "forbidden");
        assert.match(error.message, new RegExp(`role ${route}.*has the role ${holder}`));
      } else {
        assert.deepEqual(JSON.parse(response.text), { ok: route });
      }
    });
  }

  it("the route sees who called: c.get('principal') is the token id and role", async () => {
    for (const role of ["admin", "approver", "client"] as const) {
      const response = await get("/v1/test/whoami", `Bearer ${token[role]}`);
      assert.deepEqual(JSON.parse(response.text), { tokenId: ids[role], role });
    }
  });

  it("a use is recorded as last_used_at; a refused token's is not", async () => {
    assert.notEqual((await tokens.get(ids.client))?.lastUsedAt, null);
    assert.equal((await tokens.get(ids.revoked))?.lastUsedAt, null);
  });

  it("a token revoked while the server runs is refused from the next request", async () => {
    const made = await tokens.create("client", { name: "short lived" });
    assert.equal((await get("/v1/test/client", `Bearer ${made.token}`)).status, 200);
    await tokens.revoke(made.info.id);
    assert.equal((await get("/v1/test/client", `Bearer ${made.token}`)).status, 401);
  });
});
