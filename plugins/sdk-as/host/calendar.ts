/**
 * Bindings for `clawhive:host/calendar@0.1.1` (wit/host/calendar.wit), lowered by hand to the
 * canonical ABI as host/gmail.ts does. `list-request` flattens to 11 values, so it goes as flat
 * arguments; `new-event` flattens to 30, more than the ABI's 16, so it goes as a pointer to the
 * record in guest memory. Every result comes back through a return area (the case byte, then the
 * payload at +4).
 */
import { storeString, takeStringAt, takeStringListAt } from "../abi";
import { storeOptionString, takeOptionStringAt } from "../option";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

@external("clawhive:host/calendar@0.1.1", "list-calendars")
declare function listCalendarsImport(ret: usize): void;

@external("clawhive:host/calendar@0.1.1", "list-events")
declare function listEventsImport(
  cp: usize, cl: usize, minp: usize, minl: usize, maxp: usize, maxl: usize, qc: i32, qp: usize, ql: usize, mc: i32, m: u32, ret: usize,
): void;

@external("clawhive:host/calendar@0.1.1", "add-event")
declare function addEventImport(event: usize, ret: usize): void;

/** `event-time` (size 36, align 4): `date` for an all-day bound, else `dateTime` with an optional zone. */
export class EventTime {
  date: string | null = null;
  dateTime: string | null = null;
  timeZone: string | null = null;
}

/** `event` (size 156, align 4). Null fields are none. */
export class Event {
  id: string = "";
  calendarId: string = "";
  summary: string = "";
  description: string | null = null;
  location: string | null = null;
  start: EventTime = new EventTime();
  end: EventTime = new EventTime();
  allDay: bool = false;
  recurringEventId: string | null = null;
  attendees: string[] = [];
  status: string | null = null;
}

/** `calendar-info` (size 20, align 4). */
export class CalendarInfo {
  id: string = "";
  summary: string = "";
  primary: bool = false;
}

/** `list-request`. A null `query` and a negative `maxResults` are none. */
export class ListRequest {
  calendarId: string = "";
  timeMin: string = "";
  timeMax: string = "";
  query: string | null = null;
  maxResults: i64 = -1;
}

/** `new-event` (size 120, align 4). Null fields are none. */
export class NewEvent {
  calendarId: string = "";
  summary: string = "";
  description: string | null = null;
  location: string | null = null;
  start: EventTime = new EventTime();
  end: EventTime = new EventTime();
  attendees: string[] = [];
}

const EVENT_SIZE: usize = 156;
const CALENDAR_SIZE: usize = 20;
const NEW_EVENT_SIZE: usize = 120;
/** The largest payload is `event` (156 bytes), after the case at +0 and its padding. */
const RET_SIZE: usize = 4 + EVENT_SIZE;

function takeEventTime(at: usize): EventTime {
  const t = new EventTime();
  t.date = takeOptionStringAt(at);
  t.dateTime = takeOptionStringAt(at + 12);
  t.timeZone = takeOptionStringAt(at + 24);
  return t;
}

function storeEventTime(at: usize, t: EventTime, blocks: Array<usize>): void {
  storeOptionString(at, t.date, blocks);
  storeOptionString(at + 12, t.dateTime, blocks);
  storeOptionString(at + 24, t.timeZone, blocks);
}

function takeEvent(at: usize): Event {
  const e = new Event();
  e.id = takeStringAt(at);
  e.calendarId = takeStringAt(at + 8);
  e.summary = takeStringAt(at + 16);
  e.description = takeOptionStringAt(at + 24);
  e.location = takeOptionStringAt(at + 36);
  e.start = takeEventTime(at + 48);
  e.end = takeEventTime(at + 84);
  e.allDay = load<u8>(at + 120) != 0;
  e.recurringEventId = takeOptionStringAt(at + 124);
  e.attendees = takeStringListAt(at + 136);
  e.status = takeOptionStringAt(at + 144);
  return e;
}

function freeAll(blocks: Array<usize>): void {
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
}

