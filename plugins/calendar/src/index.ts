/**
 * The `calendar` plugin: calendars and events over `clawhive:host/calendar`. Which calendars are
 * reachable is the grant's business, decided by the host on every call; adding an event is
 * Guarded, so a person approves the exact event before the host call runs.
 */
import { definePlugin } from "../../sdk/index.js";
import { addEvent } from "./add-event.js";
import { listCalendars } from "./list-calendars.js";
import { listEvents } from "./list-events.js";

export const tools = definePlugin({
  tools: { list_calendars: listCalendars, list_events: listEvents, add_event: addEvent },
});
