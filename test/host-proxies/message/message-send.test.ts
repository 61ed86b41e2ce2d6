/**
 * message.send through the http proxy: a Slack-shaped post reaches a local webhook only when
 * the grant names its host and lists the loopback address; the body is plain text (no markup).
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { createMessageProxy, type MessageResource } from "../../../host-proxies/message/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";

const posts: Array<{ path: string; type: string | undefined; body: any }> = [];
let port = 0;
const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const c of request) chunks.push(c as Buffer);
  posts.push({ path: request.url ?? "", type: request.headers["content-type"], body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
  // Slack's incoming webhooks answer `ok` as text/html, or 404 `no_service` for a removed hook.
  if (request.url?.includes("gone")) {
    response.writeHead(404, { "content-type": "text/html" });
    return response.end("no_service");
  }
  response.writeHead(200, { "content-type": "text/html" });
  response.end("ok");
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const grant = (over: Partial<MessageResource> = {}): MessageResource => ({ schemes: ["http"], hosts: ["127.0.0.1"], ports: [port], allow_addresses: ["127.0.0.1"], ...over });
const hook = (path = "/services/T000/B000/XXXX") => `http://127.0.0.1:${port}${path}`;

async function refused(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof HostProxyError);
    const e = error.hostError;
    return e.tag === "denied" ? `denied ${e.val.reason}` : `${e.tag} ${e.val}`;
  }
  assert.fail("expected a refusal");
}

test("a Slack message is posted as plain_text blocks (no mrkdwn), Teams as a TextRun card", async () => {
  const receipt = await createMessageProxy(grant()).send({ url: hook(), text: "Deploy done <!channel> <https://evil.test|click>", format: undefined, title: "Release 1.2" });
  assert.deepEqual(receipt, { status: 200, response: "ok" });
  const slack = posts.at(-1)!;
  assert.equal(slack.type, "application/json");
  assert.equal(slack.body.text, "Release 1.2: Deploy done &lt;!channel&gt; &lt;https://evil.test|click&gt;");
  assert.deepEqual(slack.body.blocks[1], { type: "section", text: { type: "plain_text", text: "Deploy done <!channel> <https://evil.test|click>", emoji: false } });
  await createMessageProxy(grant()).send({ url: hook("/teams"), text: "[x](http://evil.test)", format: "teams", title: undefined });
  assert.deepEqual(posts.at(-1)!.body.attachments[0].content.body, [{ type: "RichTextBlock", inlines: [{ type: "TextRun", text: "[x](http://evil.test)" }] }]);
});

const REFUSED: Array<[what: string, over: Partial<MessageResource>, url: () => string, expected: RegExp]> = [
  ["a host the grant does not name", { hosts: ["hooks.slack.com"] }, () => hook(), /^denied host-not-allowed$/],
  ["loopback without allow_addresses (SSRF)", { allow_addresses: [] }, () => hook(), /^denied /],
  ["a receiver that answers 404 no_service", {}, () => hook("/gone"), /^io message\.send: 127\.0\.0\.1:\d+ answered 404: no_service$/],
];
for (const [what, over, url, expected] of REFUSED) {
  test(`refused: ${what}; control: the granted hook is posted`, async () => {
    assert.match(await refused(createMessageProxy(grant(over)).send({ url: url(), text: "hi", format: "json", title: undefined })), expected);
    assert.equal((await createMessageProxy(grant()).send({ url: hook(), text: "hi", format: "json", title: undefined })).status, 200);
  });
}

test("an unknown format and an empty text are invalid input; control: json is posted as {text}", async () => {
  assert.match(await refused(createMessageProxy(grant()).send({ url: hook(), text: "hi", format: "markdown", title: undefined })), /^invalid-input message\.send: format: expected one of slack, teams, json/);
  assert.match(await refused(createMessageProxy(grant()).send({ url: hook(), text: "", format: "json", title: undefined })), /^invalid-input message\.send: text/);
  await createMessageProxy(grant()).send({ url: hook(), text: "hi", format: "json", title: undefined });
  assert.deepEqual(posts.at(-1)!.body, { text: "hi" });
});
