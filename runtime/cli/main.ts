/** The `clawhive` command line: one file per command, this file only dispatches. */
import { ClawhiveError } from "../errors.js";
import { VERSION } from "./version.js";
import { didYouMean } from "../text/suggest.js";
import { runCommandEnd } from "./command-end.js";

interface CommandModule {
  run: (argv: string[]) => Promise<number>;
  help: string;
}

interface Command {
  /**
   * The command's module, imported when the command runs: a command that only reads the store
   * does not load the runtime, the sandbox and the API client with it (~0.4 s per invocation).
   */
  load: () => Promise<CommandModule>;
  summary: string;
}

const commands: Record<string, Command> = {
  serve: { load: async () => import("./serve.js").then((m) => ({ run: m.serveCommand, help: m.serveHelp })), summary: "start the runtime and its HTTP API" },
  tools: { load: async () => import("./tools.js").then((m) => ({ run: m.toolsCommand, help: m.toolsHelp })), summary: "list the tools of the loaded plugins" },
  run: { load: async () => import("./run.js").then((m) => ({ run: m.runCommand, help: m.runHelp })), summary: "start a run of an agent and follow its events; approve inline in a terminal" },
  chat: { load: async () => import("./chat.js").then((m) => ({ run: m.chatCommand, help: m.chatHelp })), summary: "talk with an agent in a REPL: answers as Markdown, tool calls and approvals inline" },
  call: { load: async () => import("./call.js").then((m) => ({ run: m.callCommand, help: m.callHelp })), summary: "run one tool in a fresh, sandboxed run" },
  plugin: { load: async () => import("./plugin.js").then((m) => ({ run: m.pluginCommand, help: m.pluginHelp })), summary: "install, upgrade, list, inspect and remove tool plugins" },
  agent: { load: async () => import("./agent.js").then((m) => ({ run: m.agentCommand, help: m.agentHelp })), summary: "validate, list and show agents; store agents on a server" },
  approvals: { load: async () => import("./approvals.js").then((m) => ({ run: m.approvalsCommand, help: m.approvalsHelp })), summary: "list pending approvals with their full context; approve or deny one" },
  resume: { load: async () => import("./resume.js").then((m) => ({ run: m.resumeCommand, help: m.resumeHelp })), summary: "continue a run once its approval is decided" },
  conversations: { load: async () => import("./conversations.js").then((m) => ({ run: m.conversationsCommand, help: m.conversationsHelp })), summary: "what of a conversation was compacted into summaries; undo a compaction" },
  runs: { load: async () => import("./runs.js").then((m) => ({ run: m.runsCommand, help: m.runsHelp })), summary: "list runs; show, watch or cancel one" },
  audit: { load: async () => import("./audit.js").then((m) => ({ run: m.auditCommand, help: m.auditHelp })), summary: "show the audit log (tail) and check its hash chain (verify)" },
  token: { load: async () => import("./token.js").then((m) => ({ run: m.tokenCommand, help: m.tokenHelp })), summary: "create, list and revoke the bearer tokens of the HTTP API" },
  keys: { load: async () => import("./keys.js").then((m) => ({ run: m.keysCommand, help: m.keysHelp })), summary: "generate a publisher key; trust, list and revoke the keys plugin installs accept" },
  secret: { load: async () => import("./secret.js").then((m) => ({ run: m.secretCommand, help: m.secretHelp })), summary: "set (from stdin), list and remove the encrypted secrets proxies inject" },
  auth: { load: async () => import("./auth.js").then((m) => ({ run: m.authCommand, help: m.authHelp })), summary: "connect a Google account (OAuth in the browser); its refresh token is stored as a secret" },
  schedule: { load: async () => import("./schedule.js").then((m) => ({ run: m.scheduleCommand, help: m.scheduleHelp })), summary: "schedule runs: once at a time or on a cron expression; list, show, cancel" },
  skills: { load: async () => import("./skills.js").then((m) => ({ run: m.skillsCommand, help: m.skillsHelp })), summary: "list the skills, or which of an agent's skills it gets and why not the others" },
  memory: { load: async () => import("./memory.js").then((m) => ({ run: m.memoryCommand, help: m.memoryHelp })), summary: "search, write and forget an agent's long-term memory; show and edit its MEMORY.md" },
  mcp: { load: async () => import("./mcp.js").then((m) => ({ run: m.mcpCommand, help: m.mcpHelp })), summary: "serve an agent's tools to an MCP client over stdio (mcp serve --agent NAME)" },
  init: { load: async () => import("./init.js").then((m) => ({ run: m.initCommand, help: m.initHelp })), summary: "make a store (.clawhive) in a folder on purpose" },
  doctor: { load: async () => import("./doctor.js").then((m) => ({ run: m.doctorCommand, help: m.doctorHelp })), summary: "check node, bubblewrap, the store, plugins built, model keys; say what to do" },
  completion: { load: async () => import("./completion.js").then((m) => ({ run: m.completionCommand, help: m.completionHelp })), summary: "print a bash, zsh or fish completion script" },
  api: { load: async () => import("./api.js").then((m) => ({ run: m.apiCommand, help: m.apiHelp })), summary: "one request to the server's API (health, metrics, openapi, anything)" },
};

