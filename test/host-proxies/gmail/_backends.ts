/** Both `MailBackend`s over the same corpus, for the suites every backend must pass. */
import assert from "node:assert/strict";
import { GmailApiBackend, MaildirBackend } from "../../../host-proxies/gmail/index.js";
import type { GmailApiBackendOptions, MailBackend } from "../../../host-proxies/gmail/index.js";
import { corpus, NOW, writeLocalMailbox } from "./_corpus.js";
import type { LocalMailbox } from "./_corpus.js";
import { startFakeGmail } from "./_fake-gmail/server.js";
import type { FakeGmail } from "./_fake-gmail/server.js";

export interface BackendUnderTest {
  backend: MailBackend;
  /** Ends the backend's world; for the Gmail fake, also asserts it saw nothing outside the discovery document. */
  close(): Promise<void>;
}

export type MakeBackend = () => Promise<BackendUnderTest>;

export const TOKEN = "ya29.test-token-for-the-fake";

export async function maildirUnderTest(): Promise<BackendUnderTest & { mailbox: LocalMailbox }> {
  const mailbox = writeLocalMailbox();
  const backend = new MaildirBackend(mailbox.root, { mbox: [{ label: "Lists", path: mailbox.mboxPath }], now: () => NOW });
  return { backend, mailbox, close: async () => mailbox.remove() };
}

export async function gmailApiUnderTest(options: GmailApiBackendOptions = {}): Promise<BackendUnderTest & { fake: FakeGmail }> {
  const fake = await startFakeGmail(corpus(), { token: TOKEN, now: NOW });
  const backend = new GmailApiBackend(async () => TOKEN, { baseUrl: fake.url, timeoutMs: 5000, ...options });
  return {
    backend,
    fake,
    close: async () => {
      await fake.close();
      assert.deepEqual(fake.rejected, [], "requests the discovery document does not allow");
      assert.deepEqual(fake.violations, [], "responses that break the discovery document's schemas");
    },
  };
}
