import { mkdir } from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { InvalidInputError, NotFoundError } from "../errors.js";
import { defaultBuildCacheDir } from "../plugins/locations.js";
import { PluginInstaller, pluginMigrations, PluginRegistry, UpgradeNeedsAcceptance, type InstalledPlugin, type InstallResult } from "../plugins/install/index.js";
import { RunRecords, runMigrations } from "../runs/records.js";
import { Sandbox } from "../sandbox/index.js";
import { applyMigrations, openStore, systemClock, type Store } from "../store/index.js";
import { parseCommandArgs } from "./args.js";
import { pluginBuildCommand, pluginBuildHelp } from "./plugin-build.js";
import { pluginNewCommand, pluginNewHelp } from "./plugin-new.js";
import { inert } from "./render.js";
import { openExistingStore, resolveDataDir, resolveStoreUrl, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const pluginHelp = `clawhive plugin — install, inspect and remove tool plugins

  clawhive plugin install SOURCE [--sha256 HEX] [--manifest FILE]
  clawhive plugin upgrade NAME SOURCE [--sha256 HEX] [--manifest FILE] [--accept]
  clawhive plugin list [--json]
  clawhive plugin info NAME [--json]
  clawhive plugin remove NAME
  clawhive plugin new NAME [--dir PARENT]      scaffold a TypeScript plugin ('plugin new --help')
  clawhive plugin build [DIR] [--pack]          build it into DIR/dist ('plugin build --help')

  SOURCE is one of:
    a folder with plugin.json and plugin.wasm (what 'clawhive plugin build' writes to dist/)
    a plugin source folder (plugin.json, src/, wit/): built, then installed
    a .tgz holding plugin.json and plugin.wasm
    a .wasm, with its manifest (--manifest, default plugin.json beside it)
    an https:// URL of a .tgz or .wasm: --sha256 is required and checked before anything else

  Install checks the wasm's sha256 (against --sha256 and the manifest's own sha256), reads the
  imports from the binary and refuses any its declared capabilities do not cover (and all of
  WASI), and reads 'describe' in a sandbox with no grants. Names are unique (case-insensitive):
  an installed plugin is never replaced by install; 'upgrade' shows the permission diff and a
  widening upgrade needs --accept (or a 'y' at the prompt in a terminal). A plugin is not
  removed while an unfinished run uses it.

  --sha256 HEX      the expected sha256 of SOURCE (the .tgz or .wasm as downloaded)
  --manifest FILE   the plugin.json of a bare .wasm
  --accept          accept a widening upgrade's new permissions
  --json            print JSON
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 an unexpected failure (e.g. the store is unreachable); 2 bad usage or
  refused (verification failed, name taken, in use, not found); 3 a widening upgrade was not
  accepted.`;

const usage = "usage: clawhive plugin install SOURCE | upgrade NAME SOURCE | list | info NAME | remove NAME | new NAME | build [DIR]";

function help(text: string): number {
  console.log(text);
  return 0;
}
const SOURCE_FLAGS = { sha256: { type: "string" }, manifest: { type: "string" } } as const;

export async function pluginCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "install":
      return install(rest);
    case "upgrade":
      return upgrade(rest);
    case "list":
      return list(rest);
    case "info":
      return info(rest);
    case "remove":
    case "rm":
      return remove(rest);
    case "new":
      return rest.includes("--help") || rest.includes("-h") ? help(pluginNewHelp) : pluginNewCommand(rest);
    case "build":
      return rest.includes("--help") || rest.includes("-h") ? help(pluginBuildHelp) : pluginBuildCommand(rest);
    default:
      throw new InvalidInputError(sub === undefined ? usage : `unknown plugin command '${sub}'; ${usage}`);
  }
}

async function install(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SOURCE_FLAGS, json: { type: "boolean" } });
  const [source, ...extra] = positionals;
  if (!source || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin install SOURCE [--sha256 HEX] [--manifest FILE]", { field: "source" });
  return withInstaller(values, async (installer) => {
    const result = await installer.install(source, sourceOptions(values));
    print(result, values);
    return 0;
  });
}

async function upgrade(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SOURCE_FLAGS, accept: { type: "boolean" }, json: { type: "boolean" } });
  const [name, source, ...extra] = positionals;
  if (!name || !source || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin upgrade NAME SOURCE [--accept]", { field: "source" });
  return withInstaller(values, async (installer) => {
    const options = sourceOptions(values);
    const pkg = await installer.readPackage(source, options);
    try {
      print(await installer.upgradePackage(name, pkg, { accept: values.accept === true, firstParty: false }), values);
      return 0;
    } catch (error) {
      if (!(error instanceof UpgradeNeedsAcceptance)) throw error;
      console.error(`upgrading ${name} to ${pkg.manifest.version} widens what it may do:`);
      for (const line of error.diff.lines) console.error(`  ${inert(line)}`);
      if (!process.stdin.isTTY || !process.stderr.isTTY) {
        console.error("not upgraded: re-run with --accept to grant these permissions");
        return 3;
      }
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await prompt.question("Grant these permissions and upgrade? [y/N] ");
      prompt.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        console.error("not upgraded");
        return 3;
      }
      print(await installer.upgradePackage(name, pkg, { accept: true, firstParty: false }), values);
      return 0;
    }
  });
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError("usage: clawhive plugin list [--json]");
  return withRegistry(values, async (registry) => {
    const plugins = await registry.list();
    if (values.json) {
      console.log(JSON.stringify(plugins.map(summary), null, 2));
      return 0;
    }
    if (plugins.length === 0) {
      console.log("no plugins installed");
      return 0;
    }
    const width = Math.max(...plugins.map((p) => `${p.name}@${p.version}`.length));
    for (const p of plugins) {
      console.log(`${`${p.name}@${p.version}`.padEnd(width)}  ${p.format.padEnd(9)}  ${inert(p.publisher).padEnd(12)}  ${p.tools.length} tool(s)  ${p.blobSha256.slice(0, 12)}`);
    }
    return 0;
  });
}