const WIDTH = Math.max(...Object.keys(commands).map((name) => name.length));

const usage = `clawhive ${VERSION} — every agent tool a WebAssembly component, sandboxed per task

Usage: clawhive <command> [options]

Commands:
${Object.entries(commands).map(([name, c]) => `  ${name.padEnd(WIDTH)} ${c.summary}`).join("\n")}

Where it acts: on a running server's API when --server URL (or CLAWHIVE_SERVER) is given, with
the token in CLAWHIVE_TOKEN or --token-file; otherwise on the store directly (--data-dir,
default the nearest .clawhive holding a store from the working folder up, else the
project's .clawhive; 'clawhive init' makes one elsewhere on purpose). serve and token always
use the store: serve is the server, and tokens have no API (the store is their root of trust).

Exit codes (each command's --help says its own): 0 ok; 1 failed (a tool call failed, a check
found a problem, the store or server could not be reached); 2 bad usage or refused (also a
token the server refuses); 3 waiting for a person's approval; 130 interrupted.

Run 'clawhive help <command>' (or 'clawhive <command> --help') for a command's options; docs/cli.md
has them all.`;

async function main(argv: string[]): Promise<number> {
  const [first, ...afterFirst] = argv;
  // `help CMD [SUB]` is `CMD [SUB] --help`; `help` alone (or --help) the list of commands.
  const asked = first === "help" && afterFirst.length > 0;
  const [name, ...rest] = asked ? [...afterFirst, "--help"] : argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    console.log(usage);
    return 0;
  }
  if (name === "--version" || name === "-v") {
    console.log(VERSION);
    return 0;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    const hint = didYouMean(name, Object.keys(commands));
    console.error(`clawhive: unknown command '${name}'${hint}${asked ? " (clawhive help lists the commands)" : `\n\n${usage}`}`);
    return 2;
  }
  const module = await command.load();
  // Commands with subcommands show the subcommand's own help.
  if ((rest.includes("--help") || rest.includes("-h")) && !(name === "plugin" && (rest[0] === "new" || rest[0] === "build" || rest[0] === "publish"))) {
    console.log(module.help);
    return 0;
  }
  return module.run(rest);
}

main(process.argv.slice(2)).finally(runCommandEnd).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ClawhiveError) {
      console.error(`clawhive: ${error.message}`);
      process.exitCode = error.status >= 500 ? 1 : 2;
    } else {
      console.error(`clawhive: unexpected error: ${(error as Error).stack ?? String(error)}`);
      process.exitCode = 1;
    }
  },
);
