/**
 * Mount tables as grants name them (`{guest, host, mode}`, the fs proxy's `FsMount`) and how
 * one table lies within another.
 *
 * Narrowing rules, and why:
 * - An inner mount's host must be the outer mount's host or a directory under it, compared
 *   segment by segment (`/data/ws2` is not under `/data/ws`).
 * - Its guest path must mirror that: outer `/work` ← `/data/ws` allows inner `/work/src` ←
 *   `/data/ws/src` and nothing else. At call time each layer canonicalises the same guest path
 *   against its own table (DESIGN: the conjunction is checked per layer); a remapped guest path
 *   would make the layers disagree about which file is meant.
 * - `rw` inside `ro` is a widening.
 * - Hosts must already be canonical absolute paths with symlinks resolved (the manifest loader
 *   realpaths them). `covers` is lexical and pure: it refuses `..`, `.`, `//` and relative
 *   hosts rather than normalising them, so `/data/ws/../secret` can never pass as "under".
 *   A symlink under the outer host would still pass the lexical test: callers narrowing with
 *   new hosts (task requests) must realpath them first.
 */
import { posix } from "node:path";
import * as v from "valibot";
import { strictObject } from "./strict.js";
import type { FsMount, FsMountMode } from "../../../host-proxies/fs/index.js";
import type { Coverage } from "./types.js";
import { COVERED, notCovered } from "./types.js";

// eslint-disable-next-line no-control-regex -- the controls are exactly what we refuse
const BAD_GUEST_CHAR = /[\u0000-\u001f\u007f\\]/;

/** The rules `openMounts` applies to a guest path, checked here so a manifest fails early. */
export function isCanonicalGuest(guest: string): boolean {
  if (!guest.startsWith("/") || BAD_GUEST_CHAR.test(guest)) return false;
  if (guest === "/") return true;
  const segments = guest.slice(1).split("/");
  return segments.every((s) => s !== "" && s !== "." && s !== "..");
}

/** Absolute, normalised, no trailing `/`: the only host form `covers` compares. */
export function isCanonicalHost(host: string): boolean {
  return posix.isAbsolute(host) && !host.includes("\0") && posix.normalize(host) === host && (host === "/" || !host.endsWith("/"));
}

export const GuestPathSchema = v.pipe(
  v.string(),
  v.description("where the plugin sees the directory, e.g. /workspace"),
  v.check(isCanonicalGuest, "expected a canonical absolute guest path like /workspace (no trailing '/', '.', '..', empty segments, backslashes or control characters)"),
);

/** In a manifest a host may be relative; the loader resolves it (see runtime/agents). */
export const HostPathSchema = v.pipe(
  v.string(),
  v.minLength(1, "expected a host directory"),
  v.check((s) => !s.includes("\0"), "host path must not contain a NUL byte"),
  v.check((s) => !s.startsWith("~"), "'~' is not expanded: use an absolute path or one relative to the data dir"),
);

/** A mount schema whose mode may only be one of `modes`; the first is the default. */
export function mountSchema<M extends FsMountMode>(modes: readonly [M, ...M[]], description: string) {
  return strictObject({
    guest: GuestPathSchema,
    host: v.pipe(HostPathSchema, v.description("host directory; a relative path resolves against the data dir")),
    mode: v.pipe(v.optional(v.picklist(modes), modes[0]), v.description(description)),
  });
}

export type GrantMount = FsMount;

function segmentsOf(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

/** The host segments of `inner` below `outer`, or `undefined` if `inner` is not at or under it. */
export function hostBelow(outer: string, inner: string): string[] | undefined {
  const o = segmentsOf(outer);
  const i = segmentsOf(inner);
  if (i.length < o.length || !o.every((s, k) => i[k] === s)) return undefined;
  return i.slice(o.length);
}

/** Whether either host directory is at or under the other (they share files). */
export function hostDirsOverlap(a: string, b: string): boolean {
  return hostBelow(a, b) !== undefined || hostBelow(b, a) !== undefined;
}

/** Why `inner` is not within `outer`, or `undefined` when it is. */
export function mountProblem(outer: GrantMount, inner: GrantMount): string | undefined {
  if (!isCanonicalHost(inner.host)) return "host is not a canonical absolute path (resolve '..', '.', symlinks and relative paths first)";
  if (!isCanonicalGuest(inner.guest)) return "guest is not a canonical absolute guest path";
  const below = hostBelow(outer.host, inner.host);
  if (below === undefined) return `host is not at or under a mounted directory of the wider grant`;
  const expected = posix.join(outer.guest, ...below);
  if (inner.guest !== expected) return `guest must be ${expected} to mirror its host directory (guest paths cannot be remapped)`;
  if (inner.mode === "rw" && outer.mode === "ro") return `mode rw is wider than the wider grant's ro`;
  return undefined;
}

/** Whether each mount of `inner` lies within some mount of `outer`. */
export function mountsCover(outer: readonly GrantMount[], inner: readonly GrantMount[], path = "mounts"): Coverage {
  for (const [i, mount] of inner.entries()) {
    const problems = outer.filter((o) => isCanonicalHost(o.host)).map((o) => mountProblem(o, mount));
    if (problems.includes(undefined)) continue;
    // Prefer the most specific reason: one about a mount that at least contains the host.
    const reason = problems.find((p) => p !== undefined && !p.startsWith("host is not at")) ?? problems[0] ?? "the wider grant has no mounts";
    return notCovered(`${path}[${i}]`, reason);
  }
  return COVERED;
}
