/**
 * One agent manifest, text to checked value: YAML → schema → the checks of a shaped manifest
 * (cross-field, MCP servers, host dirs, mount consistency, dangerous combinations). A broken
 * YAML document or a value the schema refuses stops the parse (the checks need a shaped value);
 * the checks all run, and every problem they find is reported at once, so a person fixes a
 * manifest in one pass.
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
  if (doc.errors.length > 0) {
    const issues = doc.errors.map((error) => {
      const at = error.linePos?.[0];
      const where = at === undefined ? "(root)" : `line ${at.line}, column ${at.col}`;
      const what = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? "invalid YAML";
      return { file, path: where, message: `not valid YAML: ${what}` };
    });
    throw new AgentManifestError(issues, { cause: doc.errors[0] });
  }
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (cause) {
    // An alias expanded past the cap: refuse the document rather than build it.
    throw new AgentManifestError([{ file, path: "(root)", message: `not valid YAML: ${(cause as Error).message}` }], { cause });
  }
}

/** Each problem once (two checks may see the same mount), in the order found. */
function distinct(problems: readonly Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.path}\u0000${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
  const problems: Problem[] = [...manifestProblems(result.output)];
  problems.push(...mcpServerProblems(result.output.mcp_servers, { grants: result.output.grants, plugins: result.output.plugins.map((p) => p.name) }));
  // A host that could not be resolved keeps its written form: the checks below still read it.
  const hosts = resolveHostDirs(result.output, options);
  const manifest = hosts.manifest;
  problems.push(...hosts.problems);
  const mcp = resolveMcpHostDirs(manifest.mcp_servers, { baseDir: options.baseDir, checkHostDirs: options.checkHostDirs, hostGuard: options.hostGuard });
  problems.push(...mcp.problems);
  manifest.mcp_servers = mcp.servers;
  problems.push(...mountConsistencyProblems(manifest));
  const protectedDirs = [options.baseDir, ...(options.protectedDirs ?? [])].map(canonicalDir);
  const warnings = detectDangers(manifest, { protectedDirs });
  problems.push(...unacknowledgedProblems(manifest, warnings));
  if (problems.length > 0) throw new AgentManifestError(inFile(file, distinct(problems)), { shaped: result.output });
  return { manifest, warnings };
}