async function info(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, json: { type: "boolean" } });
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin info NAME [--json]", { field: "name" });
  return withRegistry(values, async (registry) => {
    const plugin = await registry.get(name);
    if (!plugin) throw new NotFoundError(`no plugin named ${inert(name)} is installed`);
    if (values.json) {
      console.log(JSON.stringify({ ...summary(plugin), tools: plugin.tools, manifest: plugin.manifest }, null, 2));
      return 0;
    }
    console.log(`${plugin.name}@${plugin.version} (${plugin.format})`);
    console.log(`  ${inert(plugin.manifest.description)}`);
    console.log(`  publisher     ${inert(plugin.publisher)}`);
    console.log(`  sha256        ${plugin.blobSha256}`);
    console.log(`  size          ${formatBytes(plugin.size)}`);
    console.log(`  capabilities  ${plugin.manifest.capabilities.join(", ") || "none"}`);
    console.log(`  installed     ${new Date(plugin.installedAt).toISOString()}${plugin.updatedAt !== plugin.installedAt ? `, upgraded ${new Date(plugin.updatedAt).toISOString()}` : ""}${plugin.firstParty ? " (built in)" : ""}`);
    console.log(`  from          ${inert(plugin.origin)}`);
    console.log("  tools:");
    for (const t of plugin.tools) console.log(`    ${t.name.padEnd(18)} ${t.risk.padEnd(7)} ${(t.capabilities.join(", ") || "-").padEnd(24)} ${inert(t.description)}`);
    return 0;
  });
}

async function remove(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS });
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin remove NAME", { field: "name" });
  return withInstaller(values, async (installer) => {
    const removed = await installer.remove(name);
    console.log(`removed ${removed.name}@${removed.version}`);
    return 0;
  }, { sandbox: false, create: false });
}

function sourceOptions(values: Record<string, unknown>): { sha256?: string; manifestFile?: string } {
  return {
    ...(typeof values.sha256 === "string" ? { sha256: values.sha256 } : {}),
    ...(typeof values.manifest === "string" ? { manifestFile: values.manifest } : {}),
  };
}

function print(result: InstallResult, values: Record<string, unknown>): void {
  const p = result.plugin;
  if (values.json) {
    console.log(JSON.stringify({ action: result.action, ...summary(p), ...(result.diff ? { diff: result.diff.lines } : {}) }, null, 2));
    return;
  }
  if (result.action === "unchanged") {
    console.log(`${p.name}@${p.version} is already installed with these exact bytes (${p.blobSha256.slice(0, 12)})`);
    return;
  }
  console.log(`${result.action} ${p.name}@${p.version} (${p.format}, ${formatBytes(p.size)}, sha256 ${p.blobSha256})`);
  for (const line of result.diff?.lines ?? []) console.log(`  ${inert(line)}`);
  console.log(`  tools: ${p.tools.map((t) => `${p.name}.${t.name} (${t.risk})`).join(", ")}`);
  console.log(`  capabilities: ${p.manifest.capabilities.join(", ") || "none"} — an agent must list the plugin and grant these before its tools run`);
}

function summary(p: InstalledPlugin) {
  return {
    name: p.name,
    version: p.version,
    format: p.format,
    publisher: p.publisher,
    description: p.manifest.description,
    sha256: p.blobSha256,
    size: p.size,
    capabilities: p.manifest.capabilities,
    tools: p.tools.map((t) => ({ name: t.name, risk: t.risk, capabilities: t.capabilities })),
    firstParty: p.firstParty,
    origin: p.origin,
    installedAt: new Date(p.installedAt).toISOString(),
    updatedAt: new Date(p.updatedAt).toISOString(),
  };
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`;
}

async function openPluginStore(values: Record<string, unknown>, create: boolean): Promise<Store> {
  let store: Store;
  if (create) {
    await mkdir(resolveDataDir(values), { recursive: true });
    const authToken = process.env.CLAWHIVE_STORE_AUTH_TOKEN || undefined;
    store = await openStore({ url: resolveStoreUrl(values), ...(authToken ? { authToken } : {}) });
  } else {
    store = await openExistingStore(values);
  }
  try {
    await applyMigrations(store, runMigrations, { clock: systemClock });
    await applyMigrations(store, pluginMigrations, { clock: systemClock });
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}

async function withRegistry(values: Record<string, unknown>, work: (registry: PluginRegistry) => Promise<number>): Promise<number> {
  const store = await openPluginStore(values, false);
  try {
    return await work(new PluginRegistry(store, { clock: systemClock }));
  } finally {
    await store.close();
  }
}

/** An installer on the store directly (no runtime): a one-worker sandbox reads `describe`. */
async function withInstaller(
  values: Record<string, unknown>,
  work: (installer: PluginInstaller) => Promise<number>,
  options: { sandbox?: boolean; create?: boolean } = {},
): Promise<number> {
  const store = await openPluginStore(values, options.create ?? true);
  const sandbox = new Sandbox({ workers: options.sandbox === false ? 0 : 1, poolSize: 0 });
  try {
    const records = new RunRecords(store);
    const installer = new PluginInstaller({
      registry: new PluginRegistry(store, { clock: systemClock }),
      sandbox,
      cacheDir: defaultBuildCacheDir(),
      onProgress: (line) => console.error(line),
      runsUsing: (name) => records.unfinishedUsing(name),
    });
    return await work(installer);
  } finally {
    await sandbox.close();
    await store.close();
  }
}
