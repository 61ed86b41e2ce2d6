import { createParser } from "eventsource-parser";
import type { Answer } from "./wire.js";

export interface SseMessage {
  id: string;
  event: string;
  data: string;
}

/**
 * The messages of a `text/event-stream` body, read by eventsource-parser (the WHATWG
 * event-stream rules: a CR, LF or CRLF ends a line, also when a CRLF is split across two chunks;
 * comments skipped; data lines joined). `id` is the last event id seen, as EventSource keeps it.
 */
export async function* sseMessages(response: Answer): AsyncGenerator<SseMessage> {
  if (response.body === null) return;
  const ready: SseMessage[] = [];
  let lastId = "";
  const parser = createParser({
    onEvent: (event) => {
      if (event.id !== undefined) lastId = event.id;
      ready.push({ id: lastId, event: event.event ?? "message", data: event.data });
    },
  });
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (ready.length > 0) yield ready.shift()!;
  }
  parser.feed(decoder.decode());
  while (ready.length > 0) yield ready.shift()!;
}
