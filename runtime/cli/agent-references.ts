/**
 * What `clawhive agent validate` checks beyond each file on this machine: the sub-agents a
 * manifest lists exist (in the agents dir or among the files given), and its skills and
 * sub-agents are ones it could use (`referenceProblems`), against the skills dir and the tools
 * of the plugins installed in the data dir's store.
 */
import { readdir, readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { parseAgentManifest, referenceProblems } from "../agents/index.js";
import type { AgentManifest, ParsedAgentManifest } from "../agents/index.js";
import { missingAgentProblems } from "../agents/spawn.js";
import { NotFoundError } from "../errors.js";
import { PluginRegistry } from "../plugins/install/index.js";
import type { ToolInfo } from "../runs/types.js";
import { defaultSkillsDir, loadSkills } from "../skills/index.js";
import { systemClock } from "../store/index.js";
import type { DangerWarning } from "../agents/index.js";
import { openExistingStore } from "./store-path.js";

/** What `agent validate` reports of one manifest file. */
export interface FileReport {
  file: string;
  ok: boolean;
  issues: { path: string; message: string }[];
  warnings: DangerWarning[];
  /** Folders inside the data dir that do not exist yet: the runtime creates them on first start. */
  notes?: string[];
}

/**
 * The checks beyond each file (`referenceProblems`, and sub-agents that exist), added to the
 * reports of the files that parsed. Agents are those of the agents dir and the files given.
 */
export async function checkReferences(
  reports: FileReport[],
  options: { parsed: ReadonlyMap<string, ParsedAgentManifest>; values: Readonly<Record<string, unknown>>; agentsDir: string },
): Promise<void> {
  if (options.parsed.size === 0) return;
  const agents = await agentsIn(options.agentsDir);
  for (const p of options.parsed.values()) agents.set(p.manifest.name, p.manifest);
  const skillsDir = typeof options.values.skills === "string" ? options.values.skills : defaultSkillsDir();
  const { skills } = await loadSkills(skillsDir);
  const tools = await installedTools(options.values);
  for (const report of reports) {
    const parsed = options.parsed.get(report.file);
    if (parsed === undefined) continue;
    const problems = [...missingAgentProblems(parsed.manifest, agents), ...referenceProblems(parsed.manifest, { skills, tools })];
    if (problems.length === 0) continue;
    report.ok = false;
    report.issues.push(...problems.map(({ path, message }) => ({ path, message })));
  }
}

/** The agents of the agents dir that parse (a broken one is its own file's problem). */
async function agentsIn(dir: string): Promise<Map<string, AgentManifest>> {
  const agents = new Map<string, AgentManifest>();
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => extname(n) === ".yaml");
  } catch {
    return agents;
  }
  for (const name of names) {
    try {
      const { manifest } = parseAgentManifest(await readFile(join(dir, name), "utf8"), { file: join(dir, name), baseDir: dir, checkHostDirs: false });
      agents.set(manifest.name, manifest);
    } catch {
      // Left out: `agent validate` on that file says why.
    }
  }
  return agents;
}

/** The tools of the plugins installed in the store the flags name, or `undefined` when there is no store. */
async function installedTools(values: Readonly<Record<string, unknown>>): Promise<ToolInfo[] | undefined> {
  let store;
  try {
    store = await openExistingStore(values);
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
  try {
    const installed = await new PluginRegistry(store, { clock: systemClock }).list();
    return installed.flatMap((p) => p.tools.map((t) => ({ plugin: p.name, name: t.name, qualifiedName: `${p.name}.${t.name}`, description: t.description, inputSchema: t.inputSchema, capabilities: [...t.capabilities], risk: t.risk })));
  } catch {
    // A store no runtime has set up yet (no plugins table): nothing is installed.
    return undefined;
  } finally {
    await store.close();
  }
}
