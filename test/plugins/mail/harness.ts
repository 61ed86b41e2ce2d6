/** A fresh instance of the mail plugin over a fresh fake gmail (see test/plugins/files/harness.ts). */
import { instantiate } from "../files/harness.js";
import type { ToolsExport } from "../files/harness.js";
import { FakeGmail } from "./fake-gmail.js";
import type { FakeGmailOptions } from "./fake-gmail.js";

export interface MailPlugin {
  tools: ToolsExport;
  gmail: FakeGmail;
}

export async function mailPlugin(options: FakeGmailOptions = {}): Promise<MailPlugin> {
  const gmail = new FakeGmail(options);
  const exports = await instantiate("plugins/mail/src/index.ts", gmail.imports());
  return { tools: exports["tools"] as ToolsExport, gmail };
}
