/**
 * The `calendar` plugin: calendars and events over `clawhive:host/calendar`. Which calendars are
 * reachable is the grant's business, decided by the host on every call; adding an event is
 * Guarded, so a person approves the exact event before the host call runs.
 *
 * AssemblyScript, compiled to a core module of a few KiB (see docs/plugins.md).
 */
import { definePlugin, JsonArray, JsonKind, JsonObject, JsonString, JsonValue, JsonWriter, Outcome, Risk, Tool, ToolError } from "../../sdk-as/index";
import { addEvent as hostAddEvent, listCalendars as hostListCalendars, listEvents as hostListEvents, ListRequest, NewEvent } from "../../sdk-as/host/calendar";
import { formatNumber } from "../../sdk-as/json-write";
import { writeEvent } from "./event-json";
import { isEmail, isZoneName } from "./names";
import { DAY_MS, formatDay, formatUtc, instantOf, json, parseTime, Parsed, TimeKind, TimeValue } from "./time";

const DEFAULT_CALENDAR = "primary";
const DEFAULT_WINDOW_DAYS: f64 = 7;
/** Recurring events are expanded between the bounds: a year is plenty and keeps that bounded. */
const MAX_WINDOW_DAYS: f64 = 366;
const DEFAULT_MAX_RESULTS: f64 = 50;
const MAX_RESULTS: f64 = 250;
const MAX_ATTENDEES = 100;
const MAX_SUMMARY = 1024;
const MAX_LOCATION = 1024;
const MAX_DESCRIPTION = 8192;

function invalid(message: string): Outcome {
  return Outcome.fail(ToolError.invalidInput(message));
}

