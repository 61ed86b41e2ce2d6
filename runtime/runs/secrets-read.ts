/**
 * The stored secrets a plugin instance has read (config values naming a secret, see
 * plugin-config.ts). The guest needs them to work; the model, the run's events and its result
 * do not: every tool result and log line of that instance is shown with each such secret, in
 * the forms an echo commonly takes (host-proxies/secret-forms.ts: JSON-escaped, percent, hex,
 * base64), replaced by `[REDACTED]` — in the ToolCall that read it and in every later one, since
 * the instance lives for the run and may keep what it read. A secret shorter than
 * MIN_REDACTED_LENGTH is not redacted (see audit/redact.ts for why).
 */
import { redactionForms, sweep } from "../audit/redact.js";
import type { Execution } from "./tool-execution.js";

export class SecretsRead {
  readonly #secrets = new Set<string>();
  /** Every form of every secret long enough, longest first (the audit log's redaction, audit/redact.ts). */
  #forms: readonly string[] = [];

  add(secret: string): void {
    if (this.#secrets.has(secret)) return;
    this.#secrets.add(secret);
    this.#forms = redactionForms([...this.#secrets]);
  }

  get empty(): boolean {
    return this.#forms.length === 0;
  }

  text(text: string): string {
    return sweep(text, this.#forms);
  }

  /** `value` (a tool result: JSON values) with every string, keys too, redacted. */
  value(value: unknown): unknown {
    if (this.empty) return value;
    if (typeof value === "string") return this.text(value);
    if (Array.isArray(value)) return value.map((item) => this.value(item));
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [this.text(key), this.value(item)]));
    }
    return value;
  }
}

/** What a ToolCall returns, with the secrets its instance read redacted: its output, or its error's messages. */
export function withoutSecrets(execution: Execution, secrets: SecretsRead): Execution {
  if (execution.ok) return { ok: true, output: secrets.value(execution.output) };
  if (execution.error === undefined) return execution;
  const { denial } = execution.error;
  return {
    ok: false,
    error: { ...execution.error, message: secrets.text(execution.error.message), ...(denial === undefined ? {} : { denial: { ...denial, message: secrets.text(denial.message) } }) },
  };
}
