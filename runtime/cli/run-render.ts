/**
 * How `clawhive run` and `clawhive runs watch` show a run: one line an event, the inline
 * approval question and its answers, and the summary once the run has ended. Everything a tool,
 * a plugin or a model wrote is shown inert (render.ts says why).
 */
import type { ApprovalDecision, ApprovalScope } from "../policy/approvals/index.js";
import type { StreamedEvent } from "./client.js";
import { inert, jsonText } from "./render.js";
import type { RunView } from "./views.js";

/** Longest rendering of a ToolCall's input or a tool's output on one line. */
const MAX_INLINE = 300;

/** An answer to the inline approval question. */
export type ApprovalAnswer = { decision: Extract<ApprovalDecision, "approve">; scope: ApprovalScope } | { decision: Extract<ApprovalDecision, "deny"> };

export function approvalQuestion(kind: string): string {
  return kind === "effect" ? "approve once / deny [o/d]? " : "approve once / approve for the run / deny [o/r/d]? ";
}

/**
 * The answer typed at the approval question: `o`/`once`, `r`/`run` (a ToolCall approval only:
 * an effect is approved once) or `d`/`deny`, any case. Anything else asks again, with why: a
 * stray key must never approve.
 */
export function parseApprovalAnswer(text: string, kind: string): { answer: ApprovalAnswer } | { error: string } {
  const word = text.trim().toLowerCase();
  if (word === "o" || word === "once") return { answer: { decision: "approve", scope: "once" } };
  if (word === "r" || word === "run") {
    if (kind === "effect") return { error: "an effect is approved once (this exact host call): answer o or d" };
    return { answer: { decision: "approve", scope: "run" } };
  }
  if (word === "d" || word === "deny") return { answer: { decision: "deny" } };
  const choices = kind === "effect" ? "o (approve once) or d (deny)" : "o (approve once), r (approve for the run) or d (deny)";
  return { error: word === "" ? `answer ${choices}` : `${JSON.stringify(inert(word, { newlines: false }))}: answer ${choices}` };
}

function oneLine(value: unknown): string {
  const text = typeof value === "string" ? value : jsonText(value, { indent: 0 });
  const flat = inert(text, { newlines: false });
  return flat.length > MAX_INLINE ? `${flat.slice(0, MAX_INLINE)}… (${flat.length - MAX_INLINE} more characters; --json shows all)` : flat;
}

function text(value: unknown): string {
  return inert(typeof value === "string" ? value : String(value ?? "?"), { newlines: false });
}

/** The line of one event, or undefined for events not worth a line (instances; a pause's own result line). */
export function eventLine(event: StreamedEvent, options: { verbose?: boolean } = {}): string | undefined {
  const d = event.data;
  switch (event.type) {
    case "tool-call":
      return `call    ${text(d.tool)} ${oneLine(d.input ?? {})}`;
    case "tool-result": {
      if (d.status === "approval_required") return undefined;
      const ms = typeof d.duration_ms === "number" ? ` (${Math.round(d.duration_ms)} ms)` : "";
      if (d.status === "ok") return `ok      ${text(d.tool)}${ms}`;
      const error = (d.error ?? {}) as { kind?: unknown; message?: unknown };
      return `error   ${text(d.tool)}: ${text(error.kind)}: ${text(error.message)}${ms}`;
    }
    case "approval-required": {
      const a = (d.approval ?? {}) as { id?: unknown; kind?: unknown; tool?: unknown; reason?: unknown };
      const through = d.sub_agent_run_id === undefined ? "" : ` (in sub-agent run ${text(d.sub_agent_run_id)})`;
      return `waits   ${text(a.tool)}: approval ${text(a.id)} (${text(a.kind)})${through}: ${text(a.reason)}`;
    }
    case "host-call": {
      const denial = d.denial as { reason?: unknown; message?: unknown } | undefined;
      const how = d.ok === true ? "allowed" : denial ? `denied: ${text(denial.reason)}: ${text(denial.message)}` : "failed";
      const ms = options.verbose && typeof d.duration_ms === "number" ? ` (${Math.round(d.duration_ms)} ms)` : "";
      return `host    ${text(d.call)} (${text(d.capability)}) ${how}${ms}`;
    }
    case "log": {
      const dropped = typeof d.dropped === "number" && d.dropped > 0 ? ` (${d.dropped} earlier lines dropped)` : "";
      return `log     ${text(d.plugin)} ${text(d.level)}: ${text(d.message)}${dropped}`;
    }
    case "instance":
      return options.verbose ? `sandbox ${text(d.plugin)} ${text(d.action)}${d.reason === undefined ? "" : `: ${text(d.reason)}`}` : undefined;
    case "run-ended":
      return `ended   ${text(d.reason ?? "completed")}`;
    case "step":
      return options.verbose ? stepLine(d) : undefined;
    case "read-warnings": {
      if (!options.verbose) return undefined;
      const warnings = Array.isArray(d.warnings) ? d.warnings.map((w) => text(w)).join("; ") : "";
      return `warns   ${text(d.tool)}: ${text(d.count)} read warning${d.count === 1 ? "" : "s"}${warnings === "" ? "" : `: ${warnings}`}`;
    }
    case "todo":
      return todoLines(Array.isArray(d.items) ? (d.items as Array<Record<string, unknown>>) : []).join("\n");
    default:
      return options.verbose ? `${text(event.type).padEnd(7)} ${fields(d)}` : undefined;
  }
}

const TODO_MARKS: Record<string, string> = { done: "[x]", in_progress: "[>]", pending: "[ ]" };

