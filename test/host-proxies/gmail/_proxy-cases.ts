/**
 * The gmail proxy's grant, over every backend: each refusal sits beside a control that must
 * pass with the same backend, so a denial can only come from the grant.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createGmailProxy } from "../../../host-proxies/gmail/index.js";
import type { GmailProxyOptions, ListRequest, MailBackend } from "../../../host-proxies/gmail/index.js";
import { rejectsWith } from "../../helpers/host-errors.js";
import type { BackendUnderTest, MakeBackend } from "./_backends.js";
import { bySubject, SUBJECTS } from "./_conformance.js";

const request = (label: string, query?: string, maxResults?: number): ListRequest => ({ label, query, maxResults, pageToken: undefined });
const denied = { tag: "denied", reason: "label-not-granted", capability: "gmail.read" } as const;

/** Words of the Secret message that must never appear in a refusal. */
const SECRET_WORDS = ["secret plan", "PUT method", "Marc", "Slemko", "Secret", "root"];

/** [why, grant patterns, label listed, allowed] */
const GLOB_ROWS: Array<[string, string[], string, boolean]> = [
  ["Work/* reaches a sublabel", ["Work/*"], "Work/Reports", true],
  ["Work/* does not reach Workshop", ["Work/*"], "Workshop", false],
  ["control: Work* does reach Workshop", ["Work*"], "Workshop", true],
  ["labels are case-sensitive", ["work/*"], "Work/Reports", false],
  ["control: the exact name", ["Work/Reports"], "Work/Reports", true],
  ["a name is not a prefix", ["Work"], "Work/Reports", false],
  ["* reaches everything", ["*"], "Secret", true],
];

/** [why, grant queries, user query, subjects under INBOX] */
const QUERY_ROWS: Array<[string, string[], string | undefined, string[]]> = [
  ["control: no grant query", [], "is:read OR is:unread", [SUBJECTS.nodemailer, SUBJECTS.longLinks, SUBJECTS.forward, SUBJECTS.bilingual]],
  ["a user OR cannot widen the grant's query", ["is:unread"], "is:read OR is:unread", [SUBJECTS.nodemailer]],
  ["every layer's query applies", ["newer_than:3650d", "-is:starred"], undefined, [SUBJECTS.nodemailer, SUBJECTS.forward, SUBJECTS.bilingual]],
  ["a balanced group is fine", ["is:unread"], "(is:read) OR (is:unread)", [SUBJECTS.nodemailer]],
  ["-label: cannot leave the listed label", [], "-label:INBOX", []],
  ["control: -label: of another label", [], "-label:STARRED", [SUBJECTS.nodemailer, SUBJECTS.forward, SUBJECTS.bilingual]],
  ["label: cannot pull in another label", [], "label:Secret", []],
];

/** [why, user query] — each must be refused before any search runs. */
const ESCAPE_ROWS: Array<[string, string]> = [
  ["closing the wrapper early", ") OR (is:read"],
  ["an unclosed group", "(is:read"],
  ["an unclosed quote swallowing the wrapper", '"is:read'],
  ["a brace group left open", "{is:read"],
  ["a backslash", "is:read \\"],
  ["a newline", "is:read\nOR is:unread"],
];

