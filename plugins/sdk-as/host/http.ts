/**
 * Bindings for `clawhive:host/http@0.1.1` (wit/host/http.wit), lowered by hand to the canonical
 * ABI as host/memory.ts does. `request` flattens to 15 values, so it goes as flat arguments;
 * `option<u64>` flattens to (case, i64) and `option<bool>` to (case, i32).
 */
import { storeString, takeStringAt } from "../abi";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

@external("clawhive:host/http@0.1.1", "fetch")
declare function fetchImport(
  mp: usize, ml: usize, up: usize, ul: usize, hp: usize, hl: usize,
  bc: i32, bp: usize, bl: usize, tc: i32, t: u32, xc: i32, x: u64, fc: i32, f: i32, ret: usize,
): void;

export class Header {
  constructor(public name: string, public value: string) {}
}

/** `request`. Null fields, a negative `timeoutMs` or `maxBytes` are none; `followRedirects` < 0 is none. */
export class Request {
  method: string = "GET";
  url: string = "";
  headers: Header[] = [];
  body: Uint8Array | null = null;
  timeoutMs: i64 = -1;
  maxBytes: i64 = -1;
  followRedirects: i32 = -1;
}

/** `response` (size 36, align 4). */
export class Response {
  status: u16 = 0;
  url: string = "";
  headers: Header[] = [];
  body: Uint8Array = new Uint8Array(0);
  truncated: bool = false;
  redirects: u32 = 0;

  /** The first header named `name` (ASCII case-insensitive), or null. */
  header(name: string): string | null {
    const wanted = name.toLowerCase();
    for (let i = 0; i < this.headers.length; i++) {
      const h = unchecked(this.headers[i]);
      if (h.name.toLowerCase() == wanted) return h.value;
    }
    return null;
  }
}

const RET_SIZE: usize = 40;

function takeResponse(at: usize): Response {
  const r = new Response();
  r.status = load<u16>(at);
  r.url = takeStringAt(at + 4);
  const hp = <usize>load<u32>(at + 12);
  const hn = <i32>load<u32>(at + 16);
  for (let i = 0; i < hn; i++) {
    const h = hp + <usize>i * 16;
    r.headers.push(new Header(takeStringAt(h), takeStringAt(h + 8)));
  }
  if (hp != 0) heap.free(hp);
  const bp = <usize>load<u32>(at + 20);
  const bn = <i32>load<u32>(at + 24);
  const body = new Uint8Array(bn);
  memory.copy(body.dataStart, bp, <usize>bn);
  if (bp != 0) heap.free(bp);
  r.body = body;
  r.truncated = load<u8>(at + 28) != 0;
  r.redirects = load<u32>(at + 32);
  return r;
}

/** `fetch: func(request: request) -> result<response, host-error>`. */
export function fetch(request: Request): HostResult<Response> {
  const blocks = new Array<usize>();
  // method at +0, url at +8: (pointer, length) pairs.
  const args = heap.alloc(16);
  storeString(args, request.method, blocks);
  storeString(args + 8, request.url, blocks);
  const n = request.headers.length;
  const headers = heap.alloc(<usize>n * 16);
  for (let i = 0; i < n; i++) {
    const h = unchecked(request.headers[i]);
    storeString(headers + <usize>i * 16, h.name, blocks);
    storeString(headers + <usize>i * 16 + 8, h.value, blocks);
  }
  const body = request.body;
  const ret = heap.alloc(RET_SIZE);
  fetchImport(
    <usize>load<u32>(args), <usize>load<u32>(args + 4), <usize>load<u32>(args + 8), <usize>load<u32>(args + 12),
    headers, <usize>n,
    body != null ? 1 : 0, body != null ? body.dataStart : 0, body != null ? <usize>body.length : 0,
    request.timeoutMs >= 0 ? 1 : 0, request.timeoutMs >= 0 ? <u32>request.timeoutMs : 0,
    request.maxBytes >= 0 ? 1 : 0, request.maxBytes >= 0 ? <u64>request.maxBytes : 0,
    request.followRedirects >= 0 ? 1 : 0, request.followRedirects > 0 ? 1 : 0,
    ret,
  );
  const result = load<u8>(ret) == 0
    ? new HostResult<Response>(takeResponse(ret + 4), null)
    : new HostResult<Response>(new Response(), takeHostErrorAt(ret + 4));
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(args);
  heap.free(headers);
  heap.free(ret);
  return result;
}

export { HostError };
