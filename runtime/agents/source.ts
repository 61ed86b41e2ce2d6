/** An agent manifest given as text (YAML or JSON), as the API and the CLI receive one: parsed and checked like a file. */
import { statSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { isAbsolute, relative, resolve } from "node:path";
import { stringify } from "yaml";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { unacknowledgedProblems } from "./dangers.js";
import { grantMounts } from "./host-dirs.js";
import { AgentManifestError, inFile, type ManifestIssue } from "./issues.js";
import { parseAgentManifest } from "./parse.js";
import type { ParsedAgentManifest } from "./parse.js";
import type { AgentManifest } from "./schema.js";
import { missingAgentProblems, spawnWiderWarnings } from "./spawn.js";
import { CLIENT_JSON, scanJson } from "../json/index.js";

export type AgentFormat = "yaml" | "json";
export const AGENT_FORMATS: readonly AgentFormat[] = ["yaml", "json"];
/** Largest manifest text kept; the examples in capabilities/ are a few KiB. */
export const MAX_AGENT_SOURCE_BYTES = 256 * 1024;

export interface ParseAgentSourceOptions {
  readonly format: AgentFormat;
  /** The data dir: relative mount hosts resolve against it. */
  readonly dataDir: string;
  /** The name the manifest must carry (the API path's `:name`). */
  readonly name?: string;
  /** Named in every error; default `<agent NAME>`. */
  readonly file?: string;
  /**
   * The other agents it may reference (`sub_agents`, `agent.spawn`, `schedule`): references are
   * checked against them, and `spawn-wider-agent` too. Without it references are not checked.
   */
  readonly known?: ReadonlyMap<string, AgentManifest>;
  /** Dirs no writable mount may contain, besides the data dir (e.g. the manifests dir). */
  readonly protectedDirs?: readonly string[];
  /** The runtime's forbidden mount roots (see host-dirs.ts). */
  readonly hostGuard?: MountHostGuard | undefined;
  /**
   * Default false: nothing is written, and a mount folder inside the data dir that does not
   * exist yet is accepted (it would be created). True creates those folders, as the runtime does
   * for file agents, before the full check.
   */
  readonly createMounts?: boolean;
}

/**
 * Parses an agent manifest given as YAML or JSON text. Throws `AgentManifestError` (400, its
 * `field` the first problem's path) for anything the loader would refuse.
 */
export async function parseAgentSource(source: string, options: ParseAgentSourceOptions): Promise<ParsedAgentManifest> {
  const file = options.file ?? `<agent ${options.name ?? "?"}>`;
  const yaml = yamlText(source, options.format, file);
  const common = { file, baseDir: options.dataDir, protectedDirs: options.protectedDirs, hostGuard: options.hostGuard };
  const lint = lintOrAll(yaml, common);
  if (options.name !== undefined && lint.manifest.name !== options.name) {
    throw new AgentManifestError([{ file, path: "name", message: `must equal the name in the request path (${options.name}), got ${lint.manifest.name}` }]);
  }
  const missing = missingDataDirMounts(lint.manifest, options.dataDir);
  if (options.createMounts === true) for (const { host } of missing) await mkdir(host, { recursive: true });
  const parsed = options.createMounts === true || missing.length === 0 ? parseAgentManifest(yaml, common) : withoutMissingDirs(yaml, { ...common, lint, missing });
  if (options.known !== undefined) crossChecks(parsed, { known: options.known, file });
  return parsed;
}

/**
 * The check without the disk. When it finds problems, the host dirs are checked too, so their
 * problems are reported with the others at once (the data-dir folders that would be created
 * forgiven, as below).
 */
function lintOrAll(yaml: string, common: { file: string; baseDir: string; protectedDirs: readonly string[] | undefined; hostGuard: MountHostGuard | undefined }): ParsedAgentManifest {
  try {
    return parseAgentManifest(yaml, { ...common, checkHostDirs: false });
  } catch (error) {
    if (!(error instanceof AgentManifestError) || error.shaped === undefined) throw error;
    const forgiven = new Set(missingDataDirMounts(error.shaped, common.baseDir).map((m) => m.path));
    let more: readonly ManifestIssue[] = [];
    try {
      parseAgentManifest(yaml, common);
    } catch (full) {
      if (!(full instanceof AgentManifestError)) throw full;
      more = full.issues.filter((issue) => !forgiven.has(issue.path) && !error.issues.some((i) => i.path === issue.path && i.message === issue.message));
    }
    if (more.length === 0) throw error;
    throw new AgentManifestError([...error.issues, ...more], { cause: error, shaped: error.shaped });
  }
}

/** JSON is turned into YAML text (a JSON document's syntax errors are JSON's, reported as such). */
function yamlText(source: string, format: AgentFormat, file: string): string {
  if (Buffer.byteLength(source, "utf8") > MAX_AGENT_SOURCE_BYTES) {
    throw new AgentManifestError([{ file, path: "(root)", message: `larger than ${MAX_AGENT_SOURCE_BYTES} bytes` }]);
  }
  if (format === "yaml") return source;
  // Written out again as YAML (recursively): JSON nested past the client limit is refused first.
  const problem = scanJson(source, CLIENT_JSON);
  if (problem) throw new AgentManifestError([{ file, path: problem.path || "(root)", message: problem.message.replace(/^the JSON: /, "") }]);
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    // V8's message quotes the text around the error; the field is enough to find it.
    throw new AgentManifestError([{ file, path: "(root)", message: "not valid JSON" }]);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new AgentManifestError([{ file, path: "(root)", message: `expected an object (name, description, model, …), got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}` }]);
  }
  return stringify(value);
}

