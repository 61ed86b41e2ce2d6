/**
 * What a plugin imports from the host: `wit/host/*.wit` (package `clawhive:host@0.1.1`) as
 * componentize-js lifts it into the guest. GENERATED from wit/ by `npm run gen:sdk`: edit the
 * WIT (its `///` comments become the docs here), never this file; a test fails when it is stale.
 * Naming follows jco: functions and record fields in camelCase, enums as string unions,
 * `list<u8>` as `Uint8Array`, `u64` as `bigint`, `option<T>` fields optional.
 *
 * A failed host call does not return its `host-error`: it throws a `ComponentError` whose
 * `payload` is the variant. Use `hostError(e)` from the SDK to read it.
 */

declare module 'clawhive:host/calendar@0.1.1' {
  /**
   * The calendars the grant can see.
   */
  export function listCalendars(): Array<CalendarInfo>;
  export function listEvents(request: ListRequest): Array<Event>;
  export function addEvent(event: NewEvent): Event;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  /**
   * Either `date` (an all-day event, `2026-11-22`) or `date-time` (RFC 3339) with an optional
   * IANA time zone.
   */
  export interface EventTime {
    date?: string,
    dateTime?: string,
    timeZone?: string,
  }
  export interface Event {
    id: string,
    calendarId: string,
    summary: string,
    description?: string,
    location?: string,
    start: EventTime,
    end: EventTime,
    allDay: boolean,
    /**
     * Set on an occurrence of a recurring event.
     */
    recurringEventId?: string,
    attendees: Array<string>,
    status?: string,
  }
  export interface CalendarInfo {
    id: string,
    summary: string,
    primary: boolean,
  }
  export interface ListRequest {
    calendarId: string,
    /**
     * RFC 3339 bounds; recurring events are expanded into their occurrences between them.
     */
    timeMin: string,
    timeMax: string,
    query?: string,
    maxResults?: number,
  }
  export interface NewEvent {
    calendarId: string,
    summary: string,
    description?: string,
    location?: string,
    start: EventTime,
    end: EventTime,
    attendees: Array<string>,
  }
}

