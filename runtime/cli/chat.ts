import { createInterface, type Interface } from "node:readline";
import { Marked } from "marked";
import { markedTerminal } from "marked-terminal";
import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { resolveServer, SERVER_FLAGS, SERVER_FLAGS_HELP } from "./client.js";
import { ClientRunSession } from "./client-run-session.js";
import { withClient } from "./command-client.js";
import { colourOn, paint, paintErr } from "./colour.js";
import { inert } from "./render.js";
import { AnswerStream } from "./answer-stream.js";
import { Spinner } from "./spinner.js";
import { colourLine } from "./run-render.js";
import { follow, type RunPresenter } from "./run.js";
import type { RunSession } from "./run-session.js";
import { reportLines } from "./runs.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import type { LeastPrivilegeReport } from "../runs/report.js";
import type { RunView } from "./views.js";

export const chatHelp = `clawhive chat — talk with an agent: each message is a run its model drives

  clawhive chat AGENT [--conversation ID] [options]

  Type a message and Enter; the agent's model answers (rendered as Markdown at a terminal),
  its tool calls and denials shown as compact lines with their outcome. A Guarded call is
  asked inline, showing exactly what would run: approve once / for the run / deny [o/r/d].
  Every message continues one conversation. Arrow keys recall earlier messages.

  /new       start a new conversation        /tools   the tools the agent may use
  /report    the last run's least-privilege report
  /cancel    cancel the run waiting for an approval     /quit   leave (also Ctrl-D)

  Ctrl-C while the model works cancels that run (the conversation goes on); Ctrl-C twice at
  the prompt leaves.

  --conversation ID continue an earlier conversation
${SERVER_FLAGS_HELP}
  --agents DIR      (on the store) where agent manifests live
${STORE_FLAGS_HELP}

  Exit codes: 0 left normally; 2 bad usage (an unknown agent).`;

const COMMANDS = ["/new", "/tools", "/report", "/cancel", "/quit"];

export async function chatCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, agents: { type: "string" }, conversation: { type: "string" } });
  const [agent, ...extra] = positionals;
  if (agent === undefined || agent === "" || extra.length > 0) throw new InvalidInputError("usage: clawhive chat AGENT (clawhive chat --help)");
  const server = await resolveServer(values);
  if (server !== undefined && values.agents !== undefined) throw new InvalidInputError("--agents and --server do not combine: the server has its own agents", { field: "agents" });
  return withClient(
    values,
    async (client) => {
      // /tools asks as `clawhive tools --agent` would, on the same store or server.
      const place = ["data-dir", "store", "agents"].flatMap((name) => (typeof values[name] === "string" ? [`--${name}`, values[name] as string] : []));
      const chat = new Chat(new ClientRunSession(client), agent, { conversation: typeof values.conversation === "string" ? values.conversation : undefined, place });
      return chat.loop();
    },
    { continueDecidedRuns: true },
  );
}

/** One REPL over a conversation: a line is a message (a run) or a /command. */
class Chat {
  readonly #session: RunSession;
  readonly #agent: string;
  #conversation: string | undefined;
  #lastRun: RunView | undefined;
  #markdown = new Marked(markedTerminal({ reflowText: false, showSectionPrefix: false }));
  #spinner = new Spinner();
  readonly #place: readonly string[];

  constructor(session: RunSession, agent: string, options: { conversation: string | undefined; place: readonly string[] }) {
    this.#session = session;
    this.#agent = agent;
    this.#conversation = options.conversation;
    this.#place = options.place;
  }