class ListCalendars extends Tool {
  constructor() {
    super(
      "list_calendars",
      "List the calendars this agent may see: id, name, and whether it is the primary calendar.",
      '{"type":"object","properties":{},"additionalProperties":false}',
      ["calendar.read"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const listed = hostListCalendars();
    const error = listed.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const calendars = listed.value;
    const w = new JsonWriter().beginObject().key("count").integer(calendars.length).key("calendars").beginArray();
    for (let i = 0; i < calendars.length; i++) {
      const c = unchecked(calendars[i]);
      w.beginObject().key("id").string(c.id).key("summary").string(c.summary).key("primary").bool(c.primary).endObject();
    }
    return Outcome.ok(w.endArray().endObject().text());
  }
}

class ListEvents extends Tool {
  constructor() {
    super(
      "list_events",
      "List events of a calendar between two bounds, recurring events expanded into occurrences. " +
        "`from` is required (this tool has no clock: pass today's date or the time you mean); `to` " +
        "defaults to 7 days after `from`. Bounds are dates (2026-11-22, read as UTC " +
        "midnight; a date `to` includes that whole day) or date-times with an offset " +
        "(2026-11-22T09:00:00+01:00). At most 366 days.",
      '{"type":"object","properties":{' +
        '"calendar_id":{"type":"string","description":"A calendar id from list_calendars (default primary)"},' +
        '"from":{"type":"string","description":"Start: 2026-11-22 or 2026-11-22T09:00:00Z"},' +
        '"to":{"type":"string","description":"End (default: from + 7 days)"},' +
        '"query":{"type":"string","description":"Text to search events for"},' +
        '"max_results":{"type":"integer","minimum":1,"maximum":250,"description":"How many (default 50)"}},' +
        '"required":["from"],"additionalProperties":false}',
      ["calendar.read"],
      Risk.Safe,
    );
  }

  run(input: JsonObject): Outcome {
    const given = input.string("calendar_id");
    const calendarId = given != null ? given : DEFAULT_CALENDAR;
    if (calendarId.trim() == "") return invalid("calendar_id: must not be empty");
    const maxGiven = input.number("max_results");
    const max = maxGiven != null ? maxGiven.value : DEFAULT_MAX_RESULTS;
    if (max < 1 || max > MAX_RESULTS) return invalid("max_results: must be between 1 and 250, got " + formatNumber(max));
    const from = boundInstant("from", parseTime("from", <string>input.string("from")), false);
    if (from.error != null) return invalid(<string>from.error);
    const start = from.instant;
    const to = input.string("to");
    let end = start + DEFAULT_WINDOW_DAYS * DAY_MS;
    if (to != null) {
      const bound = boundInstant("to", parseTime("to", to), true);
      if (bound.error != null) return invalid(<string>bound.error);
      end = bound.instant;
    }
    if (end <= start) return invalid("to: " + formatUtc(end) + " must be after from (" + formatUtc(start) + ")");
    if (end - start > MAX_WINDOW_DAYS * DAY_MS) return invalid("to: the window is longer than 366 days; list a shorter range");
    const request = new ListRequest();
    request.calendarId = calendarId;
    request.timeMin = formatUtc(start);
    request.timeMax = formatUtc(end);
    request.maxResults = <i64>max;
    const query = input.string("query");
    if (query != null && query.trim() != "") request.query = query;
    const listed = hostListEvents(request);
    const error = listed.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const events = listed.value;
    const w = new JsonWriter().beginObject()
      .key("calendar_id").string(calendarId)
      .key("time_min").string(request.timeMin)
      .key("time_max").string(request.timeMax)
      .key("count").integer(events.length)
      .key("events").beginArray();
    for (let i = 0; i < events.length; i++) writeEvent(w, unchecked(events[i]));
    return Outcome.ok(w.endArray().endObject().text());
  }
}

class Bound {
  constructor(public instant: f64, public error: string | null) {}
}

/**
 * A bound as an instant. A date starts at UTC midnight; as an end it covers its whole day. A
 * date-time must carry an offset: without a time zone database the guest cannot place a local
 * time, and the host's bounds are instants.
 */
function boundInstant(field: string, parsed: Parsed, isEnd: bool): Bound {
  if (parsed.error != null) return new Bound(0, parsed.error);
  const value = parsed.value;
  const instant = instantOf(value);
  if (isNaN(instant)) return new Bound(0, field + ": " + value.text + " has no offset; add Z or one like +01:00");
  return new Bound(value.kind == TimeKind.Date && isEnd ? instant + DAY_MS : instant, null);
}

class AddEvent extends Tool {
  constructor() {
    super(
      "add_event",
      "Add an event to a calendar (a person approves it first). Timed: start and end as date-times, " +
        "with an offset (2026-11-22T09:00:00+01:00) or as local times with time_zone (2026-11-22T09:00, " +
        "Europe/Paris). All-day: start and end as dates; end is exclusive (a one-day event on 2026-11-22 " +
        "ends 2026-11-23, the default). Attendees are email addresses and will be invited.",
      '{"type":"object","properties":{' +
        '"calendar_id":{"type":"string","description":"A calendar id from list_calendars, e.g. primary"},' +
        '"summary":{"type":"string","description":"The event\'s title"},' +
        '"start":{"type":"string","description":"2026-11-22T09:00:00+01:00, 2026-11-22T09:00 with time_zone, or 2026-11-22"},' +
        '"end":{"type":"string","description":"Like start; required for a timed event"},' +
        '"time_zone":{"type":"string","description":"IANA time zone of start and end, e.g. Europe/Paris"},' +
        '"location":{"type":"string"},' +
        '"description":{"type":"string"},' +
        '"attendees":{"type":"array","items":{"type":"string"},"description":"Email addresses to invite"}},' +
        '"required":["calendar_id","summary","start"],"additionalProperties":false}',
      ["calendar.add"],
      Risk.Guarded,
    );
  }

  run(input: JsonObject): Outcome {
    const calendarId = <string>input.string("calendar_id");
    if (calendarId.trim() == "") return invalid("calendar_id: must not be empty");
    const summary = (<string>input.string("summary")).trim();
    if (summary.length > MAX_SUMMARY) return invalid(tooLong("summary", summary, MAX_SUMMARY));
    if (summary == "") return invalid("summary: must not be empty");
    const zoneGiven = input.string("time_zone");
    let timeZone: string | null = null;
    if (zoneGiven != null) {
      const name = zoneGiven.trim();
      if (name.length > 64 || !isZoneName(name)) {
        return invalid("time_zone: " + json(zoneGiven) + " is not an IANA time zone name like Europe/Paris");
      }
      timeZone = name;
    }
    const event = new NewEvent();
    const bad = times(event, <string>input.string("start"), input.string("end"), timeZone);
    if (bad != null) return invalid(bad);
    const locationGiven = input.string("location");
    if (locationGiven != null) {
      const location = locationGiven.trim();
      if (location.length > MAX_LOCATION) return invalid(tooLong("location", location, MAX_LOCATION));
      if (location != "") event.location = location;
    }
    const descriptionGiven = input.string("description");
    if (descriptionGiven != null) {
      const description = descriptionGiven.trim();
      if (description.length > MAX_DESCRIPTION) return invalid(tooLong("description", description, MAX_DESCRIPTION));
      if (description != "") event.description = description;
    }
    const list = input.get("attendees");
    if (list != null) {
      const badAttendee = attendees(event, list.kind == JsonKind.Array ? (<JsonArray>list).items : []);
      if (badAttendee != null) return invalid(badAttendee);
    }
    event.calendarId = calendarId;
    event.summary = summary;
    const created = hostAddEvent(event);
    const error = created.error;
    if (error != null) return Outcome.fail(ToolError.fromHost(error));
    const w = new JsonWriter().beginObject().key("created");
    writeEvent(w, created.value);
    return Outcome.ok(w.endObject().text());
  }
}

function tooLong(field: string, text: string, max: i32): string {
  return field + ": is " + text.length.toString() + " characters; the limit is " + max.toString();
}

/** The start and end of `event` from the inputs, or the reason they do not make an event. */
function times(event: NewEvent, startText: string, endText: string | null, timeZone: string | null): string | null {
  const startParsed = parseTime("start", startText);
  if (startParsed.error != null) return startParsed.error;
  const start = startParsed.value;
  if (start.kind == TimeKind.Date) {
    let end: TimeValue;
    if (endText == null) {
      end = new TimeValue();
      end.day = start.day + 1;
      end.text = formatDay(start.day + 1);
    } else {
      const endParsed = parseTime("end", endText);
      if (endParsed.error != null) return endParsed.error;
      end = endParsed.value;
    }
    if (end.kind != TimeKind.Date) return "end: must be a date too when start is a date (an all-day event)";
    if (end.day <= start.day) return "end: " + end.text + " must be after start " + start.text + " (end is exclusive)";
    event.start.date = start.text;
    event.end.date = end.text;
    return null;
  }
  if (endText == null) return "end: is required for a timed event";
  const endParsed = parseTime("end", endText);
  if (endParsed.error != null) return endParsed.error;
  const end = endParsed.value;
  if (end.kind != TimeKind.DateTime) return "end: must be a date-time too when start is a date-time";
  if (!start.hasOffset && timeZone == null) return "start: " + start.text + " has no offset; add one (+01:00, Z) or give time_zone";
  if (!end.hasOffset && timeZone == null) return "end: " + end.text + " has no offset; add one (+01:00, Z) or give time_zone";
  if (!ordered(start, end)) return "end: " + end.text + " must be after start " + start.text;
  event.start.dateTime = start.text;
  event.start.timeZone = timeZone;
  event.end.dateTime = end.text;
  event.end.timeZone = timeZone;
  return null;
}

/**
 * Two instants compare as instants; two local times (one time zone) compare as wall times; a
 * mix cannot be compared without the zone database, so the host decides.
 */
function ordered(start: TimeValue, end: TimeValue): bool {
  const a = instantOf(start);
  const b = instantOf(end);
  if (!isNaN(a) && !isNaN(b)) return b > a;
  if (isNaN(a) && isNaN(b)) return end.local > start.local;
  return true;
}

/** The attendees of `event`, trimmed and without repeats (by lower case), or the reason they are not. */
function attendees(event: NewEvent, list: JsonValue[]): string | null {
  if (list.length > MAX_ATTENDEES) return "attendees: " + list.length.toString() + " addresses; the limit is 100";
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const entry = unchecked(list[i]);
    if (entry.kind != JsonKind.String) return "attendees[" + i.toString() + "]: must be a string";
    const given = (<JsonString>entry).value;
    const address = given.trim();
    if (!isEmail(address)) return "attendees[" + i.toString() + "]: " + json(given) + " is not an email address";
    const key = address.toLowerCase();
    if (!seen.has(key)) {
      seen.add(key);
      event.attendees.push(address);
    }
  }
  return null;
}

definePlugin([new ListCalendars(), new ListEvents(), new AddEvent()]);

export { cabi_realloc, describe, call, post_describe, post_call } from "../../sdk-as/index";
