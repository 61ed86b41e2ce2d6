/**
 * A fresh instance of the mail plugin's AssemblyScript component (built as install builds it,
 * through jco's glue: see test/plugins/as/component.ts) over a fresh fake gmail.
 */
import { join } from "node:path";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent } from "../as/component.js";
import { asHost, toolsOf } from "../as/host-imports.js";
import type { ToolsExport } from "../files/harness.js";
import { FakeGmail } from "./fake-gmail.js";
import type { FakeGmailOptions } from "./fake-gmail.js";

export interface MailPlugin {
  tools: ToolsExport;
  gmail: FakeGmail;
}

export async function mailPlugin(options: FakeGmailOptions = {}): Promise<MailPlugin> {
  const gmail = new FakeGmail(options);
  const imports = gmail.imports();
  const loaded = await loadComponent(join(PROJECT_ROOT, "plugins", "mail"), { "clawhive:host/gmail": asHost(imports["clawhive:host/gmail@0.1.1"]!), "clawhive:host/mail": asHost(imports["clawhive:host/mail@0.1.1"]!) });
  return { tools: toolsOf(loaded), gmail };
}
