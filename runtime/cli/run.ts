import { createInterface } from "node:readline/promises";
import { InvalidInputError } from "../errors.js";
import { approvalBlock } from "./approvals.js";
import { parseCommandArgs } from "./args.js";
import { decideCommand, pausedHint } from "./hints.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP, type StreamedEvent } from "./client.js";
import { ClientRunSession } from "./client-run-session.js";
import { withClient } from "./command-client.js";
import { flagText, inert, jsonOut } from "./render.js";
import { paint as paintOut, paintErr } from "./colour.js";
import { approvalQuestion, colourLine, eventLine, parseApprovalAnswer, runSucceeded, summaryLines, type ApprovalAnswer } from "./run-render.js";
import type { RunSession } from "./run-session.js";
import type { RunView } from "./views.js";
import { answerStream, type AnswerStream } from "./answer-stream.js";
import { endedRun } from "./ended-run.js";
import { Spinner } from "./spinner.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
export { parseCallFlag } from "./run-flags.js";
import { parseCallFlag, parseGrants } from "./run-flags.js";

export const RUN_EXIT_CODES = `  Exit codes: 0 the run ended and every tool call returned output; 1 a tool call failed (an
  error, a denial, a denied or expired approval) or the run was cancelled or failed; 2 bad usage
  (also an unknown agent or tool, or a token the server refuses); 3 the run waits for an approval
  (not asked: no terminal); 130 interrupted (Ctrl-C cancels the run).`;

export const runHelp = `clawhive run — start a run of an agent, follow its events to the end

  clawhive run AGENT "TASK" [--conversation ID] [options]      the agent's model picks the tools
  clawhive run AGENT "TASK" --call TOOL=JSON [--call TOOL=JSON ...] [options]   explicit calls

  AGENT             the agent the run acts as (capabilities/AGENT.yaml, or one put through the API)
  TASK              what the run is for: shown to whoever decides its approvals
  --call TOOL=JSON  a tool call, in order: TOOL is plugin.tool (or a bare tool name), JSON its
                    input (default {}), e.g. --call 'files.write_file={"path":"/w/a.txt","content":"hi"}'
  --grants JSON     the task's narrower grant (within the agent's), e.g. '{"log":{}}'
  --no-wait         (with --server) submit, print the run id, and return; the server drives
                    the run, 'clawhive runs watch ID --server URL' follows it. Without a
                    server nothing would drive it once this command returns: refused
  --wait-approval   without a terminal, keep waiting while someone else decides an approval
                    (default: print how to decide it and exit 3)
  --verbose         also show sandbox instance events
  --json            print the run (status, outcomes, report) as JSON on stdout at the end;
                    the event lines go to stderr

  Without --call the agent's model (its manifest's model block; the key from the secret store)
  drives the run: it sees the agent's tools, calls them, and its final answer is printed. The
  run starts a conversation; --conversation ID continues one. With --call the run carries out
  those tool calls in order instead.

  Events show one a line as they happen: call, ok / error, waits (for an approval), host
  (a host-proxy call, allowed or denied), log, ended. Then each tool call's output or error.
  A Guarded call waits for a person: in a terminal the approval is shown in full and asked
  inline — approve once / approve for the run / deny [o/r/d]; otherwise its id is printed with
  the command that decides it. Ctrl-C cancels the run (press it twice to quit and leave the
  run to finish on its own).

${SERVER_FLAGS_HELP}
  --agents DIR      (on the store) where agent manifests live (default the project's
                    capabilities/; env CLAWHIVE_AGENTS_DIR)
${STORE_FLAGS_HELP}

${RUN_EXIT_CODES}

  Example:
    clawhive run writer "note the date" --call 'files.write_file={"path":"/workspace/d.txt","content":"2026-01-31"}'`;

const usage = 'usage: clawhive run AGENT "TASK" [--call TOOL=JSON ...] (clawhive run --help)';

