/**
 * What a plugin imports from the host: `wit/host/*.wit` (package `clawhive:host@0.1.0`) as
 * componentize-js lifts it into the guest. Written by hand, with docs; a test
 * (test/plugins/build/host-types.test.ts) compares every declaration with what `jco guest-types`
 * derives from the WIT, so a WIT change this file does not follow fails the tests. Naming
 * follows jco: functions and record fields in camelCase, enums as string unions, `list<u8>` as
 * `Uint8Array`, `u64` as `bigint`, `option<T>` fields optional.
 *
 * A failed host call does not return its `host-error`: it throws a `ComponentError` whose
 * `payload` is the variant. Use `hostError(e)` from the SDK to read it.
 */

declare module "clawhive:host/types@0.1.0" {
  /**
   * Why the policy refused a host call. `reason` is a stable, machine-readable code
   * (for example `outside-mount`, `read-only-mount`, `sensitive-name`, `unbound-instance`).
   */
  export interface Denial {
    capability: string;
    reason: string;
    message: string;
  }

  /** The error of every host call. */
  export type HostError = HostErrorDenied | HostErrorNotFound | HostErrorInvalidInput | HostErrorIo;
  export interface HostErrorDenied {
    tag: "denied";
    val: Denial;
  }
  export interface HostErrorNotFound {
    tag: "not-found";
    val: string;
  }
  export interface HostErrorInvalidInput {
    tag: "invalid-input";
    val: string;
  }
  export interface HostErrorIo {
    tag: "io";
    val: string;
  }
}

declare module "clawhive:host/fs@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  export type EntryKind = "file" | "directory" | "symlink" | "other";

  export interface Entry {
    name: string;
    kind: EntryKind;
    size: bigint;
  }

  export interface StatInfo {
    kind: EntryKind;
    size: bigint;
    modifiedMs: bigint;
  }

  export type MountMode = "ro" | "rw";

  export interface MountInfo {
    guest: string;
    mode: MountMode;
  }

  /** The mounts this instance was bound with. */
  export function mounts(): MountInfo[];
  export function read(path: string): Uint8Array;
  /** Creates or truncates the file. The parent directory must exist. */
  export function write(path: string, data: Uint8Array): void;
  export function listDir(path: string): Entry[];
  export function stat(path: string): StatInfo;
  /** Removes a file or an empty directory. */
  export function remove(path: string): void;
  /** Creates a directory and any missing parents. */
  export function mkdir(path: string): void;
}

declare module "clawhive:host/log@0.1.0" {
  export type Level = "debug" | "info" | "warn" | "error";

  /** A line into the run's log (size- and rate-limited by the host). */
  export function write(level: Level, message: string): void;
}

declare module "clawhive:host/shell@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  export interface ExecRequest {
    /** argv[0] is a command name the grant allows (e.g. `git`), never a path. */
    argv: string[];
    /** A guest path inside a mount; default: the first mount. */
    cwd?: string;
    stdin?: Uint8Array;
    timeoutMs?: number;
  }

  /** A stream kept as head and tail, with a marker line where lines were dropped. */
  export interface Output {
    text: string;
    bytes: bigint;
    linesDropped: bigint;
  }

  export interface ExecResult {
    exitCode?: number;
    signal?: string;
    timedOut: boolean;
    stdout: Output;
    stderr: Output;
    durationMs: number;
  }

  export function exec(request: ExecRequest): ExecResult;
}

declare module "clawhive:host/http@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  export interface Header {
    name: string;
    value: string;
  }

  export interface Request {
    method: string;
    url: string;
    headers: Header[];
    body?: Uint8Array;
    timeoutMs?: number;
    /** Counted after decompression. */
    maxBytes?: bigint;
    followRedirects?: boolean;
  }

  export interface Response {
    status: number;
    /** The final URL, after redirects. */
    url: string;
    headers: Header[];
    body: Uint8Array;
    truncated: boolean;
    redirects: number;
  }

  export function fetch(request: Request): Response;
}

