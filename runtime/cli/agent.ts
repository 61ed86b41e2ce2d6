import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { AgentManifestError, loadAgentManifests, parseAgentManifest } from "../agents/index.js";
import type { DangerWarning, ManifestIssue, ParsedAgentManifest } from "../agents/index.js";
import { InvalidInputError, NotFoundError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { resolveAgentsDir, resolveDataDir } from "./store-path.js";

export const agentHelp = `clawhive agent — check and list agent manifests (capabilities/<name>.yaml)

  clawhive agent validate FILE...   check each manifest as the runtime would load it
  clawhive agent list               the agents of the agents dir

  --json            print JSON
  --data-dir DIR    relative mount hosts resolve against it (default ./.clawhive; env CLAWHIVE_DATA_DIR)
  --agents DIR      the agents dir (default capabilities/ in the project; env CLAWHIVE_AGENTS_DIR)
  --skip-host-dirs  do not require mount host dirs to exist (lint on another machine)

  validate prints 'ok FILE' (and any acknowledged dangerous combination) or each problem as
  'FILE: PATH: MESSAGE'. Exit codes: 0 all valid; 1 a manifest is invalid; 2 bad usage.`;

const usage = "usage: clawhive agent validate FILE... | clawhive agent list";

const FLAGS = {
  json: { type: "boolean" },
  "data-dir": { type: "string" },
  agents: { type: "string" },
  "skip-host-dirs": { type: "boolean" },
} as const;

export async function agentCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "validate") return validate(rest);
  if (sub === "list") return list(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown agent command '${sub}'; ${usage}`);
}

interface FileReport {
  file: string;
  ok: boolean;
  issues: { path: string; message: string }[];
  warnings: DangerWarning[];
}

async function validate(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FLAGS);
  if (positionals.length === 0) throw new InvalidInputError(`no manifest given; ${usage}`);
  const options = {
    baseDir: resolveDataDir(values),
    checkHostDirs: values["skip-host-dirs"] !== true,
    protectedDirs: [resolveAgentsDir(values)],
  };
  const reports: FileReport[] = [];
  for (const file of positionals) reports.push(await validateFile(file, options));
  if (values.json) {
    console.log(JSON.stringify(reports, null, 2));
  } else {
    for (const r of reports) {
      if (r.ok) console.log(`ok ${r.file}`);
      for (const w of r.warnings) console.log(`  warning: ${w.id}: ${w.message} (acknowledged)`);
      for (const i of r.issues) console.log(`${r.file}: ${i.path}: ${i.message}`);
    }
  }
  return reports.every((r) => r.ok) ? 0 : 1;
}

async function validateFile(file: string, options: { baseDir: string; checkHostDirs: boolean; protectedDirs: string[] }): Promise<FileReport> {
  const fail = (issues: readonly ManifestIssue[]): FileReport => ({ file, ok: false, issues: issues.map(({ path, message }) => ({ path, message })), warnings: [] });
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return fail([{ file, path: "(root)", message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }]);
  }
  let parsed: ParsedAgentManifest;
  try {
    parsed = parseAgentManifest(text, { file, ...options });
  } catch (error) {
    if (error instanceof AgentManifestError) return fail(error.issues);
    throw error;
  }
  // The loader's per-file rules (load.ts), so that a file that validates also loads.
  const ext = extname(file);
  if (ext !== ".yaml") return fail([{ file, path: "(root)", message: "agent manifests use the .yaml extension; rename the file" }]);
  const stem = basename(file, ext);
  if (parsed.manifest.name !== stem) return fail([{ file, path: "name", message: `must equal the file name (${stem}), got ${parsed.manifest.name}` }]);
  return { file, ok: true, issues: [], warnings: parsed.warnings };
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FLAGS);
  if (positionals.length > 0) throw new InvalidInputError(`agent list takes no arguments, got ${positionals.join(" ")}; ${usage}`);
  const dir = resolveAgentsDir(values);
  let agents: ReadonlyMap<string, ParsedAgentManifest>;
  try {
    agents = await loadAgentManifests(dir, { baseDir: resolveDataDir(values), checkHostDirs: values["skip-host-dirs"] !== true });
  } catch (error) {
    if (error instanceof AgentManifestError) {
      // Invalid manifests are the user's content, not bad usage: print them all, exit 1.
      for (const i of error.issues) console.error(`${i.file}: ${i.path}: ${i.message}`);
      return 1;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new NotFoundError(`agents dir ${dir} does not exist: pass --agents DIR or set CLAWHIVE_AGENTS_DIR`, { cause: error });
    throw error;
  }
  if (values.json) {
    console.log(JSON.stringify([...agents.values()].map(({ manifest, warnings }) => ({ name: manifest.name, manifest, warnings })), null, 2));
    return 0;
  }
  if (agents.size === 0) {
    console.error(`no agent manifests in ${dir}`);
    return 0;
  }
  printTable([
    ["NAME", "MODEL", "PLUGINS", "CAPABILITIES", "DESCRIPTION"],
    ...[...agents.values()].map(({ manifest: m }) => [
      m.name,
      `${m.model.provider}/${m.model.id}`,
      m.plugins.map((p) => `${p.name}@${p.version}`).join(",") || "-",
      Object.keys(m.grants).sort().join(",") || "-",
      m.description.replace(/\s+/g, " "),
    ]),
  ]);
  return 0;
}

/** Columns padded to their widest cell; the last column is left ragged. */
function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0))) ?? [];
  for (const row of rows) console.log(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join("  ").trimEnd());
}
