import { listCalendars as hostListCalendars } from "clawhive:host/calendar@0.1.1";
import { defineTool } from "../../sdk/index.js";

export const listCalendars = defineTool({
  description: "List the calendars this agent may see: id, name, and whether it is the primary calendar.",
  inputSchema: { type: "object", properties: {}, additionalProperties: false },
  capabilities: ["calendar.read"],
  risk: "safe",
  run() {
    const calendars = hostListCalendars().map((c) => ({ id: c.id, summary: c.summary, primary: c.primary }));
    return { count: calendars.length, calendars };
  },
});