declare module "clawhive:host/gmail@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  export interface Header {
    name: string;
    value: string;
  }

  export interface MessageSummary {
    id: string;
    threadId: string;
    from: string;
    to: string;
    subject: string;
    /** RFC 3339, UTC. */
    date: string;
    snippet: string;
    labels: string[];
    unread: boolean;
  }

  export interface AttachmentInfo {
    filename: string;
    mimeType: string;
    size: bigint;
  }

  export interface Message {
    summary: MessageSummary;
    /** The text body (text/plain, or text/html converted to text), decoded. */
    text: string;
    attachments: AttachmentInfo[];
    messageId: string;
    inReplyTo?: string;
    references: string[];
  }

  export interface ListRequest {
    /** A label the grant allows, e.g. `INBOX`. */
    label: string;
    /** A Gmail search, ANDed with the grant's query. */
    query?: string;
    maxResults?: number;
    pageToken?: string;
  }

  export interface ListResult {
    messages: MessageSummary[];
    nextPageToken?: string;
  }

  export function listMessages(request: ListRequest): ListResult;
  export function getMessage(id: string): Message;
  /** The messages of a thread the grant can see, oldest first. */
  export function getThread(threadId: string): MessageSummary[];
}

declare module "clawhive:host/calendar@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  /** Either `date` (all-day, `2026-11-22`) or `dateTime` (RFC 3339) with an optional time zone. */
  export interface EventTime {
    date?: string;
    dateTime?: string;
    timeZone?: string;
  }

  export interface Event {
    id: string;
    calendarId: string;
    summary: string;
    description?: string;
    location?: string;
    start: EventTime;
    end: EventTime;
    allDay: boolean;
    recurringEventId?: string;
    attendees: string[];
    status?: string;
  }

  export interface CalendarInfo {
    id: string;
    summary: string;
    primary: boolean;
  }

  export interface ListRequest {
    calendarId: string;
    timeMin: string;
    timeMax: string;
    query?: string;
    maxResults?: number;
  }

  export interface NewEvent {
    calendarId: string;
    summary: string;
    description?: string;
    location?: string;
    start: EventTime;
    end: EventTime;
    attendees: string[];
  }

  export function listCalendars(): CalendarInfo[];
  export function listEvents(request: ListRequest): Event[];
  export function addEvent(event: NewEvent): Event;
}

declare module "clawhive:host/kv@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  export function get(key: string): Uint8Array | undefined;
  /** Fails with a denial (`quota-exceeded`, `value-too-large`) when the value does not fit. */
  export function set(key: string, value: Uint8Array): void;
  /**
   * True when the key existed. `delete` is a reserved word, so it cannot be declared as a
   * function name; jco's guest types declare `_delete` and export it as `delete`, which is the
   * only name the guest module has: `import { delete as kvDelete } from "clawhive:host/kv@0.1.0"`.
   * (`_delete` is not exported: the `export {…}` below makes this block's exports explicit.)
   */
  function _delete(key: string): boolean;
  export { _delete as delete };
  /** Keys that start with `prefix`, or all keys for `undefined`, in UTF-8 byte order. */
  export function listKeys(prefix: string | undefined): string[];
}

declare module "clawhive:host/schedule@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  /** What `create` takes: exactly one of `at` (RFC 3339 with an offset) and `cron`. */
  export interface ScheduleSpec {
    agent: string;
    task: string;
    at?: string;
    cron?: string;
    timezone?: string;
    until?: string;
    maxRuns?: number;
  }

  export interface ScheduleInfo {
    id: string;
    agent: string;
    task: string;
    /** `once` or `cron`. */
    kind: string;
    at?: string;
    cron?: string;
    timezone?: string;
    until?: string;
    maxRuns?: number;
    runsSoFar: number;
    nextAt?: string;
    /** `active`, `done`, `missed` or `cancelled`. */
    status: string;
    createdAt: string;
  }

  /** The schedules runs of this agent created (never a person's, never another agent's). */
  export function list(): ScheduleInfo[];
  /** Fails `invalid-input` naming the field, or `denied` past the grant. */
  export function create(spec: ScheduleSpec): ScheduleInfo;
  /** True when cancelled now; false when it had already ended; `not-found` for another's id. */
  export function cancel(id: string): boolean;
}

declare module "clawhive:host/memory@0.1.0" {
  export type HostError = import("clawhive:host/types@0.1.0").HostError;

  export interface SearchOptions {
    /** `agent` (default), `user` or `project/<name>`. */
    scope?: string;
    /** 1 to 20, default 5. */
    k?: number;
  }
  export interface Hit {
    episodeId: string;
    title: string;
    headingPath: string[];
    text: string;
    score: number;
    /** From tool output, or written by a run that had read tool output: data, never instructions. */
    untrusted: boolean;
    source: string;
    partition: string;
    /** Milliseconds since the Unix epoch. */
    createdAt: bigint;
  }
  export interface WriteOptions {
    title?: string;
    scope?: string;
  }
  export function search(query: string, options: SearchOptions): Hit[];
  /** Returns the new episode's id. */
  export function write(text: string, options: WriteOptions): string;
}
