import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { CalendarBackend } from "../../host-proxies/calendar/types.js";
import type { MailBackend } from "../../host-proxies/gmail/types.js";
import type { MailTransport } from "../../host-proxies/mail/types.js";
import { GoogleAccessTokens } from "../secrets/google/index.js";

/** Where mail comes from: a local Maildir (the embedded default) or the Gmail API. */
export type MailConfig = { backend: "maildir"; dir?: string } | { backend: "gmail"; tokenSecret: string; baseUrl?: string };
/** Where calendars live: local .ics files (the embedded default) or the Google Calendar API. */
export type CalendarConfig = { backend: "ics"; dir?: string; timeZone?: string } | { backend: "google"; tokenSecret: string; baseUrl?: string };

/**
 * How mail is sent (`mail.send`): an SMTP server, or the Gmail API with a Google account
 * connected by `clawhive auth google`. None: no agent can send, whatever its grant.
 */
export type MailSendConfig =
  | { transport: "smtp"; host: string; port?: number; secure?: boolean; requireTls?: boolean; from: string; user?: string; passwordSecret?: string; timeoutMs?: number }
  | { transport: "gmail"; from: string; tokenSecret: string; baseUrl?: string; timeoutMs?: number };

export interface Backends {
  mail: MailBackend;
  calendar: CalendarBackend;
  /** The transport `mail.send` sends through, with the deadline of one send; undefined when none is configured. */
  send?: { transport: MailTransport; timeoutMs: number | undefined } | undefined;
}

/**
 * Builds the runtime's mail and calendar backends, once. Configuration comes from options, else
 * the environment (`CLAWHIVE_MAIL_BACKEND=gmail` with `CLAWHIVE_GMAIL_TOKEN_SECRET`,
 * `CLAWHIVE_CALENDAR_BACKEND=google` with `CLAWHIVE_CALENDAR_TOKEN_SECRET`), else the embedded
 * defaults under the data dir. OAuth tokens are read from the secret store on the main thread,
 * per request, never handed to a plugin.
 */
export async function createBackends(
  options: { dataDir: string; mail?: MailConfig; calendar?: CalendarConfig; mailSend?: MailSendConfig },
  secrets: { value: (name: string) => Promise<string> },
): Promise<Backends> {
  const env = process.env;
  // A Google account connected by `clawhive auth google` yields access tokens refreshed here;
  // a secret holding a bare access token is used as it is.
  const google = new GoogleAccessTokens((name) => secrets.value(name));
  const mail: MailConfig =
    options.mail ??
    (env.CLAWHIVE_MAIL_BACKEND === "gmail"
      ? { backend: "gmail", tokenSecret: env.CLAWHIVE_GMAIL_TOKEN_SECRET ?? "gmail-token", ...(env.CLAWHIVE_GMAIL_BASE_URL ? { baseUrl: env.CLAWHIVE_GMAIL_BASE_URL } : {}) }
      : { backend: "maildir" });
  const calendar: CalendarConfig =
    options.calendar ??
    (env.CLAWHIVE_CALENDAR_BACKEND === "google"
      ? { backend: "google", tokenSecret: env.CLAWHIVE_CALENDAR_TOKEN_SECRET ?? "google-calendar-token", ...(env.CLAWHIVE_CALENDAR_BASE_URL ? { baseUrl: env.CLAWHIVE_CALENDAR_BASE_URL } : {}) }
      : { backend: "ics" });
  const tokens = { value: (name: string) => google.token(name, "gmail.read") };
  const send = options.mailSend ?? mailSendFromEnv(env);
  return {
    mail: await mailBackend(mail, options.dataDir, tokens),
    calendar: await calendarBackend(calendar, options.dataDir, { value: (name) => google.token(name, "calendar.read") }),
    send: send === undefined ? undefined : { transport: await mailTransport(send, secrets, google), timeoutMs: send.timeoutMs },
  };
}

/**
 * `CLAWHIVE_SMTP_HOST` (with `CLAWHIVE_SMTP_PORT`, `CLAWHIVE_SMTP_USER`,
 * `CLAWHIVE_SMTP_PASSWORD_SECRET`), or `CLAWHIVE_MAIL_SEND=gmail` (with
 * `CLAWHIVE_GOOGLE_SECRET`, default google-oauth); `CLAWHIVE_MAIL_FROM` is the sender.
 */
