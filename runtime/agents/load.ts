/**
 * All agent manifests of a folder: every `*.yaml` (not `schema.json`), each file named after
 * its agent, then the checks that need every manifest at once (references, spawn-wider-agent).
 * Problems from all files are reported together, so one run of the loader shows them all.
 */
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { unacknowledgedProblems } from "./dangers.js";
import { AgentManifestError, inFile } from "./issues.js";
import type { ManifestIssue } from "./issues.js";
import { parseAgentManifest } from "./parse.js";
import type { ParsedAgentManifest } from "./parse.js";
import type { AgentManifest } from "./schema.js";
import { missingAgentProblems, spawnWiderWarnings } from "./spawn.js";

export interface LoadAgentOptions {
  /** The data dir: relative mount hosts resolve against it. */
  baseDir: string;
  /** Default true: mount host dirs must exist. */
  checkHostDirs?: boolean | undefined;
  /** The runtime's forbidden mount roots (see host-dirs.ts). */
  hostGuard?: MountHostGuard | undefined;
}

async function manifestFiles(dir: string, issues: ManifestIssue[]): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  for (const e of entries) {
    if (e.name.endsWith(".yml")) issues.push({ file: join(dir, e.name), path: "(root)", message: "agent manifests use the .yaml extension; rename the file" });
  }
  return entries.filter((e) => e.isFile() && e.name.endsWith(".yaml")).map((e) => e.name).sort();
}

async function parseAll(dir: string, options: LoadAgentOptions, issues: ManifestIssue[]): Promise<Map<string, ParsedAgentManifest>> {
  const parsed = new Map<string, ParsedAgentManifest>();
  for (const name of await manifestFiles(dir, issues)) {
    const file = join(dir, name);
    try {
      const text = await readFile(file, "utf8");
      const result = parseAgentManifest(text, { file, baseDir: options.baseDir, checkHostDirs: options.checkHostDirs, protectedDirs: [dir], hostGuard: options.hostGuard });
      const stem = basename(name, ".yaml");
      if (result.manifest.name !== stem) issues.push({ file, path: "name", message: `must equal the file name (${stem}), got ${result.manifest.name}` });
      else parsed.set(stem, result);
    } catch (err) {
      if (!(err instanceof AgentManifestError)) throw err;
      issues.push(...err.issues);
    }
  }
  return parsed;
}

/**
 * Loads and checks every agent manifest in `dir`. Throws one `AgentManifestError` listing
 * the problems of every file; returns the manifests by agent name.
 */
export async function loadAgentManifests(dir: string, options: LoadAgentOptions): Promise<ReadonlyMap<string, ParsedAgentManifest>> {
  const issues: ManifestIssue[] = [];
  const parsed = await parseAll(dir, options, issues);
  if (issues.length > 0) throw new AgentManifestError(issues);
  const manifests = new Map<string, AgentManifest>([...parsed].map(([name, p]) => [name, p.manifest]));
  for (const [name, p] of parsed) {
    const file = join(dir, `${name}.yaml`);
    const warnings = spawnWiderWarnings(p.manifest, manifests);
    p.warnings.push(...warnings);
    issues.push(...inFile(file, [...missingAgentProblems(p.manifest, manifests), ...unacknowledgedProblems(p.manifest, warnings)]));
  }
  if (issues.length > 0) throw new AgentManifestError(issues);
  return parsed;
}
