/**
 * The MCP stdio transport to a confined server process, with the bounds the SDK's own stdio
 * transport lacks: a message over `maxMessageBytes`, a line that is not a JSON-RPC message, or
 * more than `maxNotifications` notifications since the last `resetBudget()` (a flood) ends the
 * connection with a protocol error naming the cause, and the process is killed. Server output
 * is hostile input: it is size- and depth-checked before it is parsed (runtime/json).
 *
 * The process runs in its own process group under bwrap (`--die-with-parent`, its own PID
 * namespace): killing the group, or the runtime process dying, takes every process of the
 * server with it.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { confinedStdio, type ProcessPlan } from "../../host-proxies/shell/index.js";
import { GUEST_RESULT_JSON, parseBounded } from "../json/index.js";

export interface StdioBounds {
  /** One message, in bytes; default 4 MiB. */
  maxMessageBytes?: number;
  /** Notifications (and requests) from the server between two `resetBudget()` calls; default 1000. */
  maxNotifications?: number;
  /** Between SIGTERM and SIGKILL when closing; default 1 s. */
  killGraceMs?: number;
}

export interface StdioTransportOptions extends StdioBounds {
  /** Called once the process is spawned (or could not be): releases what only the spawn needed. */
  release?: () => Promise<void>;
  /** Secret values the process was given (its env): what it sends back is shown without them. */
  secrets?: readonly string[];
}

const STDERR_TAIL = 2048;

export class ConfinedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #plan: ProcessPlan;
  readonly #maxBytes: number;
  readonly #maxNotifications: number;
  readonly #grace: number;
  #child: ChildProcess | undefined;
  #buffer: Buffer[] = [];
  #buffered = 0;
  #notifications = 0;
  #stderr = "";
  #failure: string | undefined;
  #exited: Promise<void> = Promise.resolve();
  #closed = false;

  readonly #release: (() => Promise<void>) | undefined;
  /** Secret values the process was given, for redaction by the caller. */
  readonly secrets: readonly string[];

  constructor(plan: ProcessPlan, bounds: StdioTransportOptions = {}) {
    this.#plan = plan;
    this.secrets = bounds.secrets ?? [];
    this.#release = bounds.release;
    this.#maxBytes = bounds.maxMessageBytes ?? 4 << 20;
    this.#maxNotifications = bounds.maxNotifications ?? 1000;
    this.#grace = bounds.killGraceMs ?? 1000;
  }

  /** Why the connection ended, when the server broke the protocol or its bounds (else undefined). */
  get failure(): string | undefined {
    return this.#failure;
  }

  /** The end of what the server wrote to stderr (for error messages; bounded). */
  get stderrTail(): string {
    return this.#stderr;
  }

  resetBudget(): void {
    this.#notifications = 0;
  }

  async start(): Promise<void> {
    let child: ChildProcess;
    let spawned: Promise<void>;
    try {
      const { stdio, close } = await confinedStdio(this.#plan, ["pipe", "pipe", "pipe"]);
      try {
        child = spawn(this.#plan.file, [...this.#plan.args], { cwd: this.#plan.cwd, env: { ...this.#plan.env }, stdio, detached: true, shell: false });
        // Listened for at once: the event comes on a later tick, before the awaits below end.
        spawned = new Promise<void>((resolve, reject) => {
          child.once("spawn", () => resolve());
          child.once("error", (error) => reject(new Error(`the server could not be started: ${error.message}`)));
        });
        spawned.catch(() => undefined);
      } finally {
        await close();
      }
    } finally {
      await this.#release?.();
    }
    this.#child = child;
    (this.#plan.extraStdio ?? []).forEach((x, i) => {
      const stream = child.stdio[3 + i] as NodeJS.WritableStream | null;
      if (typeof x !== "number" && stream) {
        stream.on("error", () => undefined);
        stream.end(x);
      }
    });
    this.#exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.stdin?.on("error", () => undefined);
    child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
    child.stderr?.on("data", (chunk: Buffer) => (this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-STDERR_TAIL)));
    child.once("exit", (code, signal) => {
      if (!this.#closed) this.#fail(`the server exited (${signal ?? `code ${code}`})${this.#stderr.trim() ? `: ${this.#stderr.trim().slice(-300)}` : ""}`);
    });
    await spawned;
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (this.#closed || !stdin || stdin.destroyed) throw new Error(this.#failure ?? "the server connection is closed");
    await new Promise<void>((resolve, reject) => stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve())));
  }

  async close(): Promise<void> {
    if (this.#closed) return this.#exited;
    this.#closed = true;
    this.#kill("SIGTERM");
    const timer = setTimeout(() => this.#kill("SIGKILL"), this.#grace);
    await this.#exited;
    clearTimeout(timer);
    // Stragglers (a daemonised child in the group) go with it.
    this.#kill("SIGKILL");
    this.#child?.stdout?.destroy();
    this.#child?.stderr?.destroy();
    this.onclose?.();
  }

  #kill(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: already gone.
    }
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1 && !this.#closed; nl = chunk.indexOf(10, start)) {
      this.#take(chunk.subarray(start, nl));
      if (this.#closed) return;
      const line = Buffer.concat(this.#buffer).toString("utf8");
      this.#buffer = [];
      this.#buffered = 0;
      this.#line(line);
      start = nl + 1;
    }
    if (!this.#closed && start < chunk.length) this.#take(chunk.subarray(start));
  }

  #take(part: Buffer): void {
    this.#buffered += part.length;
    if (this.#buffered > this.#maxBytes) return this.#fail(`the server sent a message over ${this.#maxBytes} bytes`);
    this.#buffer.push(part);
  }

  #line(line: string): void {
    if (line.trim() === "") return;
    const parsed = parseBounded(line, GUEST_RESULT_JSON, { at: "message" });
    if (!parsed.ok) return this.#fail(`the server sent malformed JSON-RPC: ${parsed.problem.message.slice(0, 200)}`);
    const message = JSONRPCMessageSchema.safeParse(parsed.value);
    if (!message.success) return this.#fail("the server sent a line that is not a JSON-RPC 2.0 message");
    const value = message.data as JSONRPCMessage;
    if (!("id" in value) || "method" in value) {
      if (++this.#notifications > this.#maxNotifications) return this.#fail(`the server sent more than ${this.#maxNotifications} notifications or requests during one call (a flood)`);
    }
    this.onmessage?.(value);
  }

  #fail(reason: string): void {
    if (this.#closed) return;
    this.#failure ??= reason;
    this.onerror?.(new Error(reason));
    void this.close();
  }
}
