/**
 * A client generated from `/v1/openapi.json` (openapi-typescript) types the API's bodies: a few
 * calls through openapi-fetch type-check strictly, and misuse (a camelCase field, a missing
 * required field, a wrong status value) does not.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import openapiTS from "openapi-typescript";
import createClient from "openapi-fetch";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "./routes-fixtures.js";

const run = promisify(execFile);
let f: ApiFixture;
let dir: string;

before(async () => {
  f = await apiFixture();
  // Under the project, so the generated client resolves openapi-fetch from its node_modules.
  dir = await mkdtemp(join(PROJECT_ROOT, "dist", "contract-client-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
  await f.close();
});

const CLIENT = `import createClient from "openapi-fetch";
import type { paths } from "./api.js";

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:1" });

export async function calls(): Promise<void> {
  const one = await client.GET("/v1/runs/{id}", { params: { path: { id: "run_1" } } });
  if (one.data !== undefined) {
    const trace: string = one.data.run.trace_id;
    const status: "active" | "awaiting_approval" | "ended" = one.data.run.status;
    const first = one.data.run.outcomes[0];
    if (first?.status === "error") {
      const kind: string = first.error.kind;
      void kind;
    }
    const report = one.data.run.report;
    const waited: number | undefined = report?.tool_calls.approval_required;
    // @ts-expect-error the API's names are snake_case
    void one.data.run.traceId;
    void trace, status, waited;
  }
  if (one.error !== undefined) {
    const code: string = one.error.error.code;
    void code;
  }
  const page = await client.GET("/v1/runs", { params: { query: { limit: "10" } } });
  const next: string | null | undefined = page.data?.next_cursor;
  void next;
  const started = await client.POST("/v1/runs", { params: { header: { "Idempotency-Key": "k1" } }, body: { agent: "a", tool_calls: [{ name: "p.t", input: {} }] } });
  const runId: string | undefined = started.data?.run.id;
  void runId;
  // @ts-expect-error agent is required
  await client.POST("/v1/runs", { body: { task: "t" } });
  const approvals = await client.GET("/v1/approvals", { params: { query: { status: "pending" } } });
  for (const a of approvals.data?.approvals ?? []) {
    const runOf: string = a.run_id;
    const sources: string[] = a.untrusted_sources;
    void runOf, sources;
  }
  const audit = await client.GET("/v1/audit", {});
  const seq: number | undefined = audit.data?.records[0]?.seq;
  void seq;
  // @ts-expect-error status is one of the documented values
  const wrong: "finished" = one.data!.run.status;
  void wrong;
}
`;

const TSCONFIG = {
  compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noUncheckedIndexedAccess: true, noEmit: true, skipLibCheck: true, types: [], lib: ["ES2022", "DOM"] },
  files: ["client.ts", "api.d.ts"],
};

test("a generated client type-checks typed calls strictly and refuses misuse", async () => {
  const document = (await call(f, "GET", "/v1/openapi.json")).body;
  const types = await openapiTS(document);
  assert.match(types, /trace_id: string/, "run bodies are typed, not {}");
  await writeFile(join(dir, "api.d.ts"), types);
  await writeFile(join(dir, "client.ts"), CLIENT);
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG));
  const tsc = join(PROJECT_ROOT, "node_modules", "typescript", "bin", "tsc");
  const checked = await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")]).then(
    () => ({ ok: true, out: "" }),
    (error: { stdout?: string }) => ({ ok: false, out: error.stdout ?? String(error) }),
  );
  assert.ok(checked.ok, checked.out);

  // The control: the same client with a field the API does not have fails to compile.
  await writeFile(join(dir, "client.ts"), CLIENT.replace("one.data.run.trace_id;", "one.data.run.traceId;"));
  const broken = await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")]).then(
    () => "",
    (error: { stdout?: string }) => error.stdout ?? "failed",
  );
  assert.match(broken, /traceId/);
});

test("the generated client's calls work against a real server", async () => {
  const agent = await defineTestAgent(f.runtime, "typed");
  const client = createClient<Record<string, never>>({ baseUrl: f.server.base, headers: { authorization: `Bearer ${f.token.client}` } });
  const post = client.POST as unknown as (path: string, init: unknown) => Promise<{ data?: { run: { id: string; trace_id: string } }; response: Response }>;
  const key = { params: { header: { "Idempotency-Key": "same-key" } }, body: { agent, tool_calls: [{ name: "probe.count", input: {} }] } };
  const first = await post("/v1/runs", key);
  assert.equal(first.response.status, 202);
  assert.match(first.data!.run.trace_id, /^[0-9a-f]{32}$/);
  const again = await post("/v1/runs", key);
  assert.equal(again.response.headers.get("idempotent-replayed"), "true");
  assert.equal(again.data!.run.id, first.data!.run.id, "a retried POST answers the first run");
});
