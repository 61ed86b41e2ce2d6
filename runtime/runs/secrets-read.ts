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
import { findTransformedSecret, outputTexts, type HeldSecret, type SecretFinding } from "../secrets/transforms.js";
import type { Execution } from "./tool-execution.js";

export class SecretsRead {
  /** Value → name (a value stored under two names is one secret). */
  readonly #secrets = new Map<string, string>();
  /** Every form of every secret long enough, longest first (the audit log's redaction, audit/redact.ts). */
  #forms: readonly string[] = [];

  add(name: string, secret: string): void {
    if (this.#secrets.has(secret)) return;
    this.#secrets.set(secret, name);
    this.#forms = redactionForms([...this.#secrets.keys()]);
  }

  get empty(): boolean {
    return this.#forms.length === 0;
  }

  /** The secrets held, by name, for the stricter check of outputs (secrets/transforms.ts). */
  held(): HeldSecret[] {
    return [...this.#secrets].map(([value, name]) => ({ name, value }));
  }

  /** A secret held found in `output` in a transformed spelling, or undefined. */
  transformedIn(output: unknown): SecretFinding | undefined {
    return this.#secrets.size === 0 ? undefined : findTransformedSecret(outputTexts(output), this.held());
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

/**
 * What a ToolCall returns once checked with the operator's stricter setting
 * (`secrets.refuse_transformed_outputs`): unchanged, or, when its output or error holds a
 * secret the instance (or MCP server) was given in a transformed spelling, the tool's error
 * `secret_in_output` naming the secret (never its value) and the spelling.
 */
export function refusedIfTransformed(execution: Execution, secrets: SecretsRead, tool: string): Execution {
  if (secrets.empty || execution.effectApproval) return execution;
  const found = execution.ok ? secrets.transformedIn(execution.output) : secrets.transformedIn([execution.error!.message, execution.error!.denial?.message ?? ""]);
  if (found === undefined) return execution;
  const message = `${tool}: its ${execution.ok ? "output" : "error"} holds secret ${found.name} ${found.transform}, so it is refused (secrets.refuse_transformed_outputs); nothing of it reaches the model`;
  return { ok: false, error: { kind: SECRET_IN_OUTPUT, message, denial: { capability: "secrets", reason: SECRET_IN_OUTPUT, message } } };
}

/** The error (and denial reason) of an output refused for holding a secret. */
export const SECRET_IN_OUTPUT = "secret_in_output";

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
