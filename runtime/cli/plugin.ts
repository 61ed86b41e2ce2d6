import { userInfo } from "node:os";
import { createInterface } from "node:readline/promises";
import type { ClawhiveClient } from "../client/client.js";
import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withClient } from "./command-client.js";
import { detailOf, printInfo, printInstall, printList, reportOf, summaryOf, type InstallReport } from "./plugin-view.js";
import { pluginBuildCommand, pluginBuildHelp } from "./plugin-build.js";
import { pluginNewCommand, pluginNewHelp } from "./plugin-new.js";
import { pluginPublishCommand, pluginPublishHelp } from "./plugin-publish.js";
import { manifestForBareWasm } from "./plugin-propose.js";
import { decidePendingUpgrade, pendingUpgrades, pendingUpgradesHelp } from "./plugin-upgrades.js";
import { inert } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const pluginHelp = `clawhive plugin — install, inspect and remove tool plugins

  clawhive plugin install SOURCE [--sha256 HEX] [--manifest FILE] [--allow-similar-name] [--allow-unsigned] [--yes]
  clawhive plugin upgrade NAME SOURCE [--sha256 HEX] [--manifest FILE] [--accept] [--allow-unsigned]
  clawhive plugin publish FILE|DIR oci://REGISTRY/NAME:TAG [--key FILE]   ('plugin publish --help')
  clawhive plugin list [--json]
  clawhive plugin info NAME [--json]
  clawhive plugin remove NAME
${pendingUpgradesHelp}
  clawhive plugin new NAME [--dir PARENT]      scaffold a TypeScript plugin ('plugin new --help')
  clawhive plugin build [DIR] [--pack]          build it into DIR/dist ('plugin build --help')

  SOURCE is one of:
    a folder with plugin.json and plugin.wasm (what 'clawhive plugin build' writes to dist/)
    a plugin source folder (plugin.json, src/, wit/): built, then installed
    a .tgz holding plugin.json and plugin.wasm
    a .wasm, with its manifest (--manifest, default plugin.json beside it); a component or an
      Extism module with no manifest gets one proposed from its imports and exports (or its
      describe, read in a sandbox with no grants), shown, and written as plugin.json beside it
      once accepted (a 'y' in a terminal, or --yes); one install would refuse gets none (exit 2)
    an https:// URL of a .tgz or .wasm: --sha256 is required and checked before anything else
    oci://REGISTRY/NAME:TAG or oci://REGISTRY/NAME@sha256:HEX: a plugin artifact in an OCI
      registry (docs/distribution.md), pinned by digest (a tag resolves once; the digest is
      the recorded origin); --registry-secret NAME names the secret holding username:password;
      plain http is used for a loopback registry only, elsewhere with --plain-http

  Signatures: a registry's plugin must be signed by a key trusted for its publisher ('clawhive
  keys trust'); a folder or .tgz may carry plugin.sig, which must verify, and must carry one
  once its publisher has a trusted key. --allow-unsigned installs a plugin whose signature is
  refused (unsigned, wrong, untrusted or revoked key); the install's audit record names it.

  Install checks the wasm's sha256 (against --sha256 and the manifest's own sha256), reads the
  imports from the binary and refuses any its declared capabilities do not cover (and WASI it
  does not serve), and reads 'describe' in a sandbox with no grants. Names are unique
  (case-insensitive): an installed plugin is never replaced by install; 'upgrade' shows the
  permission diff and a widening upgrade needs --accept (or a 'y' at the prompt in a
  terminal); refused, it is kept as a pending upgrade (one per plugin, for 7 days) that
  'plugin accept NAME' installs later, verified again, unless NAME changed meanwhile. A name confusable
  with an installed plugin's (fi1es beside files, rn beside m, 0 beside o) is refused unless
  --allow-similar-name. A plugin is not removed while an unfinished run uses it. Every
  install, upgrade and removal, allowed or refused, is a 'plugin' audit record
  ('clawhive audit tail --kind plugin').

  --sha256 HEX      the expected sha256 of SOURCE (the .tgz or .wasm as downloaded)
  --manifest FILE   the plugin.json of a bare .wasm
  --yes             accept the manifest proposed for a .wasm that has none
  --accept          accept a widening upgrade's new permissions
  --allow-similar-name
                    install although the name is confusable with an installed plugin's
  --allow-unsigned  install although its signature is refused (audited)
  --registry-secret NAME
                    the secret with an OCI registry's username:password
  --plain-http      an OCI registry not on loopback over plain http
  --json            print JSON

  Through a server (--server) the server verifies and installs: a .tgz is uploaded as it is, an
  https URL is sent for the server to download (with --sha256); any other local SOURCE is read
  and checked here (a source folder built here), packed into a .tgz and uploaded.

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 an unexpected failure (e.g. the store or the server is unreachable);
  2 bad usage or refused (verification failed, name taken, in use, not found, a token the
  server refuses); 3 a widening upgrade, or a proposed manifest, was not accepted.

  Example:
    clawhive plugin install ./my-plugin/dist --server http://127.0.0.1:7878`;

