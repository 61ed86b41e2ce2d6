import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, extname } from "node:path";
import { FLAGS, usage } from "./agent-flags.js";
import { onServer, validate } from "./agent-validate.js";
import { ClawhiveError, InvalidInputError, NotFoundError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import type { AgentDetailView, AgentView } from "../client/client.js";
import { SERVER_FLAGS_HELP } from "./client.js";
import { withClient } from "./command-client.js";
import { inert, jsonText, jsonOut } from "./render.js";
import { resolveAgentsDir } from "./store-path.js";

export const agentHelp = `clawhive agent — check, list and show agents; store agents on a server

  clawhive agent validate FILE...       check each manifest as the runtime would load it
  clawhive agent list                   the agents a runtime loads: manifest files, stored ones
  clawhive agent show NAME              one agent's manifest (its file's text, or as stored)
  clawhive agent put FILE [--name NAME] store (or replace) an agent on the server (--server)
  clawhive agent rm NAME                remove an agent stored on the server (--server)

  --json            print JSON
  --data-dir DIR    relative mount hosts resolve against it (env CLAWHIVE_DATA_DIR; default
                    the nearest .clawhive with a store from here up, else the project's)
  --agents DIR      the agents dir (default capabilities/ in the project; env CLAWHIVE_AGENTS_DIR)
  --skip-host-dirs  (validate) do not require mount host dirs to exist (lint on another machine)
  --skills DIR      (validate) the skills dir (default skills/ in the project)
  --name NAME       (put) the agent's name, default the file's name without .yaml/.json

  validate prints 'ok FILE' (and any acknowledged dangerous combination) or each problem as
  'FILE: PATH: MESSAGE'. Beyond the file itself it checks that each listed sub-agent exists (in
  the agents dir, or among the files given), is named by grants.agent.spawn and may start
  (limits.max_depth above 0), and that each listed skill exists and its required tools are the
  agent's: their plugins listed, and (with the plugins installed in the data dir's store) every
  capability those tools declare granted. Through a server, the server checks the manifest against its own data
  dir and agents (a mount host must exist there). put and rm work through a server only: it
  keeps stored agents in its store, where every runtime on the store sees them; on this machine
  an agent is a file in the agents dir (edit or remove the file). A name defined by a file
  cannot be put or removed through the API. list and show ask the same API routes in both
  modes: on the store, of a runtime opened here on the agents dir and the data dir (an invalid
  file is listed with its problems, and list exits 1).

${SERVER_FLAGS_HELP}

  Exit codes: 0 ok (validate: all valid); 1 a manifest is invalid, or the agents dir holds an
  invalid one (list), or the server could not be reached; 2 bad usage, no such agent, a name
  defined by a file, or a token the server refuses.

  Example:
    clawhive agent validate capabilities/*.yaml`;


export async function agentCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "validate") return validate(rest);
  if (sub === "list") return list(rest);
  if (sub === "show") return show(rest);
  if (sub === "put") return put(rest);
  if (sub === "rm" || sub === "remove") return remove(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown agent command '${sub}'; ${usage}`);
}



type AgentSummary = AgentView;

async function list(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FLAGS);
  if (positionals.length > 0) throw new InvalidInputError(`agent list takes no arguments, got ${positionals.join(" ")}; ${usage}`);
  const dir = await localAgentsDir(values);
  return withClient(values, async (client) => {
    const agents = await client.listAgents();
    const invalid = agents.filter((a) => !a.valid);
    if (invalid.length > 0) {
      // Invalid manifests are the user's content, not bad usage: print them all, exit 1.
      for (const agent of invalid) {
        const detail = await client.getAgent(agent.name);
        for (const p of detail.problems ?? []) console.error(inert(`${detail.file ?? agent.name}: ${p.path}: ${p.message}`, { newlines: false }));
      }
      return 1;
    }
    if (values.json) {
      // The API's summary fields, then each agent's manifest and what it acknowledges.
      const details = await Promise.all(agents.map((a) => client.getAgent(a.name)));
      console.log(jsonOut(agents.map((a, i) => ({ ...a, manifest: details[i]!.manifest, warnings: details[i]!.warnings ?? [] }))));
    } else if (agents.length === 0) console.error(dir === undefined ? "no agents on the server" : `no agent manifests in ${dir}`);
    else printAgents(agents);
    return 0;
  });
}

/**
 * On the store, the agents dir the runtime loads, which must exist (a wrong --agents is said
 * as such, not answered with an empty list); through a server, undefined.
 */
async function localAgentsDir(values: Readonly<Record<string, unknown>>): Promise<string | undefined> {
  if (await onServer(values)) return undefined;
  if (values["skip-host-dirs"] !== undefined) throw new InvalidInputError("--skip-host-dirs is for validate: list and show answer what the runtime loads", { field: "skip-host-dirs" });
  const dir = resolveAgentsDir(values);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new NotFoundError(`agents dir ${dir} does not exist: pass --agents DIR or set CLAWHIVE_AGENTS_DIR`);
  return dir;
}

function printAgents(agents: readonly AgentSummary[]): void {
  printTable([
    ["NAME", "MODEL", "PLUGINS", "CAPABILITIES", "DESCRIPTION"],
    ...agents.map((a) => [
      a.name,
      a.model ?? "-",
      a.plugins.map((p) => `${p.name}@${p.version}`).join(",") || "-",
      a.capabilities.join(",") || "-",
      a.valid ? (a.description ?? "").replace(/\s+/g, " ") : `(invalid: 'clawhive agent show ${a.name}' says why)`,
    ].map((cell) => inert(cell, { newlines: false }))),
  ]);
}

async function show(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FLAGS);
  const name = oneName("show", positionals);
  const dir = await localAgentsDir(values);
  const agent: AgentDetailView = await withClient(values, (client) =>
    client.getAgent(name).catch((error: unknown) => {
      // On the store, where to look: the agents dir may be the wrong one.
      if (dir !== undefined && error instanceof ClawhiveError && error.code === "not_found") throw new NotFoundError(`no agent named ${name}: no ${dir}/${name}.yaml and none stored (pass --agents DIR or set CLAWHIVE_AGENTS_DIR)`);
      throw error;
    }),
  );
  if (values.json) console.log(jsonOut(agent));
  else {
    console.log(inert(`agent ${agent.name} (${agent.origin}${agent.file === undefined ? "" : ` ${agent.file}`})`, { newlines: false }));
    for (const p of agent.problems ?? []) console.log(inert(`  invalid: ${p.path}: ${p.message}`, { newlines: false }));
    console.log(inert(agent.source ?? jsonText(agent.manifest)));
  }
  return 0;
}

function oneName(sub: string, positionals: readonly string[]): string {
  const [name, ...extra] = positionals;
  if (name === undefined || name === "" || extra.length > 0) throw new InvalidInputError(`usage: clawhive agent ${sub} NAME`);
  return name;
}

const SERVER_ONLY = "works through a server only (--server URL or CLAWHIVE_SERVER): on this machine an agent is a file in the agents dir";

async function put(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...FLAGS, name: { type: "string" } });
  const [file, ...extra] = positionals;
  if (file === undefined || file === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive agent put FILE [--name NAME] --server URL");
  if (!(await onServer(values))) throw new InvalidInputError(`agent put ${SERVER_ONLY}: copy the file there instead`);
  const ext = extname(file);
  if (ext !== ".yaml" && ext !== ".yml" && ext !== ".json") throw new InvalidInputError(`${file}: expected a .yaml or .json manifest`, { field: "file" });
  const name = typeof values.name === "string" ? values.name : basename(file, ext);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new InvalidInputError(`${file}: cannot read it: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { field: "file" });
  }
  const { answer, target } = await withClient(values, async (client) => ({ answer: await client.putAgent(name, { text: bytes, format: ext === ".json" ? "json" : "yaml" }), target: client.target }));
  if (values.json) console.log(jsonOut(answer));
  else {
    console.log(inert(`stored agent ${answer.agent.name} on ${target}`, { newlines: false }));
    for (const w of answer.warnings) console.log(inert(`  warning: ${w.id}: ${w.message} (acknowledged)`, { newlines: false }));
  }
  return 0;
}

async function remove(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, FLAGS);
  const name = oneName("rm", positionals);
  if (!(await onServer(values))) throw new InvalidInputError(`agent rm ${SERVER_ONLY}: remove the file instead`);
  const target = await withClient(values, async (client) => {
    await client.removeAgent(name);
    return client.target;
  });
  console.log(inert(`removed agent ${name} from ${target}`, { newlines: false }));
  return 0;
}

/** Columns padded to their widest cell; the last column is left ragged. */
function printTable(rows: readonly (readonly string[])[]): void {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => r[c]?.length ?? 0))) ?? [];
  for (const row of rows) console.log(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c] ?? 0))).join("  ").trimEnd());
}
