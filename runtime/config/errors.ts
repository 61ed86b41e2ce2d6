import { InvalidInputError } from "../errors.js";
import type { ConfigSource } from "./types.js";

export interface ConfigIssue {
  readonly source: ConfigSource;
  /** The setting, as written in the file: `server.listen`, `sandbox.pool_size`. */
  readonly field: string;
  readonly message: string;
}

/** At most this many problems are spelled out; a wrong indent can produce dozens. */
const MAX_LISTED = 20;

/** `config clawhive.yaml`, `env CLAWHIVE_POOL_SIZE`, `flag --port`; `config` for the defaults (finding the file). */
export function describeSource(source: ConfigSource): string {
  switch (source.kind) {
    case "file":
      return `config ${source.file}`;
    case "env":
      return `env ${source.name}`;
    case "flag":
      return `flag --${source.name}`;
    default:
      return "config";
  }
}

/**
 * An environment variable or a flag names one setting, so its message needs no field; a file
 * holds many, so its message names the field.
 */
export function formatIssue(issue: ConfigIssue): string {
  const where = describeSource(issue.source);
  return issue.source.kind === "file" ? `${where}: ${issue.field}: ${issue.message}` : `${where}: ${issue.message}`;
}

/** The configuration is invalid; every problem found is listed, one a line. */
export class ConfigError extends InvalidInputError {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[], options: { cause?: unknown } = {}) {
    const lines = issues.slice(0, MAX_LISTED).map(formatIssue);
    if (issues.length > MAX_LISTED) lines.push(`… and ${issues.length - MAX_LISTED} more`);
    super(lines.join("\n") || "invalid configuration", { field: issues[0]?.field, cause: options.cause });
    this.issues = issues;
  }
}
