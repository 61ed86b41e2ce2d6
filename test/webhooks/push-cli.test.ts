/**
 * Push delivery through the shipped entry point: `clawhive serve` with Slack, Teams and Telegram
 * configured in clawhive.yaml pushes an approval asked for by another process on its store
 * (`clawhive call`), linked to `console.public_url`, and its decision (`clawhive approvals
 * approve`). A Telegram target whose bot token is not stored, or that names no chat, is refused
 * at start naming the field.
 */
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { cli, serve, type Served } from "../cli/client-fixtures.js";
import { cliPlace, clawhiveIn, pendingWrite, type CliPlace } from "../cli/fixtures.js";
import { SLACK_PATH, startPushFakes, TEAMS_PATH, type PushFakes } from "./push-fakes.js";

const TOKEN = "987654321:AAF-cli-bot-token_abcdef0123456789";
const PUBLIC = "https://approve.example.com";
let fakes: PushFakes;
let place: CliPlace;

function config(extra: string): string {
  return `console:
  public_url: ${PUBLIC}
webhooks:
  - url: ${fakes.base}${SLACK_PATH}
    format: slack
    events: [approval.requested, approval.decided]
    allow_loopback: true
  - url: ${fakes.base}${TEAMS_PATH}
    format: teams
    events: [approval.requested]
    allow_loopback: true
${extra}`;
}

before(async () => {
  fakes = await startPushFakes(TOKEN);
  place = await cliPlace("clawhive-push-cli-");
});
after(async () => {
  await fakes.close();
  await rm(place.root, { recursive: true, force: true });
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  assert.ok(check(), `timed out waiting for ${what}`);
}

test("clawhive serve refuses a Telegram target without a chat, or whose bot token is not stored, naming the field", async () => {
  const file = join(place.root, "refused.yaml");
  await writeFile(file, config(`  - format: telegram\n    bot_token: tg-bot\n    url: ${fakes.base}\n    allow_loopback: true\n`));
  const noChat = clawhiveIn(place, "serve", "--config", file, "--agents", place.agents, "--port", "0");
  assert.equal(noChat.code, 2);
  assert.match(noChat.stderr, /webhooks\[2\]\.chat_id/);
  await writeFile(file, config(`  - format: telegram\n    bot_token: tg-bot\n    chat_id: -100555\n    url: ${fakes.base}\n    allow_loopback: true\n`));
  const noSecret = clawhiveIn(place, "serve", "--config", file, "--agents", place.agents, "--port", "0");
  assert.equal(noSecret.code, 2, "refused and exited, not left running");
  assert.match(noSecret.stderr, /webhooks\[2\]\.bot_token: no stored secret named tg-bot/);
});

test("an approval asked for by clawhive call is pushed by clawhive serve to Slack, Teams and Telegram, and its decision to Slack", async () => {
  const stored = cli({ kind: "direct", place }, ["secret", "set", "tg-bot"], { input: TOKEN });
  assert.equal(stored.code, 0, stored.stderr);
  const file = join(place.root, "clawhive.yaml");
  await writeFile(file, config(`  - format: telegram\n    bot_token: tg-bot\n    chat_id: -100555\n    url: ${fakes.base}\n    events: [approval.requested]\n    allow_loopback: true\n`));
  let server: Served | undefined;
  try {
    server = await serve(place, { env: { CLAWHIVE_CONFIG: file } });
    let log = "";
    server.child.stderr!.on("data", (d: Buffer) => (log += d.toString()));
    const { approval } = pendingWrite(place, { path: "/workspace/a.txt", content: "<!channel> [x](http://evil.example) \u202eok" });
    const about = () => fakes.received.filter((r) => JSON.stringify(r.body).includes(approval));
    await until(() => about().length >= 3, "three requested messages");
    assert.deepEqual(fakes.bad, []);
    assert.deepEqual(about().map((r) => r.service).sort(), ["slack", "teams", "telegram"]);
    const link = `${PUBLIC}/approvals/${approval}`;
    for (const r of about()) {
      const text = JSON.stringify(r.body);
      assert.ok(text.includes(link), `${r.service} links to the console page`);
      assert.ok(text.includes("files.write_file") && text.includes("writer"), `${r.service} names the tool and agent`);
      assert.ok(!text.includes("http://evil") && !text.includes("\u202e"), `${r.service}: no live link, no bidi override: ${text}`);
      // `<!channel>` is Slack's mention: escaped there (and in Telegram's HTML); a Teams TextRun shows it as the plain text it is there.
      if (r.service !== "teams") assert.ok(!text.includes("<!channel>"), `${r.service}: ${text}`);
    }
    const approved = cli({ kind: "server", server }, ["approvals", "approve", approval]);
    assert.equal(approved.code, 0, approved.stderr);
    await until(() => about().some((r) => r.service === "slack" && JSON.stringify(r.body).includes("Approval granted")), "the decision on Slack");
    assert.equal(about().filter((r) => r.service === "teams").length, 1, "control: Teams asked only for requests");
    assert.ok(!log.includes(TOKEN), "the server's log never shows the bot token");
  } finally {
    await server?.stop();
  }
});