/** `list-calendars: func() -> result<list<calendar-info>, host-error>`. */
export function listCalendars(): HostResult<CalendarInfo[]> {
  const ret = heap.alloc(RET_SIZE);
  listCalendarsImport(ret);
  let result: HostResult<CalendarInfo[]>;
  if (load<u8>(ret) == 0) {
    const items = <usize>load<u32>(ret + 4);
    const n = <i32>load<u32>(ret + 8);
    const out = new Array<CalendarInfo>(n);
    for (let i = 0; i < n; i++) {
      const at = items + <usize>i * CALENDAR_SIZE;
      const c = new CalendarInfo();
      c.id = takeStringAt(at);
      c.summary = takeStringAt(at + 8);
      c.primary = load<u8>(at + 16) != 0;
      unchecked((out[i] = c));
    }
    if (items != 0) heap.free(items);
    result = new HostResult<CalendarInfo[]>(out, null);
  } else {
    result = new HostResult<CalendarInfo[]>([], takeHostErrorAt(ret + 4));
  }
  heap.free(ret);
  return result;
}

/** `list-events: func(request: list-request) -> result<list<event>, host-error>`. */
export function listEvents(request: ListRequest): HostResult<Event[]> {
  const blocks = new Array<usize>();
  // calendar id at +0, time-min at +8, time-max at +16, query at +24: (pointer, length) pairs.
  const args = heap.alloc(32);
  storeString(args, request.calendarId, blocks);
  storeString(args + 8, request.timeMin, blocks);
  storeString(args + 16, request.timeMax, blocks);
  const query = request.query;
  if (query != null) storeString(args + 24, query, blocks);
  const ret = heap.alloc(RET_SIZE);
  listEventsImport(
    <usize>load<u32>(args), <usize>load<u32>(args + 4),
    <usize>load<u32>(args + 8), <usize>load<u32>(args + 12),
    <usize>load<u32>(args + 16), <usize>load<u32>(args + 20),
    query != null ? 1 : 0, query != null ? <usize>load<u32>(args + 24) : 0, query != null ? <usize>load<u32>(args + 28) : 0,
    request.maxResults >= 0 ? 1 : 0, request.maxResults >= 0 ? <u32>request.maxResults : 0,
    ret,
  );
  let result: HostResult<Event[]>;
  if (load<u8>(ret) == 0) {
    const items = <usize>load<u32>(ret + 4);
    const n = <i32>load<u32>(ret + 8);
    const out = new Array<Event>(n);
    for (let i = 0; i < n; i++) unchecked((out[i] = takeEvent(items + <usize>i * EVENT_SIZE)));
    if (items != 0) heap.free(items);
    result = new HostResult<Event[]>(out, null);
  } else {
    result = new HostResult<Event[]>([], takeHostErrorAt(ret + 4));
  }
  freeAll(blocks);
  heap.free(args);
  heap.free(ret);
  return result;
}

/** `add-event: func(event: new-event) -> result<event, host-error>`. */
export function addEvent(event: NewEvent): HostResult<Event> {
  const blocks = new Array<usize>();
  const at = heap.alloc(NEW_EVENT_SIZE);
  blocks.push(at);
  storeString(at, event.calendarId, blocks);
  storeString(at + 8, event.summary, blocks);
  storeOptionString(at + 16, event.description, blocks);
  storeOptionString(at + 28, event.location, blocks);
  storeEventTime(at + 40, event.start, blocks);
  storeEventTime(at + 76, event.end, blocks);
  const n = event.attendees.length;
  const list = heap.alloc(<usize>n * 8);
  blocks.push(list);
  for (let i = 0; i < n; i++) storeString(list + <usize>i * 8, unchecked(event.attendees[i]), blocks);
  store<u32>(at + 112, <u32>list);
  store<u32>(at + 116, <u32>n);
  const ret = heap.alloc(RET_SIZE);
  addEventImport(at, ret);
  const result = load<u8>(ret) == 0
    ? new HostResult<Event>(takeEvent(ret + 4), null)
    : new HostResult<Event>(new Event(), takeHostErrorAt(ret + 4));
  freeAll(blocks);
  heap.free(ret);
  return result;
}

export { HostError };
