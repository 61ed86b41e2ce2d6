/**
 * Bindings for `clawhive:host/fs@0.1.1` (wit/host/fs.wit), lowered by hand to the canonical ABI
 * as `host/memory.ts` does: arguments are lent for the call and freed after it; what the host
 * returns is read into guest values and its blocks freed at once, so nothing outlives the call.
 *
 * `walk` and `search` take more than 16 flat parameters, so their arguments travel as one tuple in
 * guest memory (canonical ABI: MAX_FLAT_PARAMS); an option left unset (null, or a negative number)
 * is `none`, which lets the host apply its own default.
 */
import { Lent, takeBytesAt, takeStringAt, takeStringListAt } from "../abi";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";
import { CaseMode, SearchMatch, SearchMode, SearchOptions, SearchResult, SkipCounts, skipCountsAt, stopReasonAt, STOP_REASONS, WalkEntry, WalkOptions, WalkResult } from "./fs-types";
export { CaseMode, SearchMatch, SearchMode, SearchOptions, SearchResult, SkipCounts, STOP_REASONS, WalkEntry, WalkOptions, WalkResult } from "./fs-types";

@external("clawhive:host/fs@0.1.1", "mounts")
declare function mountsImport(ret: usize): void;
@external("clawhive:host/fs@0.1.1", "read")
declare function readImport(pp: usize, pl: usize, ret: usize): void;
@external("clawhive:host/fs@0.1.1", "write")
declare function writeImport(pp: usize, pl: usize, dp: usize, dl: usize, ret: usize): void;
@external("clawhive:host/fs@0.1.1", "list-dir")
declare function listDirImport(pp: usize, pl: usize, ret: usize): void;
@external("clawhive:host/fs@0.1.1", "mkdir")
declare function mkdirImport(pp: usize, pl: usize, ret: usize): void;
@external("clawhive:host/fs@0.1.1", "walk")
declare function walkImport(args: usize, ret: usize): void;
@external("clawhive:host/fs@0.1.1", "search")
declare function searchImport(args: usize, ret: usize): void;

/** `entry-kind`'s cases, in WIT order. */
export const ENTRY_KINDS: string[] = ["file", "directory", "symlink", "other"];
/** The return area's size for every call here: the largest is `search`'s (88 bytes). */
const RET_SIZE: usize = 96;

/** `mount-info` (size 12, align 4); `mount-mode` `ro` is case 0. */
export class MountInfo {
  constructor(public guest: string, public readOnly: bool) {}
}

/** `entry` (size 24, align 8). */
export class Entry {
  constructor(public name: string, public kind: string, public size: u64) {}
}

function kindOf(c: u8): string {
  return <i32>c < ENTRY_KINDS.length ? unchecked(ENTRY_KINDS[<i32>c]) : "other";
}

/** Lends `path` and gives a return area; `call` fills it. */
function pathCall(path: string, call: (pp: usize, pl: usize, ret: usize) => void): Lent {
  const lent = new Lent();
  lent.string(0, path);
  const ret = lent.block(RET_SIZE);
  call(lent.ptr(0), lent.len(0), ret);
  return lent;
}

/** The return area a `pathCall` lent. */
function retOf(lent: Lent): usize {
  return unchecked(lent.blocks[lent.blocks.length - 1]);
}

/** A `result<_, host-error>` at `ret`, then the loan freed. */
function unitResult(lent: Lent, ret: usize): HostResult<bool> {
  const result = load<u8>(ret) == 0 ? new HostResult<bool>(true, null) : new HostResult<bool>(false, takeHostErrorAt(ret + 4));
  lent.free();
  return result;
}

/** `mounts: func() -> list<mount-info>`. */
export function mounts(): MountInfo[] {
  const lent = new Lent();
  const ret = lent.area;
  mountsImport(ret);
  const list = <usize>load<u32>(ret);
  const n = <i32>load<u32>(ret + 4);
  const out = new Array<MountInfo>(n);
  for (let i = 0; i < n; i++) {
    const at = list + <usize>i * 12;
    unchecked((out[i] = new MountInfo(takeStringAt(at), load<u8>(at + 8) == 0)));
  }
  if (list != 0) heap.free(list);
  lent.free();
  return out;
}

