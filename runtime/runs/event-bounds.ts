/**
 * A run event is a view of the run (the audit log is its record), streamed to every reader and
 * stored one row each: it stays small whatever the model or a tool put in it. A ToolCall's input
 * (up to the model's whole answer), a tool's error message or a log line could otherwise be
 * megabytes, and a stored event over one statement's bound would take the events written with
 * it down too. Long text is cut with a marker saying how much was left out; a value still too
 * large (many fields) is replaced by a marker naming its size. The live stream and the stored
 * one show the same event.
 */
import type { RunEvent } from "./types.js";

/** The most one event may hold, as JSON. */
export const MAX_EVENT_BYTES = 64 * 1024;
/** The most one text of an event keeps. */
export const MAX_EVENT_TEXT_BYTES = 8 * 1024;

/** `event` as it is emitted and stored: itself when small enough. */
export function boundedEvent(event: RunEvent): RunEvent {
  if (jsonBytes(event) <= MAX_EVENT_BYTES) return event;
  const cut = cutTexts(event) as RunEvent;
  if (jsonBytes(cut) <= MAX_EVENT_BYTES) return cut;
  // Many short fields (a wide input): the largest fields give way to markers, the type and the
  // event's own ids stay.
  const fields = Object.entries(cut as unknown as Record<string, unknown>).sort(([, a], [, b]) => jsonBytes(b) - jsonBytes(a));
  const out: Record<string, unknown> = { ...(cut as unknown as Record<string, unknown>) };
  for (const [key, value] of fields) {
    if (key === "type" || typeof value !== "object" || value === null) continue;
    out[key] = { truncated: true, bytes: jsonBytes(value) };
    if (jsonBytes(out) <= MAX_EVENT_BYTES) break;
  }
  return out as unknown as RunEvent;
}

function cutTexts(value: unknown): unknown {
  if (typeof value === "string") return cutText(value);
  if (Array.isArray(value)) return value.map(cutTexts);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutTexts(item)]));
  return value;
}

/** `text` within MAX_EVENT_TEXT_BYTES, with a marker when cut. */
export function cutText(text: string, maxBytes = MAX_EVENT_TEXT_BYTES): string {
  if (text.length <= maxBytes / 4) return text;
  const bytes = Buffer.from(text, "utf8");
  if (bytes.byteLength <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString("utf8")}… [truncated: ${bytes.byteLength - end} more bytes]`;
}

function jsonBytes(value: unknown): number {
  const text = JSON.stringify(value) ?? "";
  // A character is at most 3 UTF-8 bytes in JSON text (a lone surrogate is escaped): short
  // texts need no count.
  return text.length * 3 <= MAX_EVENT_BYTES ? text.length : Buffer.byteLength(text);
}

/** Events a Run keeps in memory, at least (all of them are in the store). */
export const EVENTS_KEPT = 10_000;
/**
 * How far past EVENTS_KEPT the list grows before its oldest are dropped: dropping one per event
 * moved the whole list on every event of a long run (a host call's, a ToolCall's).
 */
const EVENTS_SLACK = 1_000;

/** Drops the oldest of a run's in-memory `events` once they pass EVENTS_KEPT by EVENTS_SLACK. */
export function keepLatestEvents(events: RunEvent[]): void {
  if (events.length > EVENTS_KEPT + EVENTS_SLACK) events.splice(0, events.length - EVENTS_KEPT);
}
