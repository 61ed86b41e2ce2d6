/**
 * A request/response channel over a SharedArrayBuffer between the main thread and a worker.
 *
 * Two run per worker. On the host-call channel the worker asks (blocking in `Atomics.wait`:
 * host imports are synchronous on Node 20) and the main thread answers from `Atomics.waitAsync`.
 * On the task channel the main thread asks and the worker, idle in `Atomics.wait`, answers.
 * Both avoid `postMessage`, whose event-loop hop costs ~100 µs each way; a round trip here is
 * a few µs. Payloads larger than the buffer, and values v8 cannot serialize (compiled
 * `WebAssembly.Module`s), travel over a MessagePort and are read with `receiveMessageOnPort`.
 */
import { deserialize, serialize } from "node:v8";
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";

const STATE = 0;
const LENGTH = 1;
const MODE = 2;
const HEADER_BYTES = 16;

export const IDLE = 0;
export const REQUEST = 1;
export const RESPONSE = 2;
/** Closed for good: the worker is being terminated or the sandbox is closing. */
export const DEAD = 3;

const INLINE = 0;
const PORT_BYTES = 1;
const PORT_CLONE = 2;

export const DEFAULT_CHANNEL_BYTES = 1 << 20;

/** `poll` found no response yet. */
export const NOT_READY: unique symbol = Symbol("not ready");

export class ChannelClosedError extends Error {
  constructor() {
    super("channel closed");
    this.name = "ChannelClosedError";
  }
}

export function createChannelBuffer(bytes = DEFAULT_CHANNEL_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + bytes);
}

export class Channel {
  readonly #control: Int32Array;
  readonly #data: Uint8Array;
  readonly #port: MessagePort;
  #server: ((message: unknown) => Promise<unknown>) | undefined;
  #serving = false;

  constructor(buffer: SharedArrayBuffer, port: MessagePort) {
    this.#control = new Int32Array(buffer, 0, 4);
    this.#data = new Uint8Array(buffer, HEADER_BYTES);
    this.#port = port;
  }

