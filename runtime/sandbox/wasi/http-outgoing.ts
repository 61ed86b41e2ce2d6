/**
 * The guest's side of an outgoing request before it is sent: its header fields (names checked,
 * size bounded) and its body (held in the worker up to a cap), as `wasi:http/types` resources.
 */
import { IoError, OutputStream, type StreamError } from "./streams.js";

const MAX_FIELDS_BYTES = 64 * 1024;
/** Most bytes of one outgoing body held in the worker (the http proxy's default request cap). */
export const MAX_OUTGOING_BODY_BYTES = 10 * 1024 * 1024;
/** An HTTP token (RFC 9110): what a header name or an extension method may be. */
export const NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export class Fields {
  #entries: Array<[string, Uint8Array]> = [];
  #immutable = false;

  static fromList(entries: Array<[string, Uint8Array]>): Fields {
    const fields = new Fields();
    for (const [name, value] of entries) fields.append(name, value);
    return fields;
  }
  get(name: string): Uint8Array[] {
    const key = name.toLowerCase();
    return this.#entries.filter(([n]) => n === key).map(([, v]) => v.slice());
  }
  has(name: string): boolean {
    const key = name.toLowerCase();
    return this.#entries.some(([n]) => n === key);
  }
  set(name: string, values: Uint8Array[]): void {
    this.delete(name);
    for (const value of values) this.append(name, value);
  }
  delete(name: string): void {
    this.#mutable();
    const key = name.toLowerCase();
    this.#entries = this.#entries.filter(([n]) => n !== key);
  }
  append(name: string, value: Uint8Array): void {
    this.#mutable();
    if (!NAME.test(name) || value.includes(0x0a) || value.includes(0x0d) || value.includes(0)) throw { tag: "invalid-syntax" };
    const size = this.#entries.reduce((n, [k, v]) => n + k.length + v.byteLength, 0) + name.length + value.byteLength;
    if (size > MAX_FIELDS_BYTES) throw { tag: "forbidden" };
    this.#entries.push([name.toLowerCase(), value.slice()]);
  }
  entries(): Array<[string, Uint8Array]> {
    return this.#entries.map(([n, v]) => [n, v.slice()]);
  }
  clone(): Fields {
    const copy = new Fields();
    copy.#entries = this.entries();
    return copy;
  }
  /** The headers as the http proxy takes them. */
  list(): Array<{ name: string; value: string }> {
    return this.#entries.map(([name, value]) => ({ name, value: Buffer.from(value).toString("latin1") }));
  }
  freeze(): this {
    this.#immutable = true;
    return this;
  }
  #mutable(): void {
    if (this.#immutable) throw { tag: "immutable" };
  }
}

export class OutgoingBody {
  readonly chunks: Uint8Array[] = [];
  bytes = 0;
  #stream: OutputStream | undefined;
  finished = false;

  write(): OutputStream {
    if (this.#stream) throw undefined;
    this.#stream = new OutputStream({
      permit: () => 65536,
      write: (bytes) => {
        if (this.finished) throw { tag: "closed" } satisfies StreamError;
        if (this.bytes + bytes.byteLength > MAX_OUTGOING_BODY_BYTES) {
          throw { tag: "last-operation-failed", val: new IoError(`the request body is larger than ${MAX_OUTGOING_BODY_BYTES} bytes`) } satisfies StreamError;
        }
        this.chunks.push(bytes.slice());
        this.bytes += bytes.byteLength;
      },
      flush: () => {},
    });
    return this.#stream;
  }
  static finish(body: OutgoingBody): void {
    body.finished = true;
  }
}
