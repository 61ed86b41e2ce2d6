import type { HostError } from "clawhive:host/types@0.1.1";

const TAGS: ReadonlySet<string> = new Set(["denied", "not-found", "invalid-input", "io"]);

function isHostError(value: unknown): value is HostError {
  if (typeof value !== "object" || value === null) return false;
  const { tag, val } = value as { tag?: unknown; val?: unknown };
  if (typeof tag !== "string" || !TAGS.has(tag)) return false;
  if (tag === "denied") return typeof val === "object" && val !== null;
  return typeof val === "string";
}

/**
 * The `host-error` of a failed host call, or `undefined` if `e` is something else.
 *
 * In the guest a failed host call throws a `ComponentError` whose `payload` is the variant
 * (`{tag: 'not-found', val: '…'}`); a bare variant is accepted too.
 */
export function hostError(e: unknown): HostError | undefined {
  if (isHostError(e)) return e;
  if (typeof e === "object" && e !== null && "payload" in e) {
    const payload: unknown = (e as { payload: unknown }).payload;
    if (isHostError(payload)) return payload;
  }
  return undefined;
}