const usage = "usage: clawhive plugin install SOURCE | upgrade NAME SOURCE | list | info NAME | remove NAME | upgrades | accept NAME | reject NAME | new NAME | build [DIR] | publish FILE|DIR oci://REGISTRY/NAME:TAG";

function help(text: string): number {
  console.log(text);
  return 0;
}
const SOURCE_FLAGS = { sha256: { type: "string" }, manifest: { type: "string" }, "allow-unsigned": { type: "boolean" }, "registry-secret": { type: "string" }, "plain-http": { type: "boolean" } } as const;

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
    case "upgrades":
      return pendingUpgrades(rest, withPlugins);
    case "accept":
    case "reject":
      return decidePendingUpgrade(sub, rest, withPlugins);
    case "new":
      return rest.includes("--help") || rest.includes("-h") ? help(pluginNewHelp) : pluginNewCommand(rest);
    case "build":
      return rest.includes("--help") || rest.includes("-h") ? help(pluginBuildHelp) : pluginBuildCommand(rest);
    case "publish":
      return rest.includes("--help") || rest.includes("-h") ? help(pluginPublishHelp) : pluginPublishCommand(rest);
    default:
      throw new InvalidInputError(sub === undefined ? usage : `unknown plugin command '${sub}'; ${usage}`);
  }
}

/**
 * The client of every plugin command that changes or reads what is installed. On the store, the
 * runtime installs no first-party plugins of its own (the command changes only what it names),
 * and a change is audited as this user (`cli:<user>`); a server audits its token.
 */
function withPlugins<T>(values: Record<string, unknown>, body: (client: ClawhiveClient) => Promise<T>, options: { existing?: boolean } = {}): Promise<T> {
  return withClient(values, body, { ...options, pluginDirs: [], actor: cliPrincipal() });
}

async function install(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, ...SOURCE_FLAGS, json: { type: "boolean" }, "allow-similar-name": { type: "boolean" }, yes: { type: "boolean" } });
  const [source, ...extra] = positionals;
  if (!source || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin install SOURCE [--sha256 HEX] [--manifest FILE] [--allow-similar-name] [--allow-unsigned] [--yes]", { field: "source" });
  const allowSimilarName = values["allow-similar-name"] === true;
  const bare = await manifestForBareWasm(source, { manifestGiven: typeof values.manifest === "string", yes: values.yes === true });
  if ("exit" in bare) return bare.exit;
  if (bare.manifestFile !== undefined) values.manifest = bare.manifestFile;
  return withPlugins(values, async (client) => {
    printInstall(reportOf(await client.installPlugin(source, { ...sourceOptions(values), allowSimilarName, onProgress })), values.json === true);
    return 0;
  });
}