/** `read: func(path: string) -> result<list<u8>, host-error>`. */
export function read(path: string): HostResult<Uint8Array> {
  const lent = pathCall(path, (pp, pl, ret) => readImport(pp, pl, ret));
  const ret = retOf(lent);
  const result = load<u8>(ret) == 0
    ? new HostResult<Uint8Array>(takeBytesAt(ret + 4), null)
    : new HostResult<Uint8Array>(new Uint8Array(0), takeHostErrorAt(ret + 4));
  lent.free();
  return result;
}

/** `write: func(path: string, data: list<u8>) -> result<_, host-error>`: creates or truncates the file. */
export function write(path: string, data: Uint8Array): HostResult<bool> {
  const lent = new Lent();
  lent.string(0, path);
  lent.bytesTo(lent.area + 8, data);
  const ret = lent.block(RET_SIZE);
  writeImport(lent.ptr(0), lent.len(0), lent.ptr(8), lent.len(8), ret);
  return unitResult(lent, ret);
}

/** `list-dir: func(path: string) -> result<list<entry>, host-error>`, in the host's order. */
export function listDir(path: string): HostResult<Entry[]> {
  const lent = pathCall(path, (pp, pl, ret) => listDirImport(pp, pl, ret));
  const ret = retOf(lent);
  let result: HostResult<Entry[]>;
  if (load<u8>(ret) == 0) {
    const list = <usize>load<u32>(ret + 4);
    const n = <i32>load<u32>(ret + 8);
    const entries = new Array<Entry>(n);
    for (let i = 0; i < n; i++) {
      const at = list + <usize>i * 24;
      unchecked((entries[i] = new Entry(takeStringAt(at), kindOf(load<u8>(at + 8)), load<u64>(at + 16))));
    }
    if (list != 0) heap.free(list);
    result = new HostResult<Entry[]>(entries, null);
  } else {
    result = new HostResult<Entry[]>([], takeHostErrorAt(ret + 4));
  }
  lent.free();
  return result;
}

/** `mkdir: func(path: string) -> result<_, host-error>`: the directory and any missing parents. */
export function mkdir(path: string): HostResult<bool> {
  const lent = pathCall(path, (pp, pl, ret) => mkdirImport(pp, pl, ret));
  return unitResult(lent, retOf(lent));
}

// walk's argument tuple: path @0, walk-options @8 (size 76, align 4).
/** `walk: func(path: string, options: walk-options) -> result<walk-result, host-error>`. */
export function walk(path: string, options: WalkOptions): HostResult<WalkResult> {
  const lent = new Lent();
  const args = lent.block(84);
  lent.stringTo(args, path);
  const o = args + 8;
  lent.optionalStringListTo(o, options.includeGlobs);
  lent.optionalStringListTo(o + 12, options.excludeGlobs);
  const kinds = options.kinds;
  store<u8>(o + 24, kinds == null ? 0 : 1);
  if (kinds != null) {
    const ptr = lent.block(<usize>kinds.length);
    for (let i = 0; i < kinds.length; i++) store<u8>(ptr + <usize>i, unchecked(kinds[i]));
    store<u32>(o + 28, <u32>ptr);
    store<u32>(o + 32, <u32>kinds.length);
  }
  lent.optionalU32To(o + 36, options.maxDepth);
  lent.optionalU32To(o + 44, options.maxEntries);
  lent.optionalU32To(o + 52, options.maxResults);
  lent.optionalU32To(o + 60, options.maxMillis);
  lent.optionalU32To(o + 68, options.maxOutputChars);
  const ret = lent.block(RET_SIZE);
  walkImport(args, ret);
  let result: HostResult<WalkResult>;
  if (load<u8>(ret) == 0) {
    // walk-result at ret + 4: entries @0, truncated @8, stopped @9, entries-scanned @12, skipped @16, unreadable @56.
    const r = ret + 4;
    const out = new WalkResult();
    const list = <usize>load<u32>(r);
    const n = <i32>load<u32>(r + 4);
    const entries = new Array<WalkEntry>(n);
    for (let i = 0; i < n; i++) {
      const at = list + <usize>i * 24;
      unchecked((entries[i] = new WalkEntry(takeStringAt(at), kindOf(load<u8>(at + 8)), load<u64>(at + 16))));
    }
    if (list != 0) heap.free(list);
    out.entries = entries;
    out.truncated = load<u8>(r + 8) != 0;
    out.stopped = stopReasonAt(r + 9);
    out.entriesScanned = load<u32>(r + 12);
    out.skipped = skipCountsAt(r + 16);
    out.unreadable = takeStringListAt(r + 56);
    result = new HostResult<WalkResult>(out, null);
  } else {
    result = new HostResult<WalkResult>(new WalkResult(), takeHostErrorAt(ret + 4));
  }
  lent.free();
  return result;
}

