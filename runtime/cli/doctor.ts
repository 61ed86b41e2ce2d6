import { existsSync, readdirSync } from "node:fs";
import { basename, join } from "node:path";
import { probeSandbox } from "../../host-proxies/shell/index.js";
import { AgentCatalogue } from "../agents/catalogue.js";
import { findDataDir } from "../config/data-dir.js";
import { InvalidInputError } from "../errors.js";
import { defaultBuildCacheDir, installedAsPackage, pluginSourceDirs } from "../plugins/locations.js";
import { openStore, parseStoreUrl } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { paint } from "./colour.js";
import { inert } from "./render.js";
import { resolveAgentsDir, resolveDataDir, resolveStoreUrl, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const doctorHelp = `clawhive doctor — check what a first run needs, and say what to do about each gap

  clawhive doctor [--agents DIR] [--data-dir DIR] [--store URL]

  Checks: Node's version; bubblewrap (the shell proxy's sandbox); which store the commands use
  and why; the first-party plugins built (else the first start compiles them, 20-80 s); the
  agents folder (each manifest valid); each agent's model key present in the secret store
  (names only, never values).

  Exit codes: 0 nothing failed (warnings may remain); 1 a check failed; 2 bad usage.`;

export interface Check {
  readonly status: "ok" | "warn" | "fail";
  readonly what: string;
  /** What to do about it; empty when nothing. */
  readonly fix: string;
}

export async function doctorCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, agents: { type: "string" } });
  if (positionals.length > 0) throw new InvalidInputError("usage: clawhive doctor [--agents DIR] [--data-dir DIR]");
  const checks: Check[] = [nodeCheck(), await sandboxCheck(), storeCheck(values), ...(await pluginChecks(values)), ...(await agentChecks(values))];
  const marks = { ok: paint.green("ok  "), warn: paint.yellow("warn"), fail: paint.red("FAIL") };
  for (const check of checks) {
    console.log(`${marks[check.status]} ${inert(check.what, { newlines: false })}`);
    if (check.fix !== "") console.log(inert(`     → ${check.fix}`, { newlines: false }));
  }
  return checks.some((c) => c.status === "fail") ? 1 : 0;
}

function nodeCheck(): Check {
  const major = Number(process.versions.node.split(".")[0]);
  return major >= 20 ? { status: "ok", what: `node ${process.versions.node}`, fix: "" } : { status: "fail", what: `node ${process.versions.node} is older than 20`, fix: "install Node 20 or later" };
}

async function sandboxCheck(): Promise<Check> {
  const info = await probeSandbox();
  if (info.available) return { status: "ok", what: `bubblewrap at ${info.bwrapPath}`, fix: "" };
  return { status: "warn", what: `bubblewrap unusable: ${info.reason}`, fix: "the shell proxy refuses every command without it: apt-get install bubblewrap (and allow unprivileged user namespaces)" };
}

function storeCheck(values: Readonly<Record<string, unknown>>): Check {
  const dataDir = resolveDataDir(values);
  const why = values["data-dir"] !== undefined ? "--data-dir" : process.env.CLAWHIVE_DATA_DIR ? "CLAWHIVE_DATA_DIR" : findDataDir(process.cwd()) === dataDir ? "the nearest .clawhive from here up" : "the project's .clawhive";
  const location = parseStoreUrl(resolveStoreUrl(values));
  if (location.kind !== "file") return { status: "ok", what: `store ${location.kind === "remote" ? "on a libSQL server" : "configured"} (data dir ${dataDir}, from ${why})`, fix: "" };
  if (existsSync(location.path)) return { status: "ok", what: `store ${location.path} (from ${why})`, fix: "" };
  return { status: "warn", what: `no store yet at ${location.path} (from ${why})`, fix: `the first 'clawhive serve' (or run, call) creates it there; 'clawhive init DIR' makes one elsewhere` };
}

/** Each first-party plugin has a compiled build in the cache, else the first start compiles it. */
async function pluginChecks(values: Readonly<Record<string, unknown>>): Promise<Check[]> {
  const cache = defaultBuildCacheDir(resolveDataDir(values));
  const compiled = existsSync(join(cache, "compiled")) ? readdirSync(join(cache, "compiled")) : [];
  const names = (await pluginSourceDirs()).map((dir) => basename(dir));
  const missing = names.filter((name) => !compiled.some((entry) => entry.startsWith(`${name}-`)));
  if (missing.length === 0) return [{ status: "ok", what: `${names.length} plugins built (${cache})`, fix: "" }];
  return [{ status: "warn", what: `${missing.length}/${names.length} plugins not built yet: ${missing.join(", ")}`, fix: `the first start compiles them (20-80 s, with progress)${installedAsPackage() ? "" : "; 'npm run build:plugins' does it now"}` }];
}

async function agentChecks(values: Readonly<Record<string, unknown>>): Promise<Check[]> {
  const dir = resolveAgentsDir(values);
  const catalogue = new AgentCatalogue({ dir, dataDir: resolveDataDir(values), createMounts: false });
  await catalogue.refresh();
  const checks: Check[] = [];
  for (const [name, issues] of catalogue.invalid) {
    checks.push({ status: "fail", what: `agent ${name} is invalid: ${issues[0]!.path}: ${issues[0]!.message}`, fix: `fix ${join(dir, `${name}.yaml`)} ('clawhive agent validate' lists every problem)` });
  }
  const needed = new Map<string, string[]>();
  for (const agent of catalogue.files.values()) {
    const secret = agent.model.api_key_secret;
    if (secret !== undefined) needed.set(secret, [...(needed.get(secret) ?? []), agent.name]);
  }
  const present = await secretNames(values);
  for (const [secret, agents] of needed) {
    const who = `agent${agents.length === 1 ? "" : "s"} ${agents.join(", ")}`;
    if (present?.has(secret) === true) checks.push({ status: "ok", what: `model key ${secret} is set (${who})`, fix: "" });
    else checks.push({ status: "warn", what: `model key ${secret} is not set (${who} cannot call their model)`, fix: `clawhive secret set ${secret} < file-holding-the-key` });
  }
  checks.unshift({ status: catalogue.invalid.size === 0 ? "ok" : "fail", what: `agents ${dir}: ${catalogue.files.size} valid, ${catalogue.invalid.size} invalid`, fix: "" });
  return checks;
}

/** The names of the stored secrets (no key needed to list names); undefined without a store. */
async function secretNames(values: Readonly<Record<string, unknown>>): Promise<Set<string> | undefined> {
  const location = parseStoreUrl(resolveStoreUrl(values));
  if (location.kind === "file" && !existsSync(location.path)) return undefined;
  const store = await openStore({ url: resolveStoreUrl(values) });
  try {
    const result = await store.execute("SELECT name FROM secrets");
    return new Set(result.rows.map((row) => String(row.name)));
  } catch {
    return new Set();
  } finally {
    await store.close();
  }
}
