/**
 * Pending upgrades on the console's plugins page: the diff shown inert (a hostile publisher and
 * description in it), accept/reject forms for admins only, each form under CSRF + Origin like
 * every other console form, and a POST from a non-admin refused by the API's role check.
 */
import assert from "node:assert/strict";
import { readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { echoComponent, packTgz, writePackage } from "../helpers/plugin-packages.js";
import { tempDir } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "../api/routes-fixtures.js";
import { assertForgedPostsRefused, getPage, postForm, signIn, type Browserish } from "./fixtures.js";

const HOSTILE = `<script>alert(1)</script><img src=x onerror=alert(2)>"'><b>x</b>\u001b[2J\u202eevil\u009b31m`;

let f: ApiFixture;
let root: string;
let echo: Awaited<ReturnType<typeof echoComponent>>;
let admin: Browserish;
let approver: Browserish;
let client: Browserish;

async function tgz(name: string, overrides: Record<string, unknown>): Promise<Buffer> {
  const dir = await writePackage(root, name, { ...echo.manifest, ...overrides }, echo.bytes);
  return readFile(await packTgz(dir, join(root, `${name}.tgz`)));
}
/** A widening upgrade of bench-echo refused for want of acceptance: kept pending. */
async function propose(version: string): Promise<void> {
  const answer = await call(f, "POST", "/v1/plugins/bench-echo/upgrade", { body: await tgz(`v${version}`, { version, publisher: HOSTILE, description: HOSTILE }), type: "application/gzip" });
  assert.equal(answer.status, 409, answer.text);
}
const pendingVersion = async () => (await f.runtime.installer.registry.pending.get("bench-echo"))?.version;

before(async () => {
  root = await tempDir("clawhive-console-upgrades-");
  echo = await echoComponent();
  f = await apiFixture();
  assert.equal((await call(f, "POST", "/v1/plugins", { body: await tgz("v1", {}), type: "application/gzip" })).status, 201);
  await propose("0.2.0");
  admin = await signIn(f.server.base, f.token.admin);
  approver = await signIn(f.server.base, f.token.approver);
  client = await signIn(f.server.base, f.token.client);
});
after(async () => {
  await f.close();
  await rm(root, { recursive: true, force: true });
});

describe("the plugins page lists pending upgrades", () => {
  test("an admin sees the diff (+ lines marked), inert, with the accept and reject forms", async () => {
    const page = await getPage(admin, "/plugins");
    assert.equal(page.status, 200, page.text.slice(0, 500));
    assert.match(page.text, /<h2>Pending upgrades<\/h2>/);
    assert.match(page.text, /<span class="widen">\+ publisher: /);
    assert.doesNotMatch(page.text, /<script>alert|<img src=x|<b>x<\/b>/, "no injected markup");
    assert.doesNotMatch(page.text, /[\u001b\u202e\u009b]/, "no raw control or bidi character");
    assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/, "the text is shown, escaped");
    assert.match(page.text, /\\u\{202e\}evil/, "the bidi override is shown visibly");
    assert.match(page.text, /action="\/plugins\/bench-echo\/upgrade\/accept"/);
    assert.match(page.text, /action="\/plugins\/bench-echo\/upgrade\/reject"/);
  });

  test("an approver and a client see no forms (the API refuses them the page), and their POST changes nothing", async () => {
    for (const [who, b] of [["approver", approver], ["client", client]] as const) {
      const page = await getPage(b, "/plugins");
      assert.equal(page.status, 403, who);
      assert.doesNotMatch(page.text, /upgrade\/accept/, who);
      for (const decision of ["accept", "reject"]) {
        const forged = await postForm(f.server.base, `/plugins/bench-echo/upgrade/${decision}`, { csrf: b.csrf }, { cookie: b.cookie });
        assert.equal(forged.status, 403, `${who} ${decision}: the API's role check answers`);
      }
    }
    assert.equal(await pendingVersion(), "0.2.0", "still pending");
  });

  test("CSRF and Origin on both forms: a missing, wrong or other session's token, a foreign or missing Origin is 403 and decides nothing", async () => {
    for (const decision of ["accept", "reject"]) {
      await assertForgedPostsRefused(admin, client, `/plugins/bench-echo/upgrade/${decision}`, {}, decision);
    }
    assert.equal(await pendingVersion(), "0.2.0", "no forged form decided");
    assert.equal((await f.runtime.installer.registry.get("bench-echo"))?.version, "0.1.0");
  });

  test("control: the admin's own forms reject one pending upgrade and accept the next", async () => {
    const rejected = await postForm(f.server.base, "/plugins/bench-echo/upgrade/reject", { csrf: admin.csrf }, { cookie: admin.cookie });
    assert.equal(rejected.status, 303, await rejected.text());
    assert.equal(rejected.headers.get("location"), "/plugins?done=reject");
    assert.equal(await pendingVersion(), undefined);
    assert.match((await getPage(admin, "/plugins")).text, /No pending upgrades\./);
    await propose("0.3.0");
    const accepted = await postForm(f.server.base, "/plugins/bench-echo/upgrade/accept", { csrf: admin.csrf }, { cookie: admin.cookie });
    assert.equal(accepted.status, 303, await accepted.text());
    assert.equal((await f.runtime.installer.registry.get("bench-echo"))?.version, "0.3.0");
    const again = await postForm(f.server.base, "/plugins/bench-echo/upgrade/accept", { csrf: admin.csrf }, { cookie: admin.cookie });
    assert.equal(again.status, 404, "nothing left to accept: the API's 404, as a page");
    assert.equal((await postForm(f.server.base, "/plugins/Bad%20Name/upgrade/accept", { csrf: admin.csrf }, { cookie: admin.cookie })).status, 400);
  });
});
