/** `clawhive agent validate`: manifest files checked as the runtime would load them, here or by a server. */
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { AgentManifestError, parseAgentManifest } from "../agents/index.js";
import { missingDataDirMounts, parseAgentSource } from "../agents/store.js";
import { checkReferences, type FileReport } from "./agent-references.js";
import type { DangerWarning, ManifestIssue, ParsedAgentManifest } from "../agents/index.js";
import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import type { ClawhiveClient } from "../client/client.js";
import { resolveServer } from "./client.js";
import { withClient } from "./command-client.js";
import { inert, jsonOut } from "./render.js";
import { resolveAgentsDir, resolveDataDir, resolveMountGuard } from "./store-path.js";
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import { FLAGS, usage } from "./agent-flags.js";

/**
 * Whether the command goes through a server; the flags that only mean this machine's files do
 * not combine with one. Without a server, agents are this machine's files, read as files (see
 * docs/cli.md): there is no store to ask.
 */
export async function onServer(values: Readonly<Record<string, unknown>>): Promise<boolean> {
  const target = await resolveServer(values);
  const local = ["agents", "skip-host-dirs"].find((name) => values[name] !== undefined);
  if (target !== undefined && local !== undefined) throw new InvalidInputError(`--${local} and --server do not combine: the server checks against its own agents and dirs`, { field: local });
  return target !== undefined;
}

export async function validate(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FLAGS);
  if (positionals.length === 0) throw new InvalidInputError(`no manifest given; ${usage}`);
  const remote = await onServer(values);
  const options = {
    baseDir: resolveDataDir(values),
    checkHostDirs: values["skip-host-dirs"] !== true,
    protectedDirs: [resolveAgentsDir(values)],
    hostGuard: resolveMountGuard(values),
  };
  const reports: FileReport[] = [];
  if (remote) {
    if (values.skills !== undefined) throw new InvalidInputError("--skills and --server do not combine: the server checks against its own skills", { field: "skills" });
    await withClient(values, async (client) => {
      for (const file of positionals) reports.push(await validateOnServer(client, file));
    });
  } else {
    const parsed = new Map<string, ParsedAgentManifest>();
    for (const file of positionals) reports.push(await validateFile(file, { ...options, parsed }));
    await checkReferences(reports, { parsed, values, agentsDir: options.protectedDirs[0]! });
  }
  if (values.json) {
    console.log(jsonOut(reports));
  } else {
    for (const r of reports) {
      if (r.ok) console.log(`ok ${r.file}`);
      for (const w of r.warnings) console.log(`  warning: ${w.id}: ${w.message} (acknowledged)`);
      for (const n of r.notes ?? []) console.log(inert(`  note: ${n}`, { newlines: false }));
      for (const i of r.issues) console.log(`${r.file}: ${i.path}: ${i.message}`);
    }
  }
  return reports.every((r) => r.ok) ? 0 : 1;
}

async function validateFile(
  file: string,
  options: { baseDir: string; checkHostDirs: boolean; protectedDirs: string[]; hostGuard: MountHostGuard; parsed: Map<string, ParsedAgentManifest> },
): Promise<FileReport> {
  const fail = (issues: readonly ManifestIssue[]): FileReport => ({ file, ok: false, issues: issues.map(({ path, message }) => ({ path, message })), warnings: [] });
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    return fail([{ file, path: "(root)", message: `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` }]);
  }
  let parsed: ParsedAgentManifest;
  try {
    // As the runtime loads it: a mount folder inside the data dir that does not exist yet is
    // created on first start, so a fresh clone's examples validate (with a note saying so).
    parsed = options.checkHostDirs
      ? await parseAgentSource(text, { format: "yaml", dataDir: options.baseDir, file, protectedDirs: options.protectedDirs, hostGuard: options.hostGuard })
      : parseAgentManifest(text, { file, baseDir: options.baseDir, checkHostDirs: false, protectedDirs: options.protectedDirs, hostGuard: options.hostGuard });
  } catch (error) {
    if (!(error instanceof AgentManifestError)) throw error;
    // Shaped by the schema: its references (skills, tools, sub-agents) are checked too, so every
    // problem of the file is said at once.
    if (error.shaped !== undefined) options.parsed.set(file, { manifest: error.shaped, warnings: [] });
    return fail(error.issues);
  }
  // The loader's per-file rules (load.ts), so that a file that validates also loads.
  const ext = extname(file);
  if (ext !== ".yaml") return fail([{ file, path: "(root)", message: "agent manifests use the .yaml extension; rename the file" }]);
  const stem = basename(file, ext);
  if (parsed.manifest.name !== stem) return fail([{ file, path: "name", message: `must equal the file name (${stem}), got ${parsed.manifest.name}` }]);
  options.parsed.set(file, parsed);
  const missing = options.checkHostDirs ? [...new Set(missingDataDirMounts(parsed.manifest, options.baseDir).map((m) => m.host))] : [];
  const notes = missing.map((host) => `${host} does not exist yet; the runtime creates it on first start (or now: mkdir -p ${host})`);
  return { file, ok: true, issues: [], warnings: parsed.warnings, ...(notes.length === 0 ? {} : { notes }) };
}

/** The file's own rules (extension, name), then the server's checks (`POST /v1/agents/validate`). */
async function validateOnServer(client: ClawhiveClient, file: string): Promise<FileReport> {
  const fail = (path: string, message: string): FileReport => ({ file, ok: false, issues: [{ path, message }], warnings: [] });
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    return fail("(root)", `cannot read the file: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (extname(file) !== ".yaml") return fail("(root)", "agent manifests use the .yaml extension; rename the file");
  const answer = await client.validateAgent({ text: bytes, format: "yaml" }, { name: basename(file, ".yaml") });
  return answer.valid ? { file, ok: true, issues: [], warnings: answer.warnings as DangerWarning[] } : { file, ok: false, issues: answer.issues, warnings: [] };
}
