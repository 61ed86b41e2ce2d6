/**
 * The `shell` plugin: one tool that runs a command the agent is granted, as an argv list. The
 * host resolves the command, checks its arguments, confines it and kills it at its deadline;
 * this plugin only shapes the request and the result for the model.
 */
import { exec } from "clawhive:host/shell@0.1.1";
import { defineTool, definePlugin, fail } from "../../sdk/index.js";

const runCommand = defineTool({
  description:
    "Run one command with arguments, e.g. [\"git\", \"status\", \"--short\"]. No shell: no pipes, " +
    "redirection, globbing or variables; each argument is passed as written. Only commands and " +
    "options the agent is granted run. Output is kept as head and tail when long. Every run needs " +
    "a person's approval of its exact arguments.",
  inputSchema: {
    type: "object",
    properties: {
      argv: { type: "array", items: { type: "string" }, description: "The command name, then its arguments" },
      cwd: { type: "string", description: "Working directory, a path inside a mount (default: the first mount)" },
      stdin: { type: "string", description: "Text given to the command's standard input" },
      timeout_ms: { type: "integer", description: "Deadline in milliseconds (capped by the grant)" },
    },
    required: ["argv"],
    additionalProperties: false,
  },
  capabilities: ["shell.exec"],
  risk: "unsafe",
  run({ argv, cwd, stdin, timeout_ms }) {
    if (!Array.isArray(argv) || argv.length === 0 || argv.some((a) => typeof a !== "string")) {
      throw fail.invalidInput('input field "argv": expected a non-empty list of strings');
    }
    const result = exec({
      argv: argv as string[],
      ...(cwd === undefined ? {} : { cwd }),
      ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }),
      ...(timeout_ms === undefined ? {} : { timeoutMs: timeout_ms }),
    });
    return {
      exit_code: result.exitCode ?? null,
      signal: result.signal ?? null,
      timed_out: result.timedOut,
      duration_ms: result.durationMs,
      stdout: result.stdout.text,
      stdout_lines_dropped: result.stdout.linesDropped,
      stderr: result.stderr.text,
      stderr_lines_dropped: result.stderr.linesDropped,
    };
  },
});

export const tools = definePlugin({ tools: { run_command: runCommand } });