// search's argument tuple: path @0, search-options @8 (size 132, align 4).
/** `search: func(path: string, options: search-options) -> result<search-result, host-error>`. */
export function search(path: string, options: SearchOptions): HostResult<SearchResult> {
  const lent = new Lent();
  const args = lent.block(140);
  lent.stringTo(args, path);
  const o = args + 8;
  lent.stringTo(o, options.pattern);
  lent.optionalU8To(o + 8, options.mode);
  lent.optionalU8To(o + 10, options.caseMode);
  lent.optionalStringListTo(o + 12, options.includeGlobs);
  lent.optionalStringListTo(o + 24, options.excludeGlobs);
  lent.optionalU32To(o + 36, options.contextBefore);
  lent.optionalU32To(o + 44, options.contextAfter);
  lent.optionalU32To(o + 52, options.maxDepth);
  lent.optionalU32To(o + 60, options.maxEntries);
  lent.optionalU32To(o + 68, options.maxFiles);
  lent.optionalU32To(o + 76, options.maxBytes);
  lent.optionalU32To(o + 84, options.maxFileBytes);
  lent.optionalU32To(o + 92, options.maxMatches);
  lent.optionalU32To(o + 100, options.maxMatchesPerFile);
  lent.optionalU32To(o + 108, options.maxLineLength);
  lent.optionalU32To(o + 116, options.maxMillis);
  lent.optionalU32To(o + 124, options.maxOutputChars);
  const ret = lent.block(RET_SIZE);
  searchImport(args, ret);
  let result: HostResult<SearchResult>;
  // search-result holds a u64, so the result's payload sits at ret + 8 (align 8), in both cases.
  if (load<u8>(ret) == 0) {
    // matches @0, truncated @8, stopped @9, entries-scanned @12, files-scanned @16, files-matched @20,
    // bytes-read @24, skipped @32, unreadable @72.
    const r = ret + 8;
    const out = new SearchResult();
    const list = <usize>load<u32>(r);
    const n = <i32>load<u32>(r + 4);
    const matches = new Array<SearchMatch>(n);
    for (let i = 0; i < n; i++) {
      const at = list + <usize>i * 36;
      const m = new SearchMatch();
      m.path = takeStringAt(at);
      m.line = load<u32>(at + 8);
      m.text = takeStringAt(at + 12);
      m.before = takeStringListAt(at + 20);
      m.after = takeStringListAt(at + 28);
      unchecked((matches[i] = m));
    }
    if (list != 0) heap.free(list);
    out.matches = matches;
    out.truncated = load<u8>(r + 8) != 0;
    out.stopped = stopReasonAt(r + 9);
    out.entriesScanned = load<u32>(r + 12);
    out.filesScanned = load<u32>(r + 16);
    out.filesMatched = load<u32>(r + 20);
    out.bytesRead = load<u64>(r + 24);
    out.skipped = skipCountsAt(r + 32);
    out.unreadable = takeStringListAt(r + 72);
    result = new HostResult<SearchResult>(out, null);
  } else {
    result = new HostResult<SearchResult>(new SearchResult(), takeHostErrorAt(ret + 8));
  }
  lent.free();
  return result;
}

export { HostError };
