/** A fresh instance of the calendar plugin over a fresh fake calendar (see test/plugins/files/harness.ts). */
import { instantiate } from "../files/harness.js";
import type { ToolsExport } from "../files/harness.js";
import { FakeCalendar } from "./fake-calendar.js";
import type { FakeCalendarOptions } from "./fake-calendar.js";

export interface CalendarPlugin {
  tools: ToolsExport;
  calendar: FakeCalendar;
}

export async function calendarPlugin(options: FakeCalendarOptions = {}): Promise<CalendarPlugin> {
  const calendar = new FakeCalendar(options);
  const exports = await instantiate("plugins/calendar/src/index.ts", calendar.imports());
  return { tools: exports["tools"] as ToolsExport, calendar };
}
