/**
 * `clawhive:host/calendar`: granted calendars only, behind one `CalendarBackend` — local .ics
 * files (the embedded default) or Google Calendar.
 */
export { createCalendarProxy } from "./proxy.js";
export type { CalendarProxy, CalendarProxyOptions } from "./proxy.js";
export { calendarHostFunctions, parseListRequest, parseNewEvent, CALENDAR_HOST_FUNCTION_NAMES } from "./host-functions.js";
export type { CalendarHostFunctionName } from "./host-functions.js";
export { CALENDAR_CAPABILITIES, CALENDAR_DENIAL_REASONS } from "./reasons.js";
export type { CalendarCapability, CalendarDenialReason } from "./reasons.js";
export { calendarGranted, calendarIdProblem, MAX_CALENDAR_ID_LENGTH } from "./calendar-id.js";
export { CALENDAR_LIMITS, checkListRequest, checkNewEvent } from "./validate.js";
export { formatWarning } from "./ics/warnings.js";
export { IcsFileBackend } from "./ics/backend.js";
export type { IcsFileBackendOptions } from "./ics/backend.js";
export { GoogleCalendarBackend } from "./google/backend.js";
export type { GoogleCalendarBackendOptions } from "./google/backend.js";
export { DEFAULT_GOOGLE_CALENDAR_BASE_URL } from "./google/client.js";
export type {
  CalendarBackend,
  CalendarEvent,
  CalendarInfo,
  CalendarWarning,
  ListOptions,
  CheckedNewEvent,
  EventQuery,
  EventTime,
  ListEventsRequest,
  NewEvent,
} from "./types.js";
