/**
 * Bindings for `clawhive:host/memory@0.1.1` (wit/host/memory.wit), lowered by hand to the
 * canonical ABI: arguments are lent for the call and freed after it; what the host returns is read
 * into guest values and its blocks freed at once, so nothing outlives the call.
 */
import { Lent, takeStringAt, takeStringListAt } from "../abi";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

// Flattened: query (ptr, len), options.scope (case, ptr, len), options.k (case, value), then the return area.
@external("clawhive:host/memory@0.1.1", "search")
declare function searchImport(qp: usize, ql: usize, sc: i32, sp: usize, sl: usize, kc: i32, k: u32, ret: usize): void;

// Flattened: text (ptr, len), options.title (case, ptr, len), options.scope (case, ptr, len), then the return area.
@external("clawhive:host/memory@0.1.1", "write")
declare function writeImport(tp: usize, tl: usize, tc: i32, tip: usize, til: usize, sc: i32, sp: usize, sl: usize, ret: usize): void;

/** `hit` (size 72, align 8). */
export class Hit {
  episodeId: string = "";
  title: string = "";
  headingPath: string[] = [];
  text: string = "";
  score: f64 = 0;
  untrusted: bool = false;
  source: string = "";
  partition: string = "";
  /** Milliseconds since the Unix epoch. */
  createdAt: u64 = 0;
}

const HIT_SIZE: usize = 72;
const RET: usize = 64;

function takeHit(at: usize): Hit {
  const hit = new Hit();
  hit.episodeId = takeStringAt(at);
  hit.title = takeStringAt(at + 8);
  hit.headingPath = takeStringListAt(at + 16);
  hit.text = takeStringAt(at + 24);
  hit.score = load<f64>(at + 32);
  hit.untrusted = load<u8>(at + 40) != 0;
  hit.source = takeStringAt(at + 44);
  hit.partition = takeStringAt(at + 52);
  hit.createdAt = load<u64>(at + 64);
  return hit;
}

/** `search: func(query: string, options: search-options) -> result<list<hit>, host-error>`; k < 0 means none. */
export function search(query: string, scope: string | null, k: i64): HostResult<Hit[]> {
  const lent = new Lent();
  lent.string(0, query);
  if (scope != null) lent.string(8, scope);
  const ret = lent.area + RET;
  searchImport(lent.ptr(0), lent.len(0), scope != null ? 1 : 0, scope != null ? lent.ptr(8) : 0, scope != null ? lent.len(8) : 0, k >= 0 ? 1 : 0, k >= 0 ? <u32>k : 0, ret);
  let result: HostResult<Hit[]>;
  if (load<u8>(ret) == 0) {
    const list = <usize>load<u32>(ret + 4);
    const n = <i32>load<u32>(ret + 8);
    const hits = new Array<Hit>(n);
    for (let i = 0; i < n; i++) unchecked((hits[i] = takeHit(list + <usize>i * HIT_SIZE)));
    if (list != 0) heap.free(list);
    result = new HostResult<Hit[]>(hits, null);
  } else {
    result = new HostResult<Hit[]>([], takeHostErrorAt(ret + 4));
  }
  lent.free();
  return result;
}

/** `write: func(text: string, options: write-options) -> result<string, host-error>`: the new episode's id. */
export function write(text: string, title: string | null, scope: string | null): HostResult<string> {
  const lent = new Lent();
  lent.string(0, text);
  if (title != null) lent.string(8, title);
  if (scope != null) lent.string(16, scope);
  const ret = lent.area + RET;
  writeImport(
    lent.ptr(0), lent.len(0),
    title != null ? 1 : 0, title != null ? lent.ptr(8) : 0, title != null ? lent.len(8) : 0,
    scope != null ? 1 : 0, scope != null ? lent.ptr(16) : 0, scope != null ? lent.len(16) : 0,
    ret,
  );
  const result = load<u8>(ret) == 0
    ? new HostResult<string>(takeStringAt(ret + 4), null)
    : new HostResult<string>("", takeHostErrorAt(ret + 4));
  lent.free();
  return result;
}

export { HostError };
