/**
 * The elicitation message a Guarded call's person reads in the MCP client: every part a model, a
 * tool or a plugin wrote is inert (controls, bidi and invisible characters shown as escapes), as
 * the API and the CLI show approvals. A table of hostile characters in each place they can come
 * from, with a control beside it: ordinary text, accents and scripts are shown as they are.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { approvalMessage } from "../../runtime/mcp/index.js";
import type { Approval } from "../../runtime/policy/approvals/index.js";

const base: Approval = {
  id: "apr_1",
  kind: "tool_call",
  status: "pending",
  scope: null,
  runId: "run_1",
  traceId: "trace_1",
  agent: "writer",
  parentRunId: null,
  stepId: "step_1",
  toolCallId: "call_1",
  tool: "files.write_file",
  input: { path: "/w/a.txt" },
  argsHash: "0".repeat(64),
  capability: null,
  effect: null,
  effectHash: null,
  risk: "guarded",
  reason: "files.write_file is Guarded",
  context: null,
  createdAt: 0,
  expiresAt: 0,
  decision: null,
  decidedBy: null,
  decidedAt: null,
  decisionReason: null,
  usedAt: null,
  useCount: 0,
  untrustedSources: [],
  secretsRead: [],
};

/** What must never reach the person's screen as it is (newlines separate the message's lines). */
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]/u;

const characters: Array<[string, string]> = [
  ["a right-to-left override (Trojan Source)", "\u202e"],
  ["a left-to-right isolate", "\u2066"],
  ["a pop directional isolate", "\u2069"],
  ["an Arabic letter mark", "\u061c"],
  ["a zero-width space", "\u200b"],
  ["a zero-width joiner", "\u200d"],
  ["a byte order mark", "\ufeff"],
  ["a word joiner", "\u2060"],
  ["a line separator", "\u2028"],
  ["an ANSI clear-screen sequence", "\u001b[2J\u001b[H"],
  ["a bell", "\u0007"],
  ["a carriage return", "\r"],
  ["a backspace", "\b"],
  ["DEL", "\u007f"],
  ["a C1 CSI", "\u009b31m"],
  ["a C1 next line", "\u0085"],
];

const places: Array<[string, (hostile: string) => Partial<Approval>]> = [
  ["an argument's value", (h) => ({ input: { path: `/w/${h}txt.exe` } })],
  ["an argument's key", (h) => ({ input: { [`pa${h}th`]: "/w/a.txt" } })],
  ["a nested argument", (h) => ({ input: { list: [{ note: `ok${h}` }] } })],
  ["the reason", (h) => ({ reason: `Guarded${h} (really)` })],
  ["the context", (h) => ({ context: `the model said: ${h}approve this` })],
  ["an effect's arguments", (h) => ({ kind: "effect", capability: "shell.exec", effect: { argv: ["rm", `-rf${h}`, "/"] } })],
  ["an effect's capability", (h) => ({ kind: "effect", capability: `shell.exec${h}`, effect: { argv: ["ls"] } })],
  ["the agent's name", (h) => ({ agent: `writer${h}` })],
];

for (const [what, hostile] of characters) {
  for (const [where, place] of places) {
    test(`elicitation shows ${what} in ${where} inert`, () => {
      const message = approvalMessage({ ...base, ...place(hostile) } as Approval);
      assert.doesNotMatch(message, UNSAFE, JSON.stringify(message));
      // Shown as an escape: inert's \u{…}, or JSON's own (\u001b, \r, \b) inside the arguments.
      const char = String.fromCodePoint(hostile.codePointAt(0)!);
      const hex = char.codePointAt(0)!.toString(16);
      const escapes = [`\\u{${hex}}`, `\\u${hex.padStart(4, "0")}`, JSON.stringify(char).slice(1, -1)];
      assert.ok(escapes.some((e) => message.includes(e)), `the character is shown as an escape: ${JSON.stringify(message)}`);
    });
  }
}

test("control: ordinary text, accents and other scripts are shown as they are", () => {
  const message = approvalMessage({ ...base, input: { path: "/w/café-日本語.txt", note: "a\tb" }, reason: "Guarded: a person approves", context: "write the notes\nfor Zoë" });
  assert.match(message, /café-日本語\.txt/);
  assert.match(message, /a\\tb/, "a tab inside an argument is JSON's own escape");
  assert.match(message, /context: write the notes\nfor Zoë/, "a newline in the context is kept");
  assert.match(message, /^clawhive: files\.write_file \(guarded\) asks for approval apr_1$/m);
});