async function upgrade(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, ...SOURCE_FLAGS, accept: { type: "boolean" }, json: { type: "boolean" } });
  const [name, source, ...extra] = positionals;
  if (!name || !source || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin upgrade NAME SOURCE [--accept]", { field: "source" });
  const json = values.json === true;
  const send = (client: ClawhiveClient, accept: boolean) => client.upgradePlugin(pluginName(name), source, { ...sourceOptions(values), accept, onProgress });
  return withPlugins(values, async (client) => {
    try {
      printInstall(reportOf(await send(client, values.accept === true)), json);
      return 0;
    } catch (error) {
      if (!(error instanceof ServerError && error.code === "upgrade_needs_acceptance")) throw error;
      const diff = error.body.diff as { lines?: unknown } | undefined;
      const lines = Array.isArray(diff?.lines) ? diff.lines.map(String) : [error.message];
      const kept = error.body.pending_upgrade === undefined ? "" : ` (or later: 'clawhive plugin accept ${pluginName(name)}', the pending upgrade kept for it)`;
      return confirmWidening(lines, { title: `upgrading ${name} widens what it may do:`, kept, retry: async () => reportOf(await send(client, true)), json });
    }
  });
}

/** Shows a widening upgrade's permission diff; upgrades only on a 'y' in a terminal (else exit 3: --accept). */
async function confirmWidening(lines: readonly string[], options: { title: string; kept: string; retry: () => Promise<InstallReport>; json: boolean }): Promise<number> {
  const { title, retry, json } = options;
  console.error(title);
  for (const line of lines) console.error(`  ${inert(line)}`);
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    console.error(`not upgraded: re-run with --accept to grant these permissions${options.kept}`);
    return 3;
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  const answer = await prompt.question("Grant these permissions and upgrade? [y/N] ");
  prompt.close();
  if (!/^y(es)?$/i.test(answer.trim())) {
    console.error("not upgraded");
    return 3;
  }
  printInstall(await retry(), json);
  return 0;
}

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError("usage: clawhive plugin list [--json]");
  const plugins = await withPlugins(values, async (client) => (await client.listPlugins()).map(summaryOf), { existing: true });
  printList(plugins, values.json === true);
  return 0;
}

async function info(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin info NAME [--json]", { field: "name" });
  const plugin = await withPlugins(values, async (client) => detailOf(await client.getPlugin(pluginName(name))), { existing: true });
  printInfo(plugin, values.json === true);
  return 0;
}

async function remove(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS });
  const [name, ...extra] = positionals;
  if (!name || extra.length > 0) throw new InvalidInputError("usage: clawhive plugin remove NAME", { field: "name" });
  const removed = await withPlugins(values, (client) => client.removePlugin(pluginName(name)), { existing: true });
  console.log(`removed ${removed.name}@${removed.version}`);
  return 0;
}

/** Plugin names are unique whatever their case (the API's names are lower case): `Bench-Echo` is bench-echo. */
function pluginName(name: string): string {
  return name.toLowerCase();
}

function onProgress(line: string): void {
  console.error(line);
}

/** Who a change made from this command line is audited as. */
function cliPrincipal(): string {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    user = process.env.USER ?? "unknown";
  }
  return `cli:${user || "unknown"}`;
}

function sourceOptions(values: Record<string, unknown>): { sha256?: string; manifestFile?: string; allowUnsigned?: boolean; registrySecret?: string; plainHttp?: boolean } {
  return {
    ...(typeof values.sha256 === "string" ? { sha256: values.sha256 } : {}),
    ...(typeof values.manifest === "string" ? { manifestFile: values.manifest } : {}),
    ...(values["allow-unsigned"] === true ? { allowUnsigned: true } : {}),
    ...(typeof values["registry-secret"] === "string" ? { registrySecret: values["registry-secret"] } : {}),
    ...(values["plain-http"] === true ? { plainHttp: true } : {}),
  };
}