  get state(): number {
    return Atomics.load(this.#control, STATE);
  }

  /** Blocking request (worker side). */
  requestSync(message: unknown): unknown {
    this.#put(message, false);
    this.#signal(REQUEST);
    for (;;) {
      const state = Atomics.load(this.#control, STATE);
      if (state === RESPONSE) break;
      if (state === DEAD) throw new ChannelClosedError();
      Atomics.wait(this.#control, STATE, state);
    }
    const response = this.#take();
    Atomics.store(this.#control, STATE, IDLE);
    return response;
  }

  /** Async request (main side). `clone` sends by structured clone (for compiled modules). */
  async request(message: unknown, options: { clone?: boolean } = {}): Promise<unknown> {
    this.#put(message, options.clone ?? false);
    this.#signal(REQUEST);
    for (;;) {
      const state = Atomics.load(this.#control, STATE);
      if (state === RESPONSE) break;
      if (state === DEAD) throw new ChannelClosedError();
      const waited = Atomics.waitAsync(this.#control, STATE, state);
      if (waited.async) await waited.value;
    }
    const response = this.#take();
    Atomics.store(this.#control, STATE, IDLE);
    return response;
  }

  /** Sends a request without waiting (main side); pair with `poll` and `wait`. */
  send(message: unknown, options: { clone?: boolean } = {}): void {
    this.#put(message, options.clone ?? false);
    this.#signal(REQUEST);
  }

  /** The response if it has arrived, else `NOT_READY`. Throws once the channel is closed. */
  poll(): unknown {
    const state = Atomics.load(this.#control, STATE);
    if (state === DEAD) throw new ChannelClosedError();
    if (state !== RESPONSE) return NOT_READY;
    const response = this.#take();
    Atomics.store(this.#control, STATE, IDLE);
    return response;
  }

  /** Resolves when the state word changes (or at once if it already has). */
  async wait(): Promise<void> {
    const state = Atomics.load(this.#control, STATE);
    if (state === RESPONSE || state === DEAD) return;
    const waited = Atomics.waitAsync(this.#control, STATE, state);
    if (waited.async) await waited.value;
  }

  /**
   * Serves requests until closed, blocking between them (worker side). `idle`: called once when
   * no request has come for `idle.afterMs` (the thread is otherwise parked and does nothing).
   */
  async serveBlocking(serve: (message: unknown) => unknown, idle?: { afterMs: number; run: () => void }): Promise<void> {
    let rested = false;
    for (;;) {
      const state = Atomics.load(this.#control, STATE);
      if (state === DEAD) return;
      if (state !== REQUEST) {
        if (idle === undefined || rested) {
          Atomics.wait(this.#control, STATE, state);
        } else if (Atomics.wait(this.#control, STATE, state, idle.afterMs) === "timed-out") {
          rested = true;
          idle.run();
        }
        continue;
      }
      rested = false;
      const response = await serve(this.#take());
      if (Atomics.load(this.#control, STATE) === DEAD) return;
      this.#respond(response);
    }
  }

  /**
   * Serves requests until closed, awaiting between them (main side). `serveReady` may also be
   * called from elsewhere (a poll loop) to pick a request up sooner than `waitAsync` would.
   */
  async serveAsync(serve: (message: unknown) => Promise<unknown>): Promise<void> {
    this.#server = serve;
    for (;;) {
      const state = Atomics.load(this.#control, STATE);
      if (state === DEAD) return;
      if (state === REQUEST && !this.#serving) {
        this.serveReady();
        continue;
      }
      const waited = Atomics.waitAsync(this.#control, STATE, state);
      if (waited.async) await waited.value;
    }
  }

  /** True while a request is being served. */
  get serving(): boolean {
    return this.#serving;
  }

  /** Starts serving a waiting request, if there is one and none is being served. */
  serveReady(): boolean {
    const serve = this.#server;
    if (!serve || this.#serving || Atomics.load(this.#control, STATE) !== REQUEST) return false;
    this.#serving = true;
    const request = this.#take();
    void serve(request).then(
      (response) => this.#finishServing(response),
      (error: unknown) => this.#finishServing({ ok: false, error: { tag: "io", val: `host call failed: ${(error as Error).message}` } }),
    );
    return true;
  }

  #finishServing(response: unknown): void {
    this.#serving = false;
    if (Atomics.load(this.#control, STATE) === DEAD) return;
    this.#respond(response);
  }

  /** Wakes both sides for good. */
  close(): void {
    this.#signal(DEAD);
  }

  #respond(response: unknown): void {
    this.#put(response, false);
    this.#signal(RESPONSE);
  }

  #signal(state: number): void {
    Atomics.store(this.#control, STATE, state);
    Atomics.notify(this.#control, STATE);
  }

  #put(message: unknown, clone: boolean): void {
    if (clone) {
      this.#port.postMessage(message);
      Atomics.store(this.#control, MODE, PORT_CLONE);
      return;
    }
    const bytes = serialize(message);
    if (bytes.length <= this.#data.length) {
      this.#data.set(bytes);
      Atomics.store(this.#control, LENGTH, bytes.length);
      Atomics.store(this.#control, MODE, INLINE);
    } else {
      this.#port.postMessage(bytes);
      Atomics.store(this.#control, MODE, PORT_BYTES);
    }
  }

  #take(): unknown {
    const mode = Atomics.load(this.#control, MODE);
    if (mode === INLINE) {
      const length = Atomics.load(this.#control, LENGTH);
      return deserialize(Buffer.from(this.#data.subarray(0, length)));
    }
    // postMessage enqueues before the state word is signalled, so the message is there.
    const received = receiveMessageOnPort(this.#port);
    if (!received) throw new Error("channel: payload missing from port");
    return mode === PORT_BYTES ? deserialize(received.message as Buffer) : received.message;
  }
}