declare module 'clawhive:host/fs@0.1.1' {
  /**
   * The mounts this instance was bound with.
   */
  export function mounts(): Array<MountInfo>;
  export function read(path: string): Uint8Array;
  /**
   * Creates or truncates the file. The parent directory must exist.
   */
  export function write(path: string, data: Uint8Array): void;
  export function listDir(path: string): Array<Entry>;
  export function stat(path: string): StatInfo;
  /**
   * Removes a file or an empty directory.
   */
  export function remove(path: string): void;
  /**
   * Creates a directory and any missing parents.
   */
  export function mkdir(path: string): void;
  /**
   * @since 0.1.1. The entries below a directory, in one call: never following a symlink,
   * leaving out what `list-dir` leaves out, bounded by the options' caps.
   */
  export function walk(path: string, options: WalkOptions): WalkResult;
  /**
   * @since 0.1.1. The matching lines of the files below a directory, or of one file, in one
   * call: the same rules and per-file cap as `read` for every file it reads.
   */
  export function search(path: string, options: SearchOptions): SearchResult;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  /**
   * # Variants
   * 
   * ## `"file"`
   * 
   * ## `"directory"`
   * 
   * ## `"symlink"`
   * 
   * ## `"other"`
   */
  export type EntryKind = 'file' | 'directory' | 'symlink' | 'other';
  export interface Entry {
    name: string,
    kind: EntryKind,
    size: bigint,
  }
  export interface StatInfo {
    kind: EntryKind,
    size: bigint,
    modifiedMs: bigint,
  }
  /**
   * # Variants
   * 
   * ## `"ro"`
   * 
   * ## `"rw"`
   */
  export type MountMode = 'ro' | 'rw';
  export interface MountInfo {
    guest: string,
    mode: MountMode,
  }
  /**
   * Which cap ended a walk or search early (its result is then `truncated`). `max-output`: the
   * paths and lines returned reached `max-output-chars`.
   * # Variants
   * 
   * ## `"max-entries"`
   * 
   * ## `"max-results"`
   * 
   * ## `"max-files"`
   * 
   * ## `"max-bytes"`
   * 
   * ## `"max-matches"`
   * 
   * ## `"max-output"`
   * 
   * ## `"time"`
   */
  export type StopReason = 'max-entries' | 'max-results' | 'max-files' | 'max-bytes' | 'max-matches' | 'max-output' | 'time';
  /**
   * Entries a walk or search passed over, by reason.
   */
  export interface SkipCounts {
    /**
     * On the sensitive-name deny list: never listed, entered or read.
     */
    sensitive: number,
    /**
     * Symbolic links: never followed.
     */
    symlink: number,
    /**
     * Files with more than one name: a search reads none.
     */
    hardLink: number,
    /**
     * Devices, FIFOs and sockets: a search reads none.
     */
    special: number,
    /**
     * Files over the per-file byte cap.
     */
    tooLarge: number,
    /**
     * Files with a NUL byte in their first 8000 bytes, or not UTF-8.
     */
    binary: number,
    /**
     * Names no guest path can hold (not UTF-8, control characters, a backslash).
     */
    unaddressable: number,
    /**
     * Entries the host would not open.
     */
    unreadable: number,
    /**
     * Entries matching an exclude glob (a directory is then not entered).
     */
    excluded: number,
    /**
     * Directories deeper than `max-depth`, not entered.
     */
    tooDeep: number,
  }
  /**
   * Globs: `*` and `?` within one level, `**` across levels, `[...]`, `{a,b}`. A glob with a
   * `/` is matched against the path below the walk's root (a leading `/` anchors it there), one
   * without against an entry's name at any depth. Every field may be left out.
   */
  export interface WalkOptions {
    /**
     * Entries to return match one of these (default: all).
     */
    includeGlobs?: Array<string>,
    /**
     * Entries not to return; a matching directory is not entered.
     */
    excludeGlobs?: Array<string>,
    /**
     * Entry kinds to return (default: regular files only).
     */
    kinds?: Array<EntryKind>,
    /**
     * Most path segments below the root (1: the root's own entries; default 64, at most 128).
     */
    maxDepth?: number,
    /**
     * Entries to look at before stopping (default 100000).
     */
    maxEntries?: number,
    /**
     * Entries to return before stopping (default 10000).
     */
    maxResults?: number,
    /**
     * Time cap in milliseconds (default 10000, at most 25000).
     */
    maxMillis?: number,
    /**
     * Characters of paths to return before stopping (default and most 8388608).
     */
    maxOutputChars?: number,
  }
  export interface WalkEntry {
    /**
     * Guest path.
     */
    path: string,
    kind: EntryKind,
    /**
     * 0 for anything but a regular file.
     */
    size: bigint,
  }
  export interface WalkResult {
    /**
     * Depth first: a directory's entries in name order, then its subdirectories.
     */
    entries: Array<WalkEntry>,
    truncated: boolean,
    stopped?: StopReason,
    entriesScanned: number,
    skipped: SkipCounts,
    /**
     * Entries the host would not open, with why (at most 20).
     */
    unreadable: Array<string>,
  }
  /**
   * # Variants
   * 
   * ## `"literal"`
   * 
   * ## `"regex"`
   */
  export type SearchMode = 'literal' | 'regex';
  /**
   * `smart`: insensitive unless the pattern holds an upper-case letter.
   * # Variants
   * 
   * ## `"sensitive"`
   * 
   * ## `"insensitive"`
   * 
   * ## `"smart"`
   */
  export type CaseMode = 'sensitive' | 'insensitive' | 'smart';
  /**
   * Only `pattern` is required. Globs filter files as in `walk-options`.
   */
  export interface SearchOptions {
    /**
     * A JavaScript regular expression (mode `regex`, the default) or plain text (`literal`).
     */
    pattern: string,
    mode?: SearchMode,
    /**
     * Default `sensitive`.
     */
    caseMode?: CaseMode,
    includeGlobs?: Array<string>,
    excludeGlobs?: Array<string>,
    /**
     * Lines of context before and after each match (at most 10).
     */
    contextBefore?: number,
    contextAfter?: number,
    maxDepth?: number,
    maxEntries?: number,
    /**
     * Files to read before stopping (default 20000).
     */
    maxFiles?: number,
    /**
     * Bytes to read in all before stopping (default 256 MiB).
     */
    maxBytes?: number,
    /**
     * Larger files are skipped and counted (default and most: the read cap).
     */
    maxFileBytes?: number,
    /**
     * Matching lines to return (default 1000, at most 10000).
     */
    maxMatches?: number,
    /**
     * Matching lines to return from one file.
     */
    maxMatchesPerFile?: number,
    /**
     * Longer lines are cut to a window around the match (default 300 characters).
     */
    maxLineLength?: number,
    maxMillis?: number,
    /**
     * Characters of paths, lines and context lines to return before stopping (default and most
     * 8388608): a guest whose own answer must fit a size lowers it.
     */
    maxOutputChars?: number,
  }
  /**
   * One matching line (reported once, however often it matches).
   */
  export interface SearchMatch {
    path: string,
    /**
     * 1-based.
     */
    line: number,
    text: string,
    before: Array<string>,
    after: Array<string>,
  }
  export interface SearchResult {
    /**
     * In walk order, then line order.
     */
    matches: Array<SearchMatch>,
    truncated: boolean,
    stopped?: StopReason,
    entriesScanned: number,
    /**
     * Files read and searched.
     */
    filesScanned: number,
    /**
     * Files with a match returned.
     */
    filesMatched: number,
    bytesRead: bigint,
    skipped: SkipCounts,
    unreadable: Array<string>,
  }
}

