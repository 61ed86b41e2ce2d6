import { secretForms } from "../../host-proxies/secret-forms.js";
import { InvalidInputError } from "../errors.js";
import { canonicalJson } from "./json.js";
import type { JsonValue } from "./json.js";
import type { AuditKind } from "./types.js";

export const REDACTED = "[REDACTED]";

/**
 * Values shorter than this are not redacted. A short value is everywhere: redacting `abc`
 * would turn every `abc` in a record (key names included) into `[REDACTED]`, ruining it — and
 * the pattern of markers would then spell out the secret to anyone reading it, the opposite of
 * redaction. A credential that short is guessable anyway; keep such values out of logs by
 * other means.
 */
export const MIN_REDACTED_LENGTH = 4;

/** Keys whose values are credentials whatever they contain (compared lower-case, `-` as `_`). */
export const DEFAULT_SECRET_KEYS: readonly string[] = [
  "authorization",
  "proxy_authorization",
  "cookie",
  "set_cookie",
  "password",
  "passwd",
  "secret",
  "client_secret",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "api_key",
  "apikey",
  "x_api_key",
  "private_key",
];

/** What the `redactArgs` hook is told about the arguments it redacts. */
export interface RedactionSubject {
  readonly kind: AuditKind;
  readonly proxy: string | null;
  readonly function: string | null;
  readonly tool: string | null;
}

export interface RedactionOptions {
  /**
   * Secret values that must never reach the table: every occurrence, in any string field or
   * key, becomes `[REDACTED]` (values shorter than `MIN_REDACTED_LENGTH` are ignored). A function is called for every record, so rotated secrets apply.
   */
  readonly secrets?: readonly string[] | (() => readonly string[]);
  /** Keys whose values are replaced whole. Default `DEFAULT_SECRET_KEYS`. */
  readonly keys?: readonly string[];
  /** Runs first on the arguments (e.g. drop a URL's query); secrets and keys are applied after. */
  readonly redactArgs?: (args: JsonValue, subject: RedactionSubject) => JsonValue;
  /** Cap on the stored canonical arguments, in UTF-8 bytes. Default 16 KiB. */
  readonly maxArgsBytes?: number;
  /** Cap on other free text (error and denial messages), in UTF-8 bytes. Default 2 KiB. */
  readonly maxTextBytes?: number;
}

export interface RedactedArgs {
  /** Canonical JSON of the redacted arguments; only a prefix of it when `truncated`. */
  readonly text: string;
  /** UTF-8 size of the full redacted canonical JSON. */
  readonly bytes: number;
  readonly truncated: boolean;
}

/**
 * Redaction happens before anything is hashed or written, so a secret never reaches a column,
 * the hash input, or the database file. Order: the hook, then keys and secret values walked
 * structurally, then canonical JSON, then a last sweep of the text (a secret that only appears
 * once serialised, e.g. as a number), then the size cap — truncation after redaction, so it can
 * never leave half a secret.
 */
export class Redactor {
  readonly #secrets: (() => readonly string[]) | null;
  readonly #fixedSecrets: readonly string[];
  readonly #keys: ReadonlySet<string>;
  readonly #hook: RedactionOptions["redactArgs"];
  readonly #maxArgsBytes: number;
  readonly #maxTextBytes: number;

  constructor(options: RedactionOptions = {}) {
    const secrets = options.secrets ?? [];
    this.#secrets = typeof secrets === "function" ? secrets : null;
    this.#fixedSecrets = typeof secrets === "function" ? [] : redactionForms(secrets);
    this.#keys = new Set((options.keys ?? DEFAULT_SECRET_KEYS).map(normaliseKey));
    this.#hook = options.redactArgs;
    this.#maxArgsBytes = positive(options.maxArgsBytes ?? 16 * 1024, "maxArgsBytes");
    this.#maxTextBytes = positive(options.maxTextBytes ?? 2 * 1024, "maxTextBytes");
  }

  /** The secrets in force for one record, longest first so overlapping secrets redact whole. */
  secrets(): readonly string[] {
    return this.#secrets === null ? this.#fixedSecrets : redactionForms(this.#secrets());
  }

  args(value: JsonValue, subject: RedactionSubject, secrets: readonly string[]): RedactedArgs {
    const hooked = this.#hook === undefined ? value : this.#hook(value, subject);
    const text = sweep(canonicalJson(this.#walk(hooked, secrets)), secrets);
    const bytes = Buffer.byteLength(text);
    if (bytes <= this.#maxArgsBytes) return { text, bytes, truncated: false };
    return { text: truncateUtf8(text, this.#maxArgsBytes), bytes, truncated: true };
  }

  /** A JSON value stored whole (capabilities): keys and secrets redacted, never truncated. */
  json(value: JsonValue, secrets: readonly string[]): string {
    return sweep(canonicalJson(this.#walk(value, secrets)), secrets);
  }

  /** A free-text field: secrets swept, then capped. */
  text(value: string, secrets: readonly string[]): string {
    const swept = sweep(value, secrets);
    return Buffer.byteLength(swept) <= this.#maxTextBytes ? swept : truncateUtf8(swept, this.#maxTextBytes);
  }

  /** A short identifier (names, ids): secrets swept, never truncated. */
  name(value: string, secrets: readonly string[]): string {
    return sweep(value, secrets);
  }

  #walk(value: JsonValue, secrets: readonly string[]): JsonValue {
    if (typeof value === "string") return sweep(value, secrets);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) return (value as readonly JsonValue[]).map((item) => this.#walk(item, secrets));
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value as Record<string, JsonValue | undefined>)) {
      if (item === undefined) continue;
      const safeKey = sweep(key, secrets);
      out[safeKey] = this.#keys.has(normaliseKey(key)) ? REDACTED : this.#walk(item, secrets);
    }
    return out;
  }
}

/** Replaces every occurrence of each secret (`secrets` holds raw and JSON-escaped forms). */
export function sweep(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes that does not split a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over UTF-8 continuation bytes (10xxxxxx) to a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

/**
 * Secrets long enough to redact, plus their JSON-escaped forms (a secret with a quote or a
 * control character looks different once serialised) and the encodings a server echoing it
 * commonly uses (percent, hex, base64: see host-proxies/secret-forms.ts), longest first so a
 * secret inside another redacts whole.
 */
export function redactionForms(secrets: readonly string[]): readonly string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if ([...secret].length < MIN_REDACTED_LENGTH) continue;
    for (const form of secretForms(secret)) forms.add(form);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

function normaliseKey(key: string): string {
  return key.toLowerCase().replaceAll("-", "_");
}

function positive(value: number, field: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidInputError(`redaction ${field}: ${value} must be a positive integer`, { field });
  }
  return value;
}
