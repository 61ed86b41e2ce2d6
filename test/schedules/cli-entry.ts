/**
 * `clawhive schedule …` as bin/clawhive.js will run it once main.ts lists the command: the
 * command, then main's error handling (a ClawhiveError → its message, exit 2 below 500).
 * Usage: node cli-entry.js ARGS…
 */
import { scheduleCommand } from "../../runtime/cli/schedule.js";
import { ClawhiveError } from "../../runtime/errors.js";

scheduleCommand(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (!(error instanceof ClawhiveError)) throw error;
    console.error(`clawhive: ${error.message}`);
    process.exitCode = error.status >= 500 ? 1 : 2;
  },
);