/** A todo list as `clawhive run`, `chat` and `runs todo` show it: a count, then one line an item. */
export function todoLines(items: ReadonlyArray<Record<string, unknown>>): string[] {
  const done = items.filter((i) => i.status === "done").length;
  return [
    `todo    ${items.length === 0 ? "the list is empty" : `${done} of ${items.length} done`}`,
    ...items.map((i) => `        ${TODO_MARKS[String(i.status)] ?? "[?]"} ${text(i.text)}`),
  ];
}

/** A model Step, for --verbose: its action, model, tokens and tool calls, and why it finished. */
function stepLine(d: Record<string, unknown>): string {
  const usage = (d.usage ?? null) as { input_tokens?: unknown; output_tokens?: unknown } | null;
  const detail = [
    ...(d.model === undefined ? [] : [`model ${text(d.model)}`]),
    ...(usage === null ? [] : [`${text(usage.input_tokens)} tokens in, ${text(usage.output_tokens)} out`]),
    ...(typeof d.tool_calls === "number" ? [`${d.tool_calls} tool call${d.tool_calls === 1 ? "" : "s"}`] : []),
  ];
  return `step    ${text(d.step_id)} ${text(d.action)}${detail.length === 0 ? "" : ` (${detail.join(", ")})`}${d.reason === undefined ? "" : `: ${text(d.reason)}`}`;
}

/** An event this renderer has no line for, as `key: value` pairs (not JSON), `at` left out. */
function fields(d: Record<string, unknown>): string {
  return Object.entries(d)
    .filter(([key]) => key !== "at")
    .map(([key, value]) => `${text(key)}: ${typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? text(value) : oneLine(value)}`)
    .join(", ");
}

interface OutcomeLike {
  tool?: unknown;
  status?: unknown;
  output?: unknown;
  error?: { kind?: unknown; message?: unknown; denial?: unknown };
}

/** A ToolCall a policy or a person refused, not one that failed. */
function deniedOutcome(o: OutcomeLike): boolean {
  return o.status === "error" && (o.error?.denial !== undefined || o.error?.kind === "approval-denied");
}

/** Whether the run ended with every ToolCall of its plan done and ok. */
export function runSucceeded(run: RunView): boolean {
  const outcomes = run.outcomes as OutcomeLike[];
  return run.status === "ended" && (run.end_reason ?? "completed") === "completed" && outcomes.every((o) => o.status === "ok") && (run.tool_calls === null || outcomes.length === run.tool_calls);
}

/** The end of a run, for people: how it ended, then each ToolCall's outcome (output or error). */
export function summaryLines(run: RunView, options: { answered?: boolean } = {}): string[] {
  const outcomes = run.outcomes as OutcomeLike[];
  const ok = outcomes.filter((o) => o.status === "ok").length;
  const planned = run.tool_calls ?? outcomes.length;
  const notRun = Math.max(0, planned - outcomes.length);
  const denied = outcomes.filter(deniedOutcome).length;
  const failed = outcomes.length - ok - denied;
  // Only what happened: a run whose call was denied says so, not "0 failed".
  const counts = [`${ok} ok`, ...(denied > 0 ? [`${denied} denied`] : []), `${failed} failed`, ...(notRun > 0 ? [`${notRun} not run`] : [])].join(", ");
  const how = run.status === "ended" ? `ended (${run.end_reason ?? "completed"})` : run.status === "awaiting_approval" ? "waits for an approval" : "is still running";
  const modelDriven = run.tool_calls === null;
  const lines = modelDriven
    ? [`run ${text(run.id)} ${how}${run.conversation_id ? ` (conversation ${text(run.conversation_id)})` : ""}`]
    : [`run ${text(run.id)} ${how}: ${planned} tool call${planned === 1 ? "" : "s"}, ${counts}`];
  // An answer streamed as the model wrote it is not printed twice.
  if (modelDriven && run.result && options.answered !== true) lines.push(text(run.result));
  for (const o of outcomes) {
    if (o.status === "ok") lines.push(`  ${text(o.tool)}: ${oneLine(o.output)}`);
    else lines.push(`  ${text(o.tool)}: ${text(o.status)}: ${text(o.error?.kind)}: ${text(o.error?.message)}`);
  }
  return lines;
}

/** The painters `colourLine` uses (colour.ts decides whether they paint). */
export interface LinePainters {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  dim(text: string): string;
}

/**
 * An event line with its outcome word coloured: ok green, error red, waits yellow, a denied
 * host call red — so a denial stands out of a page of calls. Only the fixed leading word (and
 * `denied`) is painted; the rest of the line stays as `eventLine` made it, inert.
 */
export function colourLine(line: string, paint: LinePainters): string {
  const word = /^(\S+)(\s+)/.exec(line);
  if (word === null) return line;
  const [, head, gap] = word as unknown as [string, string, string];
  const rest = line.slice(head.length + gap.length);
  switch (head) {
    case "ok":
      return `${paint.green(head)}${gap}${rest}`;
    case "error":
      return `${paint.red(head)}${gap}${rest}`;
    case "waits":
      return `${paint.yellow(head)}${gap}${rest}`;
    case "host":
      return rest.includes(") denied: ") ? `${paint.red(head)}${gap}${rest.replace(") denied: ", `) ${paint.red("denied")}: `)}` : `${paint.dim(head)}${gap}${rest}`;
    case "call":
    case "log":
    case "sandbox":
      return `${paint.dim(head)}${gap}${rest}`;
    default:
      return line;
  }
}
