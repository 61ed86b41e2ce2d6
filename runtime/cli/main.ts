/** The `clawhive` command line: one file per command, this file only dispatches. */
import { ClawhiveError } from "../errors.js";
import { agentCommand, agentHelp } from "./agent.js";
import { apiCommand, apiHelp } from "./api.js";
import { approvalsCommand, approvalsHelp } from "./approvals.js";
import { auditCommand, auditHelp } from "./audit.js";
import { callCommand, callHelp } from "./call.js";
import { pluginCommand, pluginHelp } from "./plugin.js";
import { pluginBuildHelp } from "./plugin-build.js";
import { pluginNewHelp } from "./plugin-new.js";
import { resumeCommand, resumeHelp } from "./resume.js";
import { runCommand, runHelp } from "./run.js";
import { runsCommand, runsHelp } from "./runs.js";
import { secretCommand, secretHelp } from "./secret.js";
import { serveCommand, serveHelp } from "./serve.js";
import { tokenCommand, tokenHelp } from "./token.js";
import { toolsCommand, toolsHelp } from "./tools.js";
import { VERSION } from "./version.js";

interface Command {
  run: (argv: string[]) => Promise<number>;
  help: string;
  summary: string;
  /** Subcommands with a help of their own (the command's help covers the others). */
  subHelp?: Readonly<Record<string, string>>;
}

const commands: Record<string, Command> = {
  serve: { run: serveCommand, help: serveHelp, summary: "start the runtime and its HTTP API" },
  tools: { run: toolsCommand, help: toolsHelp, summary: "list the tools of the loaded plugins" },
  run: { run: runCommand, help: runHelp, summary: "start a run of an agent and follow its events; approve inline in a terminal" },
  call: { run: callCommand, help: callHelp, summary: "run one tool in a fresh, sandboxed run (on the store)" },
  plugin: { run: pluginCommand, help: pluginHelp, summary: "install, upgrade, list, inspect and remove tool plugins", subHelp: { new: pluginNewHelp, build: pluginBuildHelp } },
  agent: { run: agentCommand, help: agentHelp, summary: "validate, list and show agents; store agents on a server" },
  approvals: { run: approvalsCommand, help: approvalsHelp, summary: "list pending approvals with their full context; approve or deny one" },
  resume: { run: resumeCommand, help: resumeHelp, summary: "continue a run once its approval is decided" },
  runs: { run: runsCommand, help: runsHelp, summary: "list runs; show, watch or cancel one" },
  audit: { run: auditCommand, help: auditHelp, summary: "show the audit log (tail) and check its hash chain (verify)" },
  token: { run: tokenCommand, help: tokenHelp, summary: "create, list and revoke the bearer tokens of the HTTP API" },
  secret: { run: secretCommand, help: secretHelp, summary: "set (from stdin), list and remove the encrypted secrets proxies inject" },
  api: { run: apiCommand, help: apiHelp, summary: "one request to the server's API (health, metrics, openapi, anything)" },
};

const WIDTH = Math.max(...Object.keys(commands).map((name) => name.length));

const usage = `clawhive ${VERSION} — every agent tool a WebAssembly component, sandboxed per task

Usage: clawhive <command> [options]

Commands:
${Object.entries(commands).map(([name, c]) => `  ${name.padEnd(WIDTH)} ${c.summary}`).join("\n")}

Where it acts: on a running server's API when --server URL (or CLAWHIVE_SERVER) is given, with
the token in CLAWHIVE_TOKEN or --token-file; otherwise on the store directly (--data-dir,
default ./.clawhive). serve, call, resume and token always use the store.

Exit codes (each command's --help says its own): 0 ok; 1 failed (a tool call failed, a check
found a problem, the store or server could not be reached); 2 bad usage or refused (also a
token the server refuses); 3 waiting for a person's approval; 130 interrupted.

Run 'clawhive <command> --help' for a command's options; docs/cli.md has them all.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
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
    console.error(`clawhive: unknown command '${name}'\n\n${usage}`);
    return 2;
  }
  // Commands with subcommands show the subcommand's own help.
  if ((rest.includes("--help") || rest.includes("-h")) && !(name === "plugin" && (rest[0] === "new" || rest[0] === "build"))) {
    console.log(command.help);
    return 0;
  }
  return command.run(rest);
}

main(process.argv.slice(2)).then(
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