export function gmailProxyConformance(name: string, make: MakeBackend): void {
  describe(`gmail proxy over ${name}`, () => {
    let under: BackendUnderTest;
    let backend: MailBackend;
    before(async () => {
      under = await make();
      backend = under.backend;
    });
    after(async () => under.close());
    const proxy = (options: GmailProxyOptions) => createGmailProxy(backend, options);

    test("listing a label outside the grant is denied; control: a granted one", async () => {
      const p = proxy({ labels: ["INBOX"] });
      const err = await rejectsWith(p.listMessages(request("Secret")), denied);
      assert.ok(err.message.includes('"Secret"'));
      assert.equal((await p.listMessages(request("INBOX"))).messages.length, 4);
    });

    test("a message whose only label is not granted: denied after fetching, no content in the error", async () => {
      const secret = await bySubject(backend, "Secret", SUBJECTS.secret);
      const err = await rejectsWith(proxy({ labels: ["INBOX", "Workshop"] }).getMessage(secret.id), denied);
      const seen = JSON.stringify({ message: err.message, hostError: err.hostError });
      for (const word of SECRET_WORDS) assert.ok(!seen.includes(word), `${JSON.stringify(word)} leaked: ${seen}`);
      const control = await proxy({ labels: ["Secret"] }).getMessage(secret.id);
      assert.equal(control.text, "The secret plan: run the server as root & hope.");
    });

    test("a thread mixing granted and non-granted messages shows only the granted; controls", async () => {
      const reply = await bySubject(backend, "Workshop", SUBJECTS.apache);
      const subjects = async (labels: string[]) => (await proxy({ labels }).getThread(reply.threadId)).map((m) => m.subject);
      assert.deepEqual(await subjects(["Workshop"]), [SUBJECTS.apache]);
      assert.deepEqual(await subjects(["Workshop", "Secret"]), [SUBJECTS.secret, SUBJECTS.apache]);
      await rejectsWith(proxy({ labels: ["INBOX"] }).getThread(reply.threadId), denied);
    });

    for (const [why, labels, label, allowed] of GLOB_ROWS) {
      test(`globs: ${why}`, async () => {
        const listing = proxy({ labels }).listMessages(request(label));
        if (allowed) assert.equal((await listing).messages.length, 1);
        else await rejectsWith(listing, denied);
      });
    }

    for (const [why, queries, query, subjects] of QUERY_ROWS) {
      test(`queries are ANDed: ${why}`, async () => {
        const { messages } = await proxy({ labels: ["INBOX"], queries }).listMessages(request("INBOX", query));
        assert.deepEqual(messages.map((m) => m.subject), subjects);
      });
    }

    for (const [why, query] of ESCAPE_ROWS) {
      test(`a user query cannot break out of its group: ${why}`, async () => {
        await rejectsWith(proxy({ labels: ["INBOX"], queries: ["is:unread"] }).listMessages(request("INBOX", query)), { tag: "invalid-input" });
      });
    }

    test("state labels never make a message visible; control: with its folder granted", async () => {
      const subjects = async (labels: string[]) => (await proxy({ labels }).listMessages(request("UNREAD"))).messages.map((m) => m.subject);
      assert.deepEqual(await subjects(["UNREAD"]), []);
      assert.deepEqual(await subjects(["UNREAD", "INBOX"]), [SUBJECTS.nodemailer]);
      const secret = await bySubject(backend, "Secret", SUBJECTS.secret);
      await rejectsWith(proxy({ labels: ["UNREAD", "STARRED", "IMPORTANT", "CATEGORY_*"] }).getMessage(secret.id), denied);
    });

    // The unread Secret message also carries UNREAD, which `*` grants: it must stay hidden.
    test("allowLabel narrows per layer; control: labels it allows", async () => {
      const p = proxy({ labels: ["*"], allowLabel: (label) => label !== "Secret" });
      await rejectsWith(p.listMessages(request("Secret")), denied);
      assert.equal((await p.listMessages(request("Workshop"))).messages.length, 1);
      const reply = await bySubject(backend, "Workshop", SUBJECTS.apache);
      assert.deepEqual((await p.getThread(reply.threadId)).map((m) => m.subject), [SUBJECTS.apache]);
      const secret = await bySubject(backend, "Secret", SUBJECTS.secret);
      await rejectsWith(p.getMessage(secret.id), denied);
    });

    test("results show only granted labels; control: grant the state label too", async () => {
      const labelsOf = async (labels: string[]) => (await proxy({ labels }).listMessages(request("INBOX", "is:unread"))).messages.map((m) => [...m.labels].sort());
      assert.deepEqual(await labelsOf(["INBOX"]), [["INBOX"]]);
      assert.deepEqual(await labelsOf(["INBOX", "UNREAD"]), [["INBOX", "UNREAD"]]);
    });

    test("maxResults outside 1…500 is invalid; controls at both ends", async () => {
      const p = proxy({ labels: ["INBOX"] });
      for (const bad of [0, 501, 2 ** 32 - 1]) await rejectsWith(p.listMessages(request("INBOX", undefined, bad)), { tag: "invalid-input" });
      assert.equal((await p.listMessages(request("INBOX", undefined, 1))).messages.length, 1);
      assert.equal((await p.listMessages(request("INBOX", undefined, 500))).messages.length, 4);
    });

    test("ids are checked before the backend sees them; control: a well-formed unknown id", async () => {
      const p = proxy({ labels: ["*"] });
      for (const id of ["", "../labels", "a b", "x".repeat(129), "id?format=raw"]) {
        await rejectsWith(p.getMessage(id), { tag: "invalid-input" });
        await rejectsWith(p.getThread(id), { tag: "invalid-input" });
      }
      await rejectsWith(p.getMessage("0123456789abcdef0123456789abcdef"), { tag: "not-found" });
    });
  });
}