  async loop(): Promise<number> {
    console.error(inert(`chat with ${this.#agent}${this.#conversation ? ` (conversation ${this.#conversation})` : ""}; /quit leaves, /tools lists its tools`, { newlines: false }));
    const lines = new LineSource();
    try {
      for (;;) {
        const line = await lines.next(paint.bold("you> "));
        if (line === undefined) break;
        const text = line.trim();
        if (text === "") continue;
        if (text.startsWith("/")) {
          if (!(await this.#command(text))) break;
          continue;
        }
        await this.#message(text);
      }
    } finally {
      lines.close();
    }
    return 0;
  }

  /** False when the REPL ends. */
  async #command(text: string): Promise<boolean> {
    const [name] = text.split(/\s+/);
    switch (name) {
      case "/quit":
      case "/exit":
        return false;
      case "/new":
        this.#conversation = undefined;
        console.error("new conversation: the next message starts it");
        return true;
      case "/tools": {
        const { toolsCommand } = await import("./tools.js");
        await toolsCommand(["--agent", this.#agent, ...this.#serverArgs()]);
        return true;
      }
      case "/report":
        if (this.#lastRun?.report === undefined || this.#lastRun.report === null) console.error("no report yet: it comes when a run ends");
        else console.log(reportLines(this.#lastRun.report as unknown as LeastPrivilegeReport).join("\n"));
        return true;
      case "/cancel":
        if (this.#lastRun === undefined || this.#lastRun.status === "ended") console.error("no run to cancel");
        else {
          await this.#session.cancel(this.#lastRun.id);
          this.#lastRun = await this.#session.run(this.#lastRun.id);
          console.error(inert(`cancelled run ${this.#lastRun.id}; its approvals are withdrawn`, { newlines: false }));
        }
        return true;
      default:
        console.error(inert(`unknown command ${name}; the commands: ${COMMANDS.join(" ")}`, { newlines: false }));
        return true;
    }
  }

  #serverArgs(): string[] {
    const flag = this.#session.serverFlag.trim();
    return flag === "" ? [...this.#place] : flag.split(" ");
  }

  async #message(text: string): Promise<void> {
    let run: RunView;
    try {
      run = await this.#session.submit({ agent: this.#agent, task: text, toolCalls: [], ...(this.#conversation === undefined ? {} : { conversationId: this.#conversation }) });
    } catch (error) {
      console.error(inert(`clawhive: ${(error as Error).message}`));
      return;
    }
    this.#conversation = run.conversation_id ?? this.#conversation;
    const present: RunPresenter = {
      line: (line) => {
        // The model's answer streams on stdout (or is printed at the end); the rest as compact lines.
        if (line.startsWith("ended ")) return;
        console.error(colourLine(line, paintErr));
      },
      end: (ended, { answered }) => {
        this.#lastRun = ended;
        if (ended.result && !answered) console.log(this.#render(ended.result));
        if (ended.status === "ended" && ended.end_reason !== "completed") console.error(paintErr.red(`(run ${ended.end_reason ?? "ended"})`));
      },
      busy: (waiting) => (waiting ? this.#spinner.start() : this.#spinner.stop()),
    };
    const answer = new AnswerStream(process.stdout, colourOn(process.stdout) ? { render: (markdown) => this.#markdown.parse(markdown) as string } : {});
    await follow(this.#session, run.id, { json: false, waitApproval: false, verbose: false, present, answer });
    this.#lastRun ??= await this.#session.run(run.id);
  }

  /** The model's text as Markdown at a terminal with colour; else as written. Controls are made inert first. */
  #render(markdown: string): string {
    const safe = inert(markdown);
    if (!colourOn(process.stdout)) return safe;
    return (this.#markdown.parse(safe) as string).trimEnd();
  }
}

/**
 * The person's lines. At a terminal a fresh readline asks each time (with the history so far),
 * so that while a run goes on nothing else reads stdin and the approval question gets its own
 * answer; Ctrl-C twice at the prompt leaves. Through a pipe one reader buffers every line.
 */
class LineSource {
  readonly #history: string[] = [];
  #piped: AsyncIterator<string> | undefined;
  #pipe: Interface | undefined;
  #interrupts = 0;

  async next(promptText: string): Promise<string | undefined> {
    if (process.stdin.isTTY !== true) {
      if (this.#pipe === undefined) {
        this.#pipe = createInterface({ input: process.stdin, terminal: false });
        this.#piped = this.#pipe[Symbol.asyncIterator]();
      }
      const next = await this.#piped!.next();
      return next.done === true ? undefined : next.value;
    }
    const prompt = createInterface({
      input: process.stdin,
      output: process.stdout,
      terminal: true,
      history: [...this.#history],
      historySize: 500,
      completer: (line: string) => [COMMANDS.filter((c) => c.startsWith(line)), line],
    });
    try {
      const line = await new Promise<string | undefined>((resolve) => {
        prompt.on("close", () => resolve(undefined));
        prompt.on("SIGINT", () => {
          if (++this.#interrupts >= 2) return prompt.close();
          process.stderr.write("\n(Ctrl-C again or /quit to leave)\n");
          prompt.prompt();
        });
        prompt.question(promptText, resolve);
      });
      if (line !== undefined) {
        this.#interrupts = 0;
        if (line.trim() !== "") this.#history.unshift(line);
      }
      return line;
    } finally {
      prompt.close();
    }
  }

  close(): void {
    this.#pipe?.close();
  }
}
