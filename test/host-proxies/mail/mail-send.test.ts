/**
 * mail.send end to end below the policy gate: recipients held to the grant (lookalike domains,
 * smuggled addresses, header injection refused, each beside a control that sends), a real SMTP
 * dialogue, a server that never answers, and the Gmail API's messages.send.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { createMailProxy, GmailTransport, SmtpTransport, type OutgoingMail } from "../../../host-proxies/mail/index.js";
import { HostProxyError } from "../../../host-proxies/types.js";
import { gmailApi, silentServer, smtpServer } from "./fakes.js";

let smtp: Awaited<ReturnType<typeof smtpServer>>;
before(async () => {
  smtp = await smtpServer();
});
after(async () => smtp.close());

const mail = (over: Partial<OutgoingMail> = {}): OutgoingMail => ({ to: ["alice@corp.example"], cc: [], bcc: [], subject: "Quarterly figures", body: "Hello Alice,\nthe figures are attached.\n", ...over });
const transport = () => new SmtpTransport({ host: "127.0.0.1", port: smtp.port, from: "agent@corp.example" });
const proxy = (options: { recipients?: string[]; maxRecipients?: number } = {}) => createMailProxy(transport(), { recipients: options.recipients ?? ["*@corp.example", "bob@partner.example"], maxRecipients: options.maxRecipients });

async function refusal(p: Promise<unknown>): Promise<{ tag: string; reason?: string; message: string }> {
  try {
    await p;
  } catch (error) {
    assert.ok(error instanceof HostProxyError, String(error));
    const e = error.hostError;
    return e.tag === "denied" ? { tag: e.tag, reason: e.val.reason, message: e.val.message } : { tag: e.tag, message: e.val };
  }
  assert.fail("expected a refusal");
}

test("SMTP: a message to granted recipients is delivered with the envelope the proxy decided; Bcc only in the envelope", async () => {
  const before = smtp.received.length;
  const receipt = await proxy().send(mail({ cc: ["carol@corp.example"], bcc: ["bob@partner.example"], subject: "Café ☕ figures" }));
  assert.match(receipt.messageId, /^<[0-9a-f-]{36}@corp\.example>$/);
  assert.deepEqual(receipt.accepted.sort(), ["alice@corp.example", "bob@partner.example", "carol@corp.example"]);
  const got = smtp.received[before]!;
  assert.equal(got.from, "agent@corp.example");
  assert.deepEqual(got.to, ["alice@corp.example", "carol@corp.example", "bob@partner.example"]);
  assert.match(got.data, /^To: alice@corp\.example$/m);
  assert.match(got.data, /^Cc: carol@corp\.example$/m);
  assert.doesNotMatch(got.data, /^Bcc:/im);
  assert.match(got.data, /^Subject: =\?UTF-8\?/m, "a non-ASCII subject is an encoded word");
  assert.ok(got.data.includes(`Message-ID: ${receipt.messageId}`));
});

const REFUSED: Array<[what: string, message: Partial<OutgoingMail>, tag: string, reason?: string]> = [
  ["a recipient outside the grant", { to: ["eve@evil.test"] }, "denied", "recipient-not-granted"],
  ["one outsider among granted recipients (Bcc)", { bcc: ["eve@evil.test"] }, "denied", "recipient-not-granted"],
  ["a lookalike: the granted domain as a subdomain of another", { to: ["eve@corp.example.evil.test"] }, "denied", "recipient-not-granted"],
  ["a lookalike: a longer name ending in the granted one", { to: ["eve@evilcorp.example"] }, "denied", "recipient-not-granted"],
  ["a lookalike: Cyrillic о in corp (an xn-- name)", { to: ["eve@c\u043erp.example"] }, "denied", "recipient-not-granted"],
  ["a subdomain of the granted domain (*@ is that domain only)", { to: ["eve@mail.corp.example"] }, "denied", "recipient-not-granted"],
  ["a granted local part at another domain", { to: ["bob@partner.example.evil.test"] }, "denied", "recipient-not-granted"],
  ["source routing with % into a granted name", { to: ["eve%corp.example@evil.test"] }, "denied", "recipient-not-granted"],
  ["CRLF in the subject adding a Bcc header", { subject: "Hi\r\nBcc: eve@evil.test" }, "invalid-input"],
  ["a bare LF in the subject", { subject: "Hi\nX-Injected: 1" }, "invalid-input"],
  ["CRLF in an address", { to: ["alice@corp.example\r\nBcc: eve@evil.test"] }, "invalid-input"],
  ["two addresses in one", { to: ["alice@corp.example, eve@evil.test"] }, "invalid-input"],
  ["a display name hiding an outside address", { to: ["alice@corp.example <eve@evil.test>"] }, "invalid-input"],
  ["a quoted local part carrying the granted domain", { to: ['"alice@corp.example"@evil.test'] }, "invalid-input"],
  ["two @", { to: ["alice@corp.example@evil.test"] }, "invalid-input"],
  ["an IP literal", { to: ["root@[127.0.0.1]"] }, "invalid-input"],
  ["a trailing dot", { to: ["alice@corp.example."] }, "invalid-input"],
  ["no recipient", { to: [] }, "invalid-input"],
];

for (const [what, over, tag, reason] of REFUSED) {
  test(`refused before anything is sent: ${what}`, async () => {
    const before = smtp.received.length;
    const got = await refusal(proxy().send(mail(over)));
    assert.equal(got.tag, tag, got.message);
    if (reason !== undefined) assert.equal(got.reason, reason);
    assert.equal(smtp.received.length, before, "nothing reached the server");
  });
}

test("controls: the same shapes, written correctly and granted, are sent", async () => {
  const p = createMailProxy(transport(), { recipients: ["*@corp.example", "*@*.corp.example", "*@xn--crp-sed.example", "bob@partner.example"] });
  const before = smtp.received.length;
  const accepted: string[] = [];
  for (const to of ["ALICE@Corp.Example", "eve@mail.corp.example", "eve@c\u043erp.example", "bob@partner.example"]) accepted.push(...(await p.send(mail({ to: [to], subject: "Hi\tthere" }))).accepted);
  // The envelope carries the canonical A-label (smtp-server shows it decoded again).
  assert.deepEqual(accepted, ["ALICE@corp.example", "eve@mail.corp.example", "eve@xn--crp-sed.example", "bob@partner.example"]);
  assert.equal(smtp.received.length, before + 4);
});

test("max_recipients: one more than granted is refused; control: exactly as many is sent", async () => {
  const p = proxy({ maxRecipients: 2 });
  assert.equal((await refusal(p.send(mail({ cc: ["b@corp.example", "c@corp.example"] })))).reason, "too-many-recipients");
  assert.equal((await p.send(mail({ cc: ["b@corp.example"] }))).accepted.length, 2);
});

test("an SMTP server that accepts the connection and never answers: a clear io error within the deadline; control: a live server sends", async () => {
  const silent = await silentServer();
  try {
    const p = createMailProxy(new SmtpTransport({ host: "127.0.0.1", port: silent.port, from: "agent@corp.example", phaseTimeoutMs: 60_000 }), { recipients: ["*@corp.example"], timeoutMs: 300 });
    const got = await refusal(p.send(mail()));
    assert.equal(got.tag, "io");
    assert.match(got.message, /the smtp server did not finish the send within 300 ms; nothing is known to be sent/);
    const phased = createMailProxy(new SmtpTransport({ host: "127.0.0.1", port: silent.port, from: "agent@corp.example", phaseTimeoutMs: 200 }), { recipients: ["*@corp.example"], timeoutMs: 60_000 });
    assert.match((await refusal(phased.send(mail()))).message, /^mail: the SMTP server 127\.0\.0\.1:\d+ could not be reached or did not answer in time \(ETIMEDOUT/);
  } finally {
    await silent.close();
  }
  assert.equal((await proxy().send(mail())).accepted.length, 1);
});

test("Gmail API: messages.send gets the RFC 5322 message as base64url, Bcc in its headers; a refused token is a token-rejected denial; control: the good token sends", async () => {
  const api = await gmailApi();
  try {
    const send = (token: string) => createMailProxy(new GmailTransport(async () => token, { from: "me@gmail.example", baseUrl: api.baseUrl }), { recipients: ["*@corp.example"] });
    const receipt = await send("good-token").send(mail({ bcc: ["audit@corp.example"] }));
    assert.equal(receipt.transportId, "18c2f0a1b2c3d4e5");
    const raw = api.sent[0]!.raw;
    assert.match(raw, /^From: me@gmail\.example$/m);
    assert.match(raw, /^Bcc: audit@corp\.example$/m);
    assert.match(raw, /^Subject: Quarterly figures$/m);
    const refused = await refusal(send("revoked-token").send(mail()));
    assert.equal(refused.tag, "denied");
    assert.equal(refused.reason, "token-rejected");
    assert.match(refused.message, /rejected the OAuth token \(401: Request had invalid authentication credentials/);
    assert.equal(api.sent.length, 1);
  } finally {
    await api.close();
  }
});
