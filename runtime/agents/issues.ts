/**
 * Manifest problems as people read them: `capabilities/mail.yaml: grants.fs.read.mounts[0].host:
 * directory does not exist`. The path uses `.key` for map keys (capability names keep their
 * dot, as written in the YAML) and `[i]` for list items.
 */
import type * as v from "valibot";
import { ClawhiveError, InvalidInputError } from "../errors.js";
import type { AgentManifest } from "./schema.js";

export interface ManifestIssue {
  file: string;
  /** Dot path inside the manifest, `(root)` for the document itself. */
  path: string;
  message: string;
}

/** At most this many problems are spelled out; a wrong indent can produce hundreds. */
const MAX_LISTED = 20;

/** One or more manifests are invalid. `field` is the first problem's path. */
export class AgentManifestError extends InvalidInputError {
  readonly issues: readonly ManifestIssue[];
  /** The manifest as the schema shaped it, when the problems were found after the schema passed. */
  readonly shaped: AgentManifest | undefined;

  constructor(issues: readonly ManifestIssue[], options: { cause?: unknown; shaped?: AgentManifest } = {}) {
    const first = issues[0];
    const lines = issues.slice(0, MAX_LISTED).map((i) => `${i.file}: ${i.path}: ${i.message}`);
    if (issues.length > MAX_LISTED) lines.push(`… and ${issues.length - MAX_LISTED} more`);
    super(lines.join("\n") || "invalid agent manifest", { field: first?.path, cause: options.cause });
    this.issues = issues;
    this.shaped = options.shaped;
  }
}

/**
 * A run of an agent whose manifest does not pass (409 `agent_invalid`): the problems are named,
 * so the person knows what to fix; the other agents keep running.
 */
export class AgentInvalidError extends ClawhiveError {
  readonly issues: readonly ManifestIssue[];

  constructor(name: string, issues: readonly ManifestIssue[], options: { runId?: string } = {}) {
    const lines = issues.slice(0, MAX_LISTED).map((i) => `  ${i.file}: ${i.path}: ${i.message}`);
    if (issues.length > MAX_LISTED) lines.push(`  … and ${issues.length - MAX_LISTED} more`);
    const what = options.runId === undefined ? `agent ${name}` : `run ${options.runId}: its agent ${name}`;
    super("agent_invalid", `${what} is invalid and cannot run until its manifest is fixed ('clawhive agent validate' checks it):\n${lines.join("\n")}`, { status: 409 });
    this.issues = issues;
  }
}

/** Joins path parts: `grants` + `fs.read` → `grants.fs.read`, `mounts` + 0 → `mounts[0]`. */
export function joinPath(parts: readonly (string | number)[]): string {
  let path = "";
  for (const part of parts) path += typeof part === "number" ? `[${part}]` : path === "" ? part : `.${part}`;
  return path === "" ? "(root)" : path;
}

function valibotPath(issue: v.BaseIssue<unknown>): string {
  const parts = (issue.path ?? []).map((item) => (item.type === "array" ? Number(item.key) : String(item.key)));
  return joinPath(parts);
}

/** Valibot's built-in `Invalid type: Expected X but received Y`, said plainly. */
function valibotMessage(issue: v.BaseIssue<unknown>): string {
  if (issue.message.startsWith("Invalid type:") || issue.message.startsWith("Invalid key:")) {
    return `expected ${issue.expected ?? "something else"}, got ${issue.received}`;
  }
  return issue.message;
}

export function fromValibot(file: string, issues: readonly v.BaseIssue<unknown>[]): ManifestIssue[] {
  return issues.map((issue) => ({ file, path: valibotPath(issue), message: valibotMessage(issue) }));
}

/** A problem before it is tied to a file. */
export type Problem = Omit<ManifestIssue, "file">;

export function inFile(file: string, problems: readonly Problem[]): ManifestIssue[] {
  return problems.map((p) => ({ file, ...p }));
}