export async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, {
    ...STORE_FLAGS,
    ...SERVER_FLAGS,
    agents: { type: "string" },
    call: { type: "string", multiple: true },
    conversation: { type: "string" },
    grants: { type: "string" },
    "no-wait": { type: "boolean" },
    "wait-approval": { type: "boolean" },
    verbose: { type: "boolean" },
    json: { type: "boolean" },
  });
  const [agent, task, ...extra] = positionals;
  if (agent === undefined || agent === "" || task === undefined || extra.length > 0) throw new InvalidInputError(usage);
  const toolCalls = ((values.call as string[] | undefined) ?? []).map(parseCallFlag);
  const conversationId = flagText(values, "conversation");
  if (conversationId !== undefined && toolCalls.length > 0) throw new InvalidInputError("--conversation continues a run the model drives: it does not combine with --call", { field: "conversation" });
  const grantsText = flagText(values, "grants");
  const grants = grantsText === undefined ? undefined : parseGrants(grantsText);
  const server = await resolveServer(values);
  if (server === undefined && values["no-wait"] === true) {
    throw new InvalidInputError("--no-wait needs --server URL (or CLAWHIVE_SERVER): on the store, nothing would drive the run once this command returns; leave --no-wait out to follow it here, or start 'clawhive serve' and pass --server", { field: "no-wait" });
  }
  if (server !== undefined && values.agents !== undefined) throw new InvalidInputError("--agents and --server do not combine: the server has its own agents", { field: "agents" });
  // On the store, the runtime opened here drives the run, and continues it once it is decided.
  return withClient(
    values,
    async (client) => {
      const session = new ClientRunSession(client);
      const run = await session.submit({ agent, task, toolCalls, ...(grants === undefined ? {} : { grants }), ...(conversationId === undefined ? {} : { conversationId }) });
      const driven = toolCalls.length === 0 ? `driven by its model${run.conversation_id ? ` (conversation ${run.conversation_id})` : ""}` : `${toolCalls.length} tool call${toolCalls.length === 1 ? "" : "s"}`;
      console.error(inert(`run ${run.id} started: agent ${run.agent}, ${driven}, trace ${run.trace_id}`, { newlines: false }));
      if (values["no-wait"] === true) {
        if (values.json === true) console.log(jsonOut(run));
        else console.log(run.id);
        console.error(inert(`follow it with: clawhive runs watch ${run.id}${session.serverFlag}`, { newlines: false }));
        return 0;
      }
      return follow(session, run.id, { json: values.json === true, waitApproval: values["wait-approval"] === true, verbose: values.verbose === true });
    },
    { continueDecidedRuns: true },
  );
}

export interface FollowOptions {
  /** Event lines to stderr and the run as JSON on stdout at the end. */
  readonly json: boolean;
  /** Without a terminal, keep waiting for someone else's decision instead of exiting 3. */
  readonly waitApproval: boolean;
  readonly verbose: boolean;
  /** Show only events after this one. */
  readonly after?: number;
  /** How a REPL shows the run instead of plain lines: each event line, and the ended run. */
  readonly present?: RunPresenter;
  /** Where the model's streamed text goes (default: stdout, stderr with --json). */
  readonly answer?: AnswerStream;
}

export interface RunPresenter {
  line(text: string): void;
  /** `answered`: the model's answer was streamed already (not to be printed again). */
  end(run: RunView, options: { answered: boolean }): void;
  /** True while nothing happens (a spinner may turn), false when an event arrives. */
  busy(waiting: boolean): void;
}

/** How often a wait for a person says it is still waiting. */
const STILL_WAITING_MS = 30_000;

/**
 * Follows run `runId` to its end: prints its events, asks for (or waits for, or stops at) its
 * approvals, cancels it on Ctrl-C; the exit code says how it ended (RUN_EXIT_CODES).
 */
export async function follow(session: RunSession, runId: string, options: FollowOptions): Promise<number> {
  const out = options.present !== undefined ? (line: string) => options.present!.line(line) : options.json ? (line: string) => console.error(line) : (line: string) => console.log(line);
  const paint = options.json ? paintErr : paintOut;
  const controller = new AbortController();
  let interrupted = false;
  const onInterrupt = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    // The line break ends whatever the terminal shows (the ^C); the rest is one inert line.
    console.error(`\n${inert(`cancelling run ${runId} (Ctrl-C again to quit and leave it running)`, { newlines: false })}`);
    controller.abort();
  };
  process.on("SIGINT", onInterrupt);
  const waiting = new StillWaiting();
  const answer = options.answer ?? await answerStream(options.json ? process.stderr : process.stdout);
  const spinner = new Spinner();
  const busy = options.present !== undefined ? (on: boolean) => options.present!.busy(on) : (on: boolean) => (on ? spinner.start() : spinner.stop());
  // The Step whose text is the run's answer (its `respond` Step).
  let answerStep: string | undefined;
  busy(true);
  try {
    for await (const event of session.events(runId, {
      ...(options.after === undefined ? {} : { after: options.after }),
      signal: controller.signal,
      onRetry: (error) => console.error(`clawhive: the event stream broke (${error.message}); reconnecting`),
    })) {
      waiting.stop();
      busy(false);
      if (event.type === "text") {
        // The model is writing: its words, not a spinner, until the next event.
        answer.write(String(event.data.step_id), String(event.data.text ?? ""));
        continue;
      }
      answer.end();
      if (event.type === "step" && event.data.action === "respond") answerStep = String(event.data.step_id);
      const line = eventLine(event, { verbose: options.verbose });
      if (line !== undefined) out(colourLine(line, paint));
      if (event.type === "approval-required") {
        const next = await onApproval(session, event, { ...options, runId, signal: controller.signal, onInterrupt, waiting });
        // Ctrl-C at the question cancels the run like anywhere else.
        if (interrupted) break;
        if (next === "stop") {
          if (options.json) console.log(jsonOut(await session.run(runId)));
          return 3;
        }
      }
      if (event.type === "run-ended") break;
      busy(true);
    }
  } catch (error) {
    if (!interrupted) throw error;
  } finally {
    waiting.stop();
    busy(false);
    answer.end();
    process.off("SIGINT", onInterrupt);
  }
  if (interrupted) {
    await session.cancel(runId).catch((error: unknown) => console.error(`clawhive: ${inert((error as Error).message, { newlines: false })}`));
    console.error(inert(`cancelled run ${runId}`, { newlines: false }));
    return 130;
  }
  const run = await endedRun(session, runId);
  const answered = answerStep !== undefined && answer.shown(answerStep);
  if (options.present !== undefined) options.present.end(run, { answered });
  else if (options.json) console.log(jsonOut(run));
  else for (const line of summaryLines(run, { answered })) out(line);
  return runSucceeded(run) ? 0 : 1;
}

