import { listEvents as hostListEvents } from "clawhive:host/calendar@0.1.1";
import { defineTool, fail } from "../../sdk/index.js";
import { eventOutput } from "./event.js";
import { DAY_MS, formatUtc, instantOf, parseTime } from "./time.js";
import type { TimeValue } from "./time.js";

export const DEFAULT_CALENDAR = "primary";
export const DEFAULT_WINDOW_DAYS = 7;
/** Recurring events are expanded between the bounds: a year is plenty and keeps that bounded. */
export const MAX_WINDOW_DAYS = 366;
export const DEFAULT_MAX_RESULTS = 50;
export const MAX_RESULTS = 250;

export const listEvents = defineTool({
  description:
    "List events of a calendar between two bounds, recurring events expanded into occurrences. " +
    "`from` is required (this tool has no clock: pass today's date or the time you mean); `to` " +
    `defaults to ${DEFAULT_WINDOW_DAYS} days after \`from\`. Bounds are dates (2026-11-22, read as UTC ` +
    "midnight; a date `to` includes that whole day) or date-times with an offset " +
    `(2026-11-22T09:00:00+01:00). At most ${MAX_WINDOW_DAYS} days.`,
  inputSchema: {
    type: "object",
    properties: {
      calendar_id: { type: "string", description: `A calendar id from list_calendars (default ${DEFAULT_CALENDAR})` },
      from: { type: "string", description: "Start: 2026-11-22 or 2026-11-22T09:00:00Z" },
      to: { type: "string", description: `End (default: from + ${DEFAULT_WINDOW_DAYS} days)` },
      query: { type: "string", description: "Text to search events for" },
      max_results: { type: "integer", minimum: 1, maximum: MAX_RESULTS, description: `How many (default ${DEFAULT_MAX_RESULTS})` },
    },
    required: ["from"],
    additionalProperties: false,
  },
  capabilities: ["calendar.read"],
  risk: "safe",
  run({ calendar_id, from, to, query, max_results }) {
    const calendarId = calendar_id ?? DEFAULT_CALENDAR;
    if (calendarId.trim() === "") throw fail.invalidInput("calendar_id: must not be empty");
    const max = max_results ?? DEFAULT_MAX_RESULTS;
    if (max < 1 || max > MAX_RESULTS) throw fail.invalidInput(`max_results: must be between 1 and ${MAX_RESULTS}, got ${max}`);
    const start = boundInstant("from", parseTime("from", from), "start");
    const end = to === undefined ? start + DEFAULT_WINDOW_DAYS * DAY_MS : boundInstant("to", parseTime("to", to), "end");
    if (end <= start) throw fail.invalidInput(`to: ${formatUtc(end)} must be after from (${formatUtc(start)})`);
    if (end - start > MAX_WINDOW_DAYS * DAY_MS) {
      throw fail.invalidInput(`to: the window is longer than ${MAX_WINDOW_DAYS} days; list a shorter range`);
    }
    const timeMin = formatUtc(start);
    const timeMax = formatUtc(end);
    const events = hostListEvents({
      calendarId,
      timeMin,
      timeMax,
      maxResults: max,
      ...(query === undefined || query.trim() === "" ? {} : { query }),
    }).map(eventOutput);
    return { calendar_id: calendarId, time_min: timeMin, time_max: timeMax, count: events.length, events };
  },
});

/**
 * A bound as an instant. A date starts at UTC midnight; as an end it covers its whole day. A
 * date-time must carry an offset: without a time zone database the guest cannot place a local
 * time, and the host's bounds are instants.
 */
function boundInstant(field: string, value: TimeValue, side: "start" | "end"): number {
  const instant = instantOf(value);
  if (instant === undefined) {
    throw fail.invalidInput(`${field}: ${value.text} has no offset; add Z or one like +01:00`);
  }
  return value.kind === "date" && side === "end" ? instant + DAY_MS : instant;
}