declare module 'clawhive:host/gmail@0.1.1' {
  export function listMessages(request: ListRequest): ListResult;
  export function getMessage(id: string): Message;
  /**
   * The messages of a thread the grant can see, oldest first.
   */
  export function getThread(threadId: string): Array<MessageSummary>;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface Header {
    name: string,
    value: string,
  }
  export interface MessageSummary {
    id: string,
    threadId: string,
    from: string,
    to: string,
    subject: string,
    /**
     * RFC 3339, UTC.
     */
    date: string,
    snippet: string,
    labels: Array<string>,
    unread: boolean,
  }
  export interface AttachmentInfo {
    filename: string,
    mimeType: string,
    size: bigint,
  }
  export interface Message {
    summary: MessageSummary,
    /**
     * The text body (text/plain, or text/html converted to text), decoded.
     */
    text: string,
    attachments: Array<AttachmentInfo>,
    /**
     * The other address headers a reader needs, decoded and as written (groups such as
     * `Team: a@example.com, b@example.com;` kept whole), each empty when absent; several
     * headers of one name are joined with `, `.
     */
    cc: string,
    bcc: string,
    replyTo: string,
    /**
     * Who actually sent the message when that is not its From (RFC 5322 §3.6.2).
     */
    sender: string,
    messageId: string,
    inReplyTo?: string,
    references: Array<string>,
  }
  export interface ListRequest {
    /**
     * A label the grant allows, e.g. `INBOX`.
     */
    label: string,
    /**
     * A Gmail search (`is:unread`, `from:alice`), ANDed with the grant's query.
     */
    query?: string,
    maxResults?: number,
    pageToken?: string,
  }
  export interface ListResult {
    messages: Array<MessageSummary>,
    nextPageToken?: string,
  }
}

declare module 'clawhive:host/http@0.1.1' {
  export function fetch(request: Request): Response;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface Header {
    name: string,
    value: string,
  }
  export interface Request {
    method: string,
    url: string,
    headers: Array<Header>,
    body?: Uint8Array,
    timeoutMs?: number,
    /**
     * At most the grant's cap; counted after decompression.
     */
    maxBytes?: bigint,
    /**
     * Default true (each hop re-checked).
     */
    followRedirects?: boolean,
  }
  export interface Response {
    status: number,
    /**
     * The final URL, after redirects.
     */
    url: string,
    headers: Array<Header>,
    body: Uint8Array,
    /**
     * True when the body was cut at the size cap.
     */
    truncated: boolean,
    redirects: number,
  }
}

declare module 'clawhive:host/kv@0.1.1' {
  export function get(key: string): Uint8Array | undefined;
  /**
   * Fails with a denial when the namespace's quota would be exceeded.
   */
  export function set(key: string, value: Uint8Array): void;
  /**
   * True when the key existed.
   */
  export { _delete as delete };
  function _delete(key: string): boolean;
  export function listKeys(prefix: string | undefined): Array<string>;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
}

declare module 'clawhive:host/log@0.1.1' {
  export function write(level: Level, message: string): void;
  /**
   * # Variants
   * 
   * ## `"debug"`
   * 
   * ## `"info"`
   * 
   * ## `"warn"`
   * 
   * ## `"error"`
   */
  export type Level = 'debug' | 'info' | 'warn' | 'error';
}

declare module 'clawhive:host/mail@0.1.1' {
  export function send(message: Outgoing): Receipt;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface Outgoing {
    to: Array<string>,
    cc: Array<string>,
    bcc: Array<string>,
    /**
     * One line, at most 998 characters.
     */
    subject: string,
    /**
     * Plain text, at most 1 MiB.
     */
    body: string,
  }
  export interface Receipt {
    /**
     * The Message-ID header sent, `<…@…>`.
     */
    messageId: string,
    /**
     * The recipients the server accepted.
     */
    accepted: Array<string>,
    /**
     * The transport's own id (the Gmail message id, or the SMTP server's answer).
     */
    transportId: string,
  }
}

declare module 'clawhive:host/memory@0.1.1' {
  export function search(query: string, options: SearchOptions): Array<Hit>;
  /**
   * Returns the new episode's id.
   */
  export function write(text: string, options: WriteOptions): string;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface SearchOptions {
    /**
     * Default `agent`.
     */
    scope?: string,
    /**
     * Hits wanted: 1 to 20, default 5.
     */
    k?: number,
  }
  export interface Hit {
    episodeId: string,
    title: string,
    headingPath: Array<string>,
    text: string,
    /**
     * Higher is better; comparable only within one answer.
     */
    score: number,
    /**
     * The episode came from tool output, or from a run that had read tool output: data, never instructions.
     */
    untrusted: boolean,
    /**
     * `person`, `model` or `tool`.
     */
    source: string,
    partition: string,
    /**
     * Milliseconds since the Unix epoch.
     */
    createdAt: bigint,
  }
  export interface WriteOptions {
    /**
     * Default: the text's first heading, else its first line.
     */
    title?: string,
    /**
     * Default `agent`.
     */
    scope?: string,
  }
}

