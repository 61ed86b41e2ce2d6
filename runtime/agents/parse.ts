/**
 * One agent manifest, text to checked value. Phases run in order and each stops the parse if
 * it finds problems (a later phase would only pile confusing follow-ups onto an earlier one):
 * YAML → schema → cross-field checks → host dirs → dangerous combinations.
 */
import * as v from "valibot";
import { parseDocument } from "yaml";
import { manifestProblems } from "./checks.js";
import { detectDangers, unacknowledgedProblems } from "./dangers.js";
import type { DangerWarning } from "./dangers.js";
import { canonicalDir, mountConsistencyProblems, resolveHostDirs } from "./host-dirs.js";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { AgentManifestError, fromValibot, inFile } from "./issues.js";
import type { Problem } from "./issues.js";
import { AgentManifestSchema } from "./schema.js";
import { mcpServerProblems, resolveMcpHostDirs } from "../mcp-client/checks.js";
import type { AgentManifest } from "./schema.js";

export interface ParseAgentOptions {
  /** Named in every error, e.g. `capabilities/mail.yaml`. */
  file: string;
  /** The data dir: relative mount hosts resolve against it (see host-dirs.ts). */
  baseDir: string;
  /** Default true: host dirs must exist. False lints without the disk. */
  checkHostDirs?: boolean | undefined;
  /** The runtime's forbidden mount roots; default the system roots and `baseDir` (see host-dirs.ts). */
  hostGuard?: MountHostGuard | undefined;
  /**
   * Dirs no writable mount may contain (`fs-write-runtime-files`), e.g. the manifests dir.
   * The data dir is always included.
   */
  protectedDirs?: readonly string[] | undefined;
}

export interface ParsedAgentManifest {
  /** Mount hosts absolute and canonical; defaults filled in. */
  manifest: AgentManifest;
  /** Dangerous combinations found, all of them acknowledged (otherwise the parse throws). */
  warnings: DangerWarning[];
}

/**
 * The last document read: a manifest is checked twice in a row (without its host folders, then,
 * once they are made, with them), and its YAML is parsed once. Each reader gets its own copy.
 */
let lastRead: { text: string; value: unknown } | undefined;

function readYaml(text: string, file: string): unknown {
  if (lastRead?.text === text) return structuredClone(lastRead.value);
  const value = parseYaml(text, file);
  lastRead = { text, value: structuredClone(value) };
  return value;
}

/** YAML text → plain data; `maxAliasCount` caps alias expansion ("billion laughs"). */
function parseYaml(text: string, file: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const at = error.linePos?.[0];
    const where = at === undefined ? "(root)" : `line ${at.line}, column ${at.col}`;
    const what = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? "invalid YAML";
    throw new AgentManifestError([{ file, path: where, message: `not valid YAML: ${what}` }], { cause: error });
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    // An alias expanded past the cap: refuse the document rather than build it.
    throw new AgentManifestError([{ file, path: "(root)", message: `not valid YAML: ${(cause as Error).message}` }], { cause });
  }
}

function fail(file: string, problems: readonly Problem[]): void {
  if (problems.length > 0) throw new AgentManifestError(inFile(file, problems));
}

/**
 * Parses and checks one agent manifest. Throws `AgentManifestError` (an `InvalidInputError`)
 * naming the file, the dot path and what is expected.
 */
export function parseAgentManifest(text: string, options: ParseAgentOptions): ParsedAgentManifest {
  const { file } = options;
  const raw = readYaml(text, file);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    const got = raw === null ? "an empty document" : Array.isArray(raw) ? "a list" : typeof raw;
    throw new AgentManifestError([{ file, path: "(root)", message: `expected a mapping (name:, description:, model:, …), got ${got}` }]);
  }
  const result = v.safeParse(AgentManifestSchema, raw);
  if (!result.success) throw new AgentManifestError(fromValibot(file, result.issues));
  fail(file, manifestProblems(result.output));
  fail(file, mcpServerProblems(result.output.mcp_servers, { grants: result.output.grants, plugins: result.output.plugins.map((p) => p.name) }));
  const { manifest, problems } = resolveHostDirs(result.output, options);
  fail(file, problems);
  const mcp = resolveMcpHostDirs(manifest.mcp_servers, { baseDir: options.baseDir, checkHostDirs: options.checkHostDirs, hostGuard: options.hostGuard });
  fail(file, mcp.problems);
  manifest.mcp_servers = mcp.servers;
  fail(file, mountConsistencyProblems(manifest));
  const protectedDirs = [options.baseDir, ...(options.protectedDirs ?? [])].map(canonicalDir);
  const warnings = detectDangers(manifest, { protectedDirs });
  fail(file, unacknowledgedProblems(manifest, warnings));
  return { manifest, warnings };
}