/** Asks in a terminal; else waits (`--wait-approval`) or stops (exit 3) with how to decide. */
async function onApproval(
  session: RunSession,
  event: StreamedEvent,
  options: FollowOptions & { runId: string; signal: AbortSignal; onInterrupt: () => void; waiting: StillWaiting },
): Promise<"continue" | "stop"> {
  const { runId } = options;
  const needed = (event.data.approval ?? {}) as { id?: string; tool?: string; reason?: string; expires_at?: number };
  const id = String(needed.id);
  // A stream read again from the start (watch) shows old pauses too, and a decided approval's run
  // goes on at its driver's next tick: ask only for an undecided one the run waits on now.
  const now = await session.run(runId);
  if (now.pending_approval?.id !== id) return "continue";
  const approval = await session.approval(id);
  if (approval !== undefined && approval.status !== "pending") return "continue";
  const decide = decideCommand(id, session.serverFlag);
  if (process.stdin.isTTY === true && process.stderr.isTTY === true) {
    if (approval === undefined) {
      console.error("clawhive: this token may not decide approvals (its role is client): an approver or admin decides it");
    } else {
      console.error(["", ...approvalBlock(approval, { now: Date.now(), task: now.task }), ""].join("\n"));
      const answer = await ask(approval.kind, options);
      if (answer !== undefined) {
        try {
          await session.decide(approval, answer);
          console.error(inert(`${answer.decision === "approve" ? `approved (${answer.scope})` : "denied"} ${id}; the run continues`, { newlines: false }));
          return "continue";
        } catch (error) {
          console.error(`clawhive: ${inert((error as Error).message, { newlines: false })}`);
        }
      }
    }
  }
  const expires = typeof needed.expires_at === "number" && needed.expires_at > 0 ? `, expires ${new Date(needed.expires_at).toISOString()}` : "";
  if (options.waitApproval) {
    console.error(inert(`waiting for approval ${id} (${needed.tool ?? "?"}${expires}): decide with '${decide}' (or deny)`, { newlines: false }));
    options.waiting.start(id);
    return "continue";
  }
  console.error(inert(`run ${runId} waits for approval ${id} (${needed.tool ?? "?"}${expires})`, { newlines: false }));
  console.error(inert(`  ${pausedHint(runId, id, session.serverFlag)}`, { newlines: false }));
  return "stop";
}

/** The answer typed in the terminal; undefined when stdin closed (Ctrl-D): no decision. */
async function ask(kind: string, options: { signal: AbortSignal; onInterrupt: () => void }): Promise<ApprovalAnswer | undefined> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // In a terminal readline takes Ctrl-C itself: it must still cancel the run.
  prompt.on("SIGINT", options.onInterrupt);
  let closed = false;
  prompt.on("close", () => (closed = true));
  try {
    for (;;) {
      if (closed) return undefined;
      let text: string;
      try {
        text = await prompt.question(approvalQuestion(kind), { signal: options.signal });
      } catch {
        return undefined;
      }
      const parsed = parseApprovalAnswer(text, kind);
      if ("answer" in parsed) return parsed.answer;
      console.error(parsed.error);
    }
  } finally {
    prompt.close();
  }
}

/** Every half minute of a wait for a person, a line saying so. */
class StillWaiting {
  #timer: NodeJS.Timeout | undefined;

  start(approvalId: string): void {
    this.stop();
    const since = Date.now();
    this.#timer = setInterval(() => {
      console.error(`still waiting for approval ${approvalId} (${Math.round((Date.now() - since) / 1000)} s)`);
    }, STILL_WAITING_MS);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