interface MissingMount {
  path: string;
  host: string;
}

/** Mount hosts inside the data dir that do not exist yet: the runtime creates those. */
export function missingDataDirMounts(manifest: AgentManifest, dataDir: string): MissingMount[] {
  const base = resolve(dataDir);
  const missing: MissingMount[] = [];
  for (const { capability, index, mount } of grantMounts(manifest)) {
    const host = resolve(base, mount.host);
    const inside = relative(base, host);
    if (inside.startsWith("..") || isAbsolute(inside)) continue;
    if (!existsAsDir(host)) missing.push({ path: `grants.${capability}.mounts[${index}].host`, host });
  }
  return missing;
}

function existsAsDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The full check without writing: the only problems forgiven are "does not exist" for the
 * data-dir folders that would be created. When any other problem remains it is thrown; else
 * the lint parse stands (those folders cannot be symlinks, so it saw what the runtime will).
 */
function withoutMissingDirs(
  yaml: string,
  options: { file: string; baseDir: string; protectedDirs: readonly string[] | undefined; hostGuard: MountHostGuard | undefined; lint: ParsedAgentManifest; missing: readonly MissingMount[] },
): ParsedAgentManifest {
  const { lint, missing, ...parse } = options;
  try {
    return parseAgentManifest(yaml, parse);
  } catch (error) {
    if (!(error instanceof AgentManifestError)) throw error;
    const forgiven = new Set(missing.map((m) => m.path));
    const left = error.issues.filter((issue) => !forgiven.has(issue.path));
    if (left.length > 0) throw new AgentManifestError(left, { cause: error });
    return lint;
  }
}

/** What the folder loader checks across manifests: references exist, wider agents acknowledged. */
export function crossChecks(parsed: ParsedAgentManifest, options: { known: ReadonlyMap<string, AgentManifest>; file: string }): void {
  const { known, file } = options;
  const agents = new Map(known);
  agents.set(parsed.manifest.name, parsed.manifest);
  const warnings = spawnWiderWarnings(parsed.manifest, agents);
  const problems = [...missingAgentProblems(parsed.manifest, agents), ...unacknowledgedProblems(parsed.manifest, warnings)];
  if (problems.length > 0) throw new AgentManifestError(inFile(file, problems));
  parsed.warnings.push(...warnings);
}
