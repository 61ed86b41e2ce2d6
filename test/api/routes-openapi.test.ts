import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { documentedRoutes } from "../../runtime/api/openapi.js";
import { apiFixture, call, type ApiFixture, type TokenName } from "./routes-fixtures.js";

let f: ApiFixture;

before(async () => {
  f = await apiFixture();
});
after(() => f.close());

type Role = "admin" | "approver" | "client";

/** Every route this API declares and who may call it (admin may call all); `public` needs no token. */
const ROUTES: ReadonlyArray<[route: string, roles: readonly Role[] | "public"]> = [
  ["GET /health", "public"],
  ["GET /ready", "public"],
  ["GET /v1/skills", ["client"]],
  ["GET /v1/skills/:name", ["client"]],
  ["GET /v1/schedules", ["client", "approver"]],
  ["POST /v1/schedules", ["client"]],
  ["GET /v1/schedules/:id", ["client", "approver"]],
  ["DELETE /v1/schedules/:id", ["client"]],
  ["GET /v1/plugins", ["admin"]],
  ["POST /v1/plugins", ["admin"]],
  ["POST /v1/plugins/proposals", ["admin"]],
  ["GET /v1/plugins/:name", ["admin"]],
  ["POST /v1/plugins/:name/upgrade", ["admin"]],
  ["GET /v1/plugins/upgrades", ["admin"]],
  ["GET /v1/plugins/:name/upgrade", ["admin"]],
  ["POST /v1/plugins/:name/upgrade/accept", ["admin"]],
  ["DELETE /v1/plugins/:name/upgrade", ["admin"]],
  ["DELETE /v1/plugins/:name", ["admin"]],
  ["GET /v1/plugin-keys", ["admin"]],
  ["POST /v1/plugin-keys", ["admin"]],
  ["POST /v1/plugin-keys/:key_id/revoke", ["admin"]],
  ["GET /v1/agents", ["admin"]],
  ["GET /v1/agents/:name", ["admin"]],
  ["PUT /v1/agents/:name", ["admin"]],
  ["DELETE /v1/agents/:name", ["admin"]],
  ["POST /v1/agents/validate", ["admin"]],
  ["GET /v1/agents/:name/memory", ["admin", "approver"]],
  ["POST /v1/agents/:name/memory", ["admin"]],
  ["GET /v1/agents/:name/mcp-servers/:server", ["admin"]],
  ["POST /v1/agents/:name/mcp-servers/:server/accept", ["admin"]],
  ["DELETE /v1/agents/:name/memory/:episode", ["admin"]],
  ["GET /v1/agents/:name/memory-file", ["admin", "approver"]],
  ["PUT /v1/agents/:name/memory-file", ["admin"]],
  ["GET /v1/tools", ["admin", "client"]],
  ["GET /v1/approvals", ["admin", "approver"]],
  ["GET /v1/approvals/:id", ["admin", "approver"]],
  ["POST /v1/approvals/:id", ["admin", "approver"]],
  ["GET /v1/approval-patterns", ["admin", "approver"]],
  ["GET /v1/approval-patterns/:id", ["admin", "approver"]],
  ["DELETE /v1/approval-patterns/:id", ["admin", "approver"]],
  ["GET /v1/audit", ["admin", "client"]],
  ["GET /v1/audit/verify", ["admin"]],
  ["GET /v1/audit/:seq", ["admin", "client"]],
  ["GET /v1/secrets", ["admin"]],
  ["GET /v1/secrets/:name", ["admin"]],
  ["PUT /v1/secrets/:name", ["admin"]],
  ["DELETE /v1/secrets/:name", ["admin"]],
  ["GET /v1/openapi.json", ["admin", "approver", "client"]],
  ["GET /v1/conversations/:id", ["approver", "client"]],
  ["GET /v1/conversations/:id/compactions", ["approver", "client"]],
  ["POST /v1/conversations/:id/compactions/:n/undo", ["client"]],
];

/** A path a request can be sent to: parameters filled with names that exist nowhere. */
const concrete = (path: string) => path.replace(":name", "zz-none").replace(":id", "apr_none");

test("/v1/openapi.json is OpenAPI 3.1 and lists every route with the roles that may call it", async () => {
  const answer = await call(f, "GET", "/v1/openapi.json", { token: f.token.client });
  assert.equal(answer.status, 200);
  const doc = answer.body;
  assert.equal(doc.openapi, "3.1.0");
  const listed = documentedRoutes(doc).filter((r) => !r.includes("/v1/runs"));
  assert.deepEqual(listed.sort(), ROUTES.map(([r]) => r).sort());
  for (const [route, roles] of ROUTES) {
    const [method, path] = route.split(" ") as [string, string];
    const op = doc.paths[path.replace(/:(\w+)/g, "{$1}")][method.toLowerCase()];
    assert.deepEqual(op["x-roles"].sort(), roles === "public" ? [] : [...new Set<string>(["admin", ...roles])].sort(), route);
    assert.deepEqual(op.security, roles === "public" ? [] : [{ bearer: [] }], route);
    if (roles !== "public") assert.ok(op.responses["401"] && op.responses["403"], `${route} documents 401 and 403`);
  }
});

test("the request schemas in the document are the ones that validate", async () => {
  const doc = (await call(f, "GET", "/v1/openapi.json")).body;
  const secret = doc.paths["/v1/secrets/{name}"].put;
  assert.deepEqual(secret.requestBody.content["application/json"].schema.required, ["value"]);
  assert.equal(secret.parameters[0].name, "name");
  assert.equal(secret.parameters[0].in, "path");
  assert.ok(secret.parameters[0].schema.pattern, "the name's pattern");
  const decide = doc.paths["/v1/approvals/{id}"].post.requestBody.content["application/json"].schema;
  assert.deepEqual(decide.properties.decision.enum, ["approve", "deny"]);
  assert.equal(decide.additionalProperties, false);
  const install = doc.paths["/v1/plugins"].post.requestBody.content;
  assert.deepEqual(Object.keys(install).sort(), ["application/gzip", "application/json", "application/x-gzip"]);
  const audit = doc.paths["/v1/audit"].get.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`);
  assert.ok(audit.includes("query:cursor:false") && audit.includes("query:limit:false"), audit.join(" "));
  const agentPut = doc.paths["/v1/agents/{name}"].put.requestBody.content;
  assert.ok(agentPut["application/json"].schema.properties.grants, "the agent manifest's JSON form");
  assert.equal(agentPut["application/yaml"].schema.type, "string");
});

describe("the role matrix: a role not allowed gets 403 (nothing runs); an allowed one gets past the role check", () => {
  for (const [route, roles] of ROUTES) {
    if (roles === "public") continue;
    test(route, async () => {
      const [method, path] = route.split(" ") as [string, string];
      for (const token of ["admin", "approver", "client"] as const satisfies readonly TokenName[]) {
        const answer = await call(f, method, concrete(path), { token: f.token[token] });
        const allowed = token === "admin" || roles.includes(token);
        if (allowed) assert.ok(answer.status !== 401 && answer.status !== 403, `${token}: ${answer.status} ${answer.text}`);
        else assert.equal(answer.status, 403, `${token}: ${answer.text}`);
      }
      const anonymous = await call(f, method, concrete(path), { token: "" });
      assert.equal(anonymous.status, 401);
    });
  }
});
