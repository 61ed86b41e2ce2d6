/** What the client sends and reads, whichever carrier takes a request (node-http.ts, or an app in this process). */

/** A request as the client sends it. */
export interface Outgoing {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string | Uint8Array;
  readonly signal?: AbortSignal;
}

/** An answer as the client reads it: what a `Response` has, and all the client uses of one. */
export interface Answer {
  readonly status: number;
  readonly statusText: string;
  readonly ok: boolean;
  text(): Promise<string>;
  /** The body as it arrives (an event stream); read it or `text()`, not both. */
  readonly body: AsyncIterable<Uint8Array> | null;
}

/** What carries a request: Node's `http` to a server, or an app's own handler. */
export type Fetch = (url: URL, init: Outgoing) => Promise<Answer>;
