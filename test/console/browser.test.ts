/**
 * The console in a real Chromium against the shipped `bin/clawhive.js serve`: sign in, see a
 * pending approval appear live, approve it, watch the run end, find its records in the audit
 * view, verify the chain; a client cannot decide. Each page is screenshotted to
 * `.clawhive/console-screenshots/` (git-ignored).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import { BIN, cliPlace, type CliPlace } from "../cli/fixtures.js";
import { cleanEnv, serve, type Served } from "../cli/client-fixtures.js";

const CHROMIUM = "/usr/bin/chromium";
const ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const SHOTS = join(PROJECT_ROOT, ".clawhive", "console-screenshots");
const required = process.env.CLAWHIVE_REQUIRE_SANDBOX === "1";
const skip = !existsSync(CHROMIUM) && !required ? "chromium is not installed (apt-get install chromium)" : false;

let place: CliPlace;
let server: Served;
let profiles: string;
const contexts: BrowserContext[] = [];

before(async () => {
  if (skip) return;
  place = await cliPlace("clawhive-console-");
  server = await serve(place);
  profiles = await mkdtemp(join(tmpdir(), "clawhive-chromium-"));
  await mkdir(SHOTS, { recursive: true });
});
after(async () => {
  for (const context of contexts) await context.close().catch(() => undefined);
  await server?.stop();
  if (place) await rm(place.root, { recursive: true, force: true });
  if (profiles) await rm(profiles, { recursive: true, force: true });
});

/** A fresh Chromium profile (its own `--user-data-dir`) signed in with `token`. */
async function signedIn(name: string, token: string): Promise<Page> {
  const context = await chromium.launchPersistentContext(join(profiles, name), { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1000, height: 720 } });
  contexts.push(context);
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/`);
  assert.match(page.url(), /\/sign-in/);
  await page.getByLabel("API token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

function tokenFor(role: string): string {
  const made = spawnSync(process.execPath, [BIN, "token", "create", "--role", role, "--data-dir", place.data], { encoding: "utf8", env: cleanEnv() });
  assert.equal(made.status, 0, made.stderr);
  return made.stdout.trim();
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, { method, headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, body: await response.json() };
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });

test("sign in, a pending approval appears live, approve it, the run ends, its audit records, the chain verifies; a client cannot decide", { skip, timeout: 180_000 }, async () => {
  const page = await signedIn("admin", server.token);
  await page.waitForURL(/\/approvals$/);
  await page.getByText("No pending approvals.").waitFor();
  await shot(page, "approvals-empty");

  // A Guarded write waits for a person; the open page shows it without a reload.
  const started = await api("POST", "/v1/runs", { agent: "writer", task: "write the report <b>now</b> \u202eplease", tool_calls: [{ name: "files.write_file", input: { path: "/workspace/report.txt", content: "hello <script>x</script>\u202e" } }] });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const runId: string = started.body.run.id;
  const card = page.locator("#approval-list li.approval");
  await card.first().waitFor({ timeout: 30_000 });
  assert.match(await card.first().innerText(), /files\.write_file/);
  await shot(page, "approvals-live");

  await card.first().getByRole("link").click();
  await page.waitForURL(/\/approvals\/apr_/);
  const approvalId = page.url().split("/").pop()!;
  const exact = await page.locator('pre[data-label="arguments"]').innerText();
  assert.match(exact, /"content": "hello <script>x<\/script>\\u202e"/, "the exact arguments, shown as text, the bidi override escaped");
  assert.match(await page.locator("dl.facts").innerText(), /\\u\{202e\}please/, "the bidi override is shown, not obeyed");
  await shot(page, "approval-decide");
  await page.getByRole("button", { name: "Approve once" }).click();
  await page.getByText("Decision recorded: approve").waitFor();

  // The decision continues the run; its page streams its events to the end.
  await page.goto(`${server.url}/runs/${runId}`);
  await page.locator("#run-events li.event-run-ended").waitFor({ timeout: 60_000 });
  assert.ok((await page.locator("#run-events li").count()) >= 2, "several events streamed");
  const streamed = await page.locator("#run-events").innerText();
  assert.match(streamed, /<script>x<\/script>\\u\{202e\}/, "streamed text is shown inert");
  assert.doesNotMatch(streamed, /\u202e/);
  await shot(page, "run-events");
  await page.reload();
  await page.locator("#report").waitFor();

  await page.goto(`${server.url}/runs`);
  await page.getByRole("link", { name: runId }).waitFor();
  await shot(page, "runs");

  await page.goto(`${server.url}/audit?run_id=${runId}&order=asc`);
  const records = page.locator("ol.records li.record");
  assert.ok((await records.count()) >= 2, "intent and outcome at least");
  assert.match(await page.locator("ol.records").innerText(), /files\.write_file/);
  await records.first().locator("summary").click();
  assert.match(await records.first().locator("pre").innerText(), new RegExp(runId));
  await shot(page, "audit");
  await page.getByRole("button", { name: "Verify chain" }).click();
  await page.waitForURL(/\/audit\/verify/);
  assert.equal(await page.locator("#verify-result").innerText(), "Chain verified: intact.");
  await shot(page, "audit-verify");

  for (const [path, name] of [["/plugins", "plugins"], ["/agents", "agents"], ["/agents/writer", "agent"]] as const) {
    await page.goto(`${server.url}${path}`);
    await page.locator("main h1").waitFor();
    await shot(page, name);
  }
  assert.match(await page.locator("main").innerText(), /fs\.write/);

  // A client signs in, sees no approvals, and cannot decide one.
  const second = await api("POST", "/v1/runs", { agent: "writer", tool_calls: [{ name: "files.write_file", input: { path: "/workspace/two.txt", content: "2" } }] });
  const pendingId: string = second.body.run.pending_approval?.id ?? (await api("GET", `/v1/approvals?run_id=${second.body.run.id}`)).body.approvals[0].id;
  const client = await signedIn("client", tokenFor("client"));
  await client.waitForURL(/\/runs$/);
  assert.equal(await client.getByRole("link", { name: "Approvals" }).count(), 0);
  const answer = await client.goto(`${server.url}/approvals/${pendingId}`);
  assert.equal(answer?.status(), 403);
  assert.equal(await client.getByRole("button", { name: /Approve/ }).count(), 0);
  await shot(client, "client-cannot-decide");
  assert.equal((await api("GET", `/v1/approvals/${pendingId}`)).body.approval.status, "pending");
  assert.equal((await api("GET", `/v1/approvals/${approvalId}`)).body.approval.status, "used");

  // The approve path needs no script: the same decision with JavaScript off.
  const plain = await chromium.launchPersistentContext(join(profiles, "nojs"), { executablePath: CHROMIUM, headless: true, args: ARGS, javaScriptEnabled: false });
  contexts.push(plain);
  const p = plain.pages()[0] ?? (await plain.newPage());
  await p.goto(`${server.url}/sign-in`);
  await p.getByLabel("API token").fill(tokenFor("approver"));
  await p.getByRole("button", { name: "Sign in" }).click();
  await p.goto(`${server.url}/approvals/${pendingId}`);
  await p.getByLabel("Reason").fill("not today");
  await p.getByRole("button", { name: "Deny" }).click();
  await p.getByText("Decision recorded: deny").waitFor();
  assert.equal((await api("GET", `/v1/approvals/${pendingId}`)).body.approval.status, "denied");
});