function mailSendFromEnv(env: NodeJS.ProcessEnv): MailSendConfig | undefined {
  const from = env.CLAWHIVE_MAIL_FROM;
  if (from === undefined || from === "") return undefined;
  if (env.CLAWHIVE_MAIL_SEND === "gmail") return { transport: "gmail", from, tokenSecret: env.CLAWHIVE_GOOGLE_SECRET || "google-oauth", ...(env.CLAWHIVE_GMAIL_BASE_URL ? { baseUrl: env.CLAWHIVE_GMAIL_BASE_URL } : {}) };
  if (!env.CLAWHIVE_SMTP_HOST) return undefined;
  return {
    transport: "smtp",
    host: env.CLAWHIVE_SMTP_HOST,
    from,
    ...(env.CLAWHIVE_SMTP_PORT ? { port: Number(env.CLAWHIVE_SMTP_PORT) } : {}),
    ...(env.CLAWHIVE_SMTP_USER ? { user: env.CLAWHIVE_SMTP_USER } : {}),
    ...(env.CLAWHIVE_SMTP_PASSWORD_SECRET ? { passwordSecret: env.CLAWHIVE_SMTP_PASSWORD_SECRET } : {}),
  };
}

async function mailTransport(config: MailSendConfig, secrets: { value: (name: string) => Promise<string> }, google: GoogleAccessTokens): Promise<MailTransport> {
  const { GmailTransport, SmtpTransport } = await import("../../host-proxies/mail/index.js");
  if (config.transport === "gmail") return new GmailTransport(() => google.token(config.tokenSecret, "mail.send"), { from: config.from, ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}) });
  const { user, passwordSecret } = config;
  return new SmtpTransport({
    host: config.host,
    from: config.from,
    ...(config.port === undefined ? {} : { port: config.port }),
    ...(config.secure === undefined ? {} : { secure: config.secure }),
    ...(config.requireTls === undefined ? {} : { requireTls: config.requireTls }),
    ...(user !== undefined && passwordSecret !== undefined ? { auth: { user, password: () => secrets.value(passwordSecret) } } : {}),
  });
}

/**
 * A backend built on first use: the mail and calendar modules (mailparser, ical.js, time zone
 * tables) are loaded only by a runtime whose runs read mail or calendars.
 */
function lazy<T extends object>(build: () => Promise<T>, methods: ReadonlyArray<keyof T & string>): T {
  let built: Promise<T> | undefined;
  const get = () => (built ??= build().catch((error: unknown) => {
    built = undefined;
    throw error;
  }));
  return Object.fromEntries(methods.map((m) => [m, async (...args: unknown[]) => ((await get())[m] as (...a: unknown[]) => unknown)(...args)])) as T;
}

async function mailBackend(config: MailConfig, dataDir: string, secrets: { value: (name: string) => Promise<string> }): Promise<MailBackend> {
  if (config.backend !== "gmail") await mkdir(join(resolve(dataDir, config.dir ?? "mail"), "cur"), { recursive: true });
  return lazy(() => buildMailBackend(config, dataDir, secrets), ["listMessages", "getMessage", "getThread"]);
}

async function calendarBackend(config: CalendarConfig, dataDir: string, secrets: { value: (name: string) => Promise<string> }): Promise<CalendarBackend> {
  if (config.backend !== "google") await mkdir(resolve(dataDir, config.dir ?? "calendars"), { recursive: true });
  return lazy(() => buildCalendarBackend(config, dataDir, secrets), ["listCalendars", "listEvents", "addEvent"]);
}

async function buildMailBackend(config: MailConfig, dataDir: string, secrets: { value: (name: string) => Promise<string> }): Promise<MailBackend> {
  const { GmailApiBackend, MaildirBackend } = await import("../../host-proxies/gmail/index.js");
  if (config.backend === "gmail") {
    return new GmailApiBackend(() => secrets.value(config.tokenSecret), config.baseUrl ? { baseUrl: config.baseUrl } : {});
  }
  const dir = resolve(dataDir, config.dir ?? "mail");
  for (const sub of ["cur", "new", "tmp"]) await mkdir(join(dir, sub), { recursive: true });
  return new MaildirBackend(dir);
}

async function buildCalendarBackend(config: CalendarConfig, dataDir: string, secrets: { value: (name: string) => Promise<string> }): Promise<CalendarBackend> {
  const { GoogleCalendarBackend, IcsFileBackend } = await import("../../host-proxies/calendar/index.js");
  if (config.backend === "google") {
    return new GoogleCalendarBackend({ token: () => secrets.value(config.tokenSecret), ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}) });
  }
  const dir = resolve(dataDir, config.dir ?? "calendars");
  await mkdir(dir, { recursive: true });
  return new IcsFileBackend(dir, config.timeZone ? { timeZone: config.timeZone } : {});
}