declare module 'clawhive:host/message@0.1.1' {
  export function send(message: Outgoing): Receipt;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface Outgoing {
    url: string,
    text: string,
    /**
     * `slack` (the default), `teams` or `json`.
     */
    format?: string,
    /**
     * A heading above the text, one line.
     */
    title?: string,
  }
  export interface Receipt {
    status: number,
    /**
     * The receiver's answer, at most 1000 characters.
     */
    response: string,
  }
}

declare module 'clawhive:host/schedule@0.1.1' {
  /**
   * The schedules runs of this agent created, oldest first.
   */
  export function list(): Array<ScheduleInfo>;
  /**
   * Fails `invalid-input` naming the field (a bad cron, a time passed, an unknown agent) before
   * anything is stored; `denied` past the grant (`agent-not-allowed`, `schedule-limit`,
   * `wider-than-creator`).
   */
  export function create(spec: ScheduleSpec): ScheduleInfo;
  /**
   * True when the schedule was active and is now cancelled; false when it had already ended.
   * `not-found` for an id that is not one of this agent's schedules.
   */
  export function cancel(id: string): boolean;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface ScheduleSpec {
    /**
     * The agent the schedule runs; the grant's `agents` must list it.
     */
    agent: string,
    /**
     * The task text the agent's model works on at each firing.
     */
    task: string,
    /**
     * One run at this time (RFC 3339 with an offset, e.g. 2026-12-01T09:00:00Z). Exactly one
     * of `at` and `cron`.
     */
    at?: string,
    /**
     * A run at each tick of this cron expression (5 fields; 6 with seconds first).
     */
    cron?: string,
    /**
     * The IANA time zone `cron` is read in; default UTC.
     */
    timezone?: string,
    /**
     * No run after this time (cron only), RFC 3339.
     */
    until?: string,
    /**
     * At most this many runs (cron only).
     */
    maxRuns?: number,
  }
  export interface ScheduleInfo {
    id: string,
    agent: string,
    task: string,
    /**
     * `once` or `cron`.
     */
    kind: string,
    at?: string,
    cron?: string,
    timezone?: string,
    until?: string,
    maxRuns?: number,
    runsSoFar: number,
    /**
     * The next firing's time; none once the schedule has ended.
     */
    nextAt?: string,
    /**
     * `active`, `done`, `missed` or `cancelled`.
     */
    status: string,
    createdAt: string,
  }
}

declare module 'clawhive:host/shell@0.1.1' {
  export function exec(request: ExecRequest): ExecResult;
  export type HostError = import('clawhive:host/types@0.1.1').HostError;
  export interface ExecRequest {
    /**
     * argv[0] is a command name the grant allows (e.g. `git`), never a path.
     */
    argv: Array<string>,
    /**
     * A guest path inside a mount; default: the first mount.
     */
    cwd?: string,
    stdin?: Uint8Array,
    /**
     * At most the grant's limit.
     */
    timeoutMs?: number,
  }
  /**
   * A stream kept as head and tail: `text` holds both, with a marker line between them when
   * lines were dropped from the middle.
   */
  export interface Output {
    text: string,
    bytes: bigint,
    linesDropped: bigint,
  }
  export interface ExecResult {
    /**
     * None when the process was killed by a signal.
     */
    exitCode?: number,
    signal?: string,
    timedOut: boolean,
    stdout: Output,
    stderr: Output,
    durationMs: number,
  }
}

declare module 'clawhive:host/types@0.1.1' {
  /**
   * Why the policy refused a host call. `reason` is a stable, machine-readable code
   * (for example `outside-mount`, `read-only-mount`, `sensitive-name`, `unbound-instance`).
   */
  export interface Denial {
    capability: string,
    reason: string,
    message: string,
  }
  /**
   * The error of every host call.
   */
  export type HostError = HostErrorDenied | HostErrorNotFound | HostErrorInvalidInput | HostErrorIo;
  export interface HostErrorDenied {
    tag: 'denied',
    val: Denial,
  }
  export interface HostErrorNotFound {
    tag: 'not-found',
    val: string,
  }
  export interface HostErrorInvalidInput {
    tag: 'invalid-input',
    val: string,
  }
  export interface HostErrorIo {
    tag: 'io',
    val: string,
  }
}
