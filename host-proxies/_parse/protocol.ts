/** What crosses between the parse pool and its workers: plain, structured-clonable data. */
import type { CalendarJobInput, CalendarJobOutput } from "../calendar/ics/parse-job.js";
import type { MailJobInput, MailJobOutput, TextJobInput } from "../gmail/parse-job.js";
import type { HostError } from "../types.js";

export interface JobMap {
  /** An .ics file parsed, and (unless `expand` is false) its events in a window expanded. */
  "calendar.events": { input: CalendarJobInput; output: CalendarJobOutput };
  /** Raw RFC 5322 bytes to the parts, body text and thread root a mailbox lists. */
  "mail.content": { input: MailJobInput; output: MailJobOutput };
  /** A body's text: text/plain as sent, or text/html converted. */
  "mail.text": { input: TextJobInput; output: string };
}

export type JobKind = keyof JobMap;
export type JobInput<K extends JobKind> = JobMap[K]["input"];
export type JobOutput<K extends JobKind> = JobMap[K]["output"];

export interface JobRequest {
  id: number;
  kind: JobKind;
  input: unknown;
}

export type WorkerReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string; hostError?: HostError };

/** A worker's first message: the thread whose CPU time the pool reads (thread-clock.ts), if any. */
export interface WorkerHello {
  hello: true;
  clock: string | undefined;
}
