/**
 * The HTTP core shared by the fake OpenAI and Anthropic servers: listens on 127.0.0.1 port 0,
 * answers each request with the next scripted reply (a queue per server), records every request
 * (headers, parsed body) and whether the client closed the connection before the reply ended,
 * and closes every socket on `close()`. The listening socket and the accepted ones are unref'd,
 * so a test that forgets `close()` does not hold the process open.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body (undefined when it was not JSON). */
  body: unknown;
  /** True once the client closed the connection before the reply was complete (an abort). */
  clientClosed: boolean;
}

/** One request being answered: what came in, the scripted reply, where to write, and a signal that fires when the client goes away. */
export interface Exchange<R> {
  req: RecordedRequest;
  reply: R | undefined;
  res: ServerResponse;
  signal: AbortSignal;
}

export type Handler<R> = (exchange: Exchange<R>) => Promise<void>;

export class FakeHttpServer<R> {
  readonly requests: RecordedRequest[] = [];
  #queue: R[] = [];
  #server: Server;
  #sockets = new Set<Socket>();
  #closeWaiters: Array<() => void> = [];
  #holdWaiters: Array<{ count: number; resolve: () => void }> = [];
  #held = 0;
  url = "";

  constructor(readonly handle: Handler<R>) {
    this.#server = createServer((req, res) => void this.#serve(req, res));
    this.#server.on("connection", (socket) => {
      // Kept-alive client connections must not hold the test process open either.
      socket.unref();
      this.#sockets.add(socket);
      socket.on("close", () => this.#sockets.delete(socket));
    });
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    this.#server.unref();
    const { port } = this.#server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  /** Queues replies, served in order, one per request. */
  reply(...replies: R[]): this {
    this.#queue.push(...replies);
    return this;
  }

  /** Resolves once `count` streams (in this server's life) have paused at their reply's `hold` (see FakeReply). */
  holding(count = 1): Promise<void> {
    if (this.#held >= count) return Promise.resolve();
    return new Promise((resolve) => this.#holdWaiters.push({ count, resolve }));
  }

  /** For the servers' streams: a stream reached its hold. */
  protected held(): void {
    this.#held++;
    this.#holdWaiters = this.#holdWaiters.filter((w) => (w.count <= this.#held ? (w.resolve(), false) : true));
  }

  /** Replies not yet served. */
  get pending(): number {
    return this.#queue.length;
  }

  /** Resolves when a client has closed a connection before its reply ended. */
  clientClosed(): Promise<void> {
    if (this.requests.some((r) => r.clientClosed)) return Promise.resolve();
    return new Promise((resolve) => this.#closeWaiters.push(resolve));
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = raw === "" ? undefined : JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const record: RecordedRequest = { method: req.method ?? "", path: req.url ?? "", headers: { ...req.headers }, body, clientClosed: false };
    this.requests.push(record);
    const gone = new AbortController();
    res.on("close", () => {
      if (res.writableFinished) return;
      record.clientClosed = true;
      gone.abort();
      for (const waiter of this.#closeWaiters.splice(0)) waiter();
    });
    try {
      await this.handle({ req: record, reply: this.#queue.shift(), res, signal: gone.signal });
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ fake_error: String(error) }));
    }
  }
}

/** A pause in a stream: before chunk `at` is written, `until` must settle. */
export interface StreamHold {
  at: number;
  until: PromiseLike<unknown>;
}

/**
 * Writes `chunks` one by one, letting the event loop turn between them (setImmediate, so the
 * fake adds no timer granularity to benchmarks), or `delayMs` apart; `hold` pauses the stream.
 */
export async function writeChunks(res: ServerResponse, chunks: readonly string[], options: { signal: AbortSignal; delayMs?: number; hold?: StreamHold | undefined; onHold?: () => void }): Promise<void> {
  const { signal, delayMs = 0, hold } = options;
  for (const [index, chunk] of chunks.entries()) {
    if (hold !== undefined && index === hold.at) {
      options.onHold?.();
      await hold.until;
    }
    if (signal.aborted) return;
    res.write(chunk);
    await new Promise((resolve) => (delayMs > 0 ? setTimeout(resolve, delayMs) : setImmediate(resolve)));
  }
}

/** Splits a string into `n` roughly equal fragments (at least one), as streams split arguments. */
export function fragments(text: string, n: number): string[] {
  if (text === "") return [""];
  const size = Math.max(1, Math.ceil(text.length / n));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Waits until the client goes away (for replies that never finish). */
export function untilClosed(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
