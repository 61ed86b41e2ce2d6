/**
 * The server's log (`createLogger({ sync: false })`) writes lines off the caller's path; what it
 * still holds when the process exits is written then, so a process that logs and exits at once
 * (a failed start, a stop) loses no line. The synchronous logger beside it is the control.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { describe, test } from "node:test";

const LOGGER = new URL("../../runtime/log/index.js", import.meta.url).href;
const LINES = 2000;

function logAndExit(sync: boolean): Array<Record<string, unknown>> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};
const log = createLogger({ format: "json", sync: ${sync} });
for (let i = 0; i < ${LINES}; i++) log.info({ i, token: "chv_tok_secretsecretsecret" }, "line " + i);
process.exit(0);`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 30_000 });
  assert.equal(child.status, 0, child.stderr.slice(-500));
  return child.stderr.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("the server's asynchronous log", () => {
  for (const sync of [false, true]) {
    test(`sync: ${sync}: every line reaches stderr, in order, before the process exits`, () => {
      const lines = logAndExit(sync);
      assert.equal(lines.length, LINES);
      assert.deepEqual(lines.map((l) => l.i), Array.from({ length: LINES }, (_, i) => i));
      assert.ok(lines.every((l) => l.token === "[redacted]"), "redaction holds on both paths");
    });
  }
});
