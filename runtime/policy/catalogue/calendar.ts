/** `calendar.read` and `calendar.add`: which calendars, by id (`primary`, `team@group…`) or glob. */
import * as v from "valibot";
import { strictObject } from "./strict.js";
import { anyGlobMatches, globsCover } from "./glob.js";
import { patternList } from "./names.js";
import type { CapabilityEntry, Coverage, Decision } from "./types.js";
import { ALLOW, deny } from "./types.js";

const CalendarResourceSchema = strictObject({
  calendars: v.pipe(patternList("calendar id", 255), v.minLength(1, "expected at least one calendar id"), v.description("calendar ids or globs: primary")),
});
export type CalendarResource = v.InferOutput<typeof CalendarResourceSchema>;

export interface CalendarRequest {
  calendar: string;
}

function calendarCovers(outer: CalendarResource, inner: CalendarResource): Coverage {
  return globsCover(outer.calendars, inner.calendars, "calendars");
}

function calendarMatches(capability: string) {
  return (grant: CalendarResource, request: CalendarRequest): Decision =>
    anyGlobMatches(grant.calendars, request.calendar)
      ? ALLOW
      : deny(capability, "calendar-not-allowed", `calendar ${JSON.stringify(request.calendar)} is not granted`);
}

export const calendarRead: CapabilityEntry<CalendarResource, CalendarRequest> = {
  name: "calendar.read",
  description: "Read events of the granted calendars.",
  resource: CalendarResourceSchema,
  defaultRisk: "safe",
  riskReason: "reads change nothing (DESIGN: reads Safe)",
  covers: calendarCovers,
  matches: calendarMatches("calendar.read"),
};

export const calendarAdd: CapabilityEntry<CalendarResource, CalendarRequest> = {
  name: "calendar.add",
  description: "Add events to the granted calendars.",
  resource: CalendarResourceSchema,
  defaultRisk: "guarded",
  riskReason: "adding an event changes the user's calendar and may invite other people (DESIGN: writes Guarded)",
  covers: calendarCovers,
  matches: calendarMatches("calendar.add"),
};
