/**
 * A fresh instance of the calendar plugin's AssemblyScript component (built as install builds it,
 * through jco's glue: see test/plugins/as/component.ts) over a fresh fake calendar.
 */
import { join } from "node:path";
import { PROJECT_ROOT } from "../../../runtime/plugins/locations.js";
import { loadComponent } from "../as/component.js";
import { asHost, toolsOf } from "../as/host-imports.js";
import type { ToolsExport } from "../files/harness.js";
import { FakeCalendar } from "./fake-calendar.js";
import type { FakeCalendarOptions } from "./fake-calendar.js";

export interface CalendarPlugin {
  tools: ToolsExport;
  calendar: FakeCalendar;
}

export async function calendarPlugin(options: FakeCalendarOptions = {}): Promise<CalendarPlugin> {
  const calendar = new FakeCalendar(options);
  const loaded = await loadComponent(join(PROJECT_ROOT, "plugins", "calendar"), {
    "clawhive:host/calendar": asHost(calendar.imports()["clawhive:host/calendar@0.1.1"]!),
  });
  const tools = toolsOf(loaded);
  return {
    calendar,
    tools: {
      describe: () => tools.describe(),
      call(name, input) {
        try {
          return tools.call(name, input);
        } catch (e) {
          // A host answer the glue cannot lower (a malformed record) throws a TypeError out of the
          // call: the sandbox's worker reports it as a failed call of a trapped instance.
          if (e instanceof TypeError) throw { tag: "failed", val: `the host's answer could not be read: ${e.message}` };
          throw e;
        }
      },
    },
  };
}
