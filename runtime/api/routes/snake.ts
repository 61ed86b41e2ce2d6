/** The API's names are snake_case; the runtime's records are camelCase. One mapping for both directions of drift. */

const CAPITAL = /[A-Z]/g;

export function snakeName(name: string): string {
  return name.replace(CAPITAL, (c) => `_${c.toLowerCase()}`);
}

/**
 * `value` with every object key in snake_case, except under the keys in `opaque` (a tool's
 * input or output, a manifest): those are the caller's own data and pass unchanged.
 */
export function snakeKeys(value: unknown, opaque: ReadonlySet<string> = OPAQUE): unknown {
  if (Array.isArray(value)) return value.map((item) => snakeKeys(item, opaque));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const name = snakeName(key);
    out[name] = opaque.has(name) ? item : snakeKeys(item, opaque);
  }
  return out;
}

/** Values that are data, not the runtime's own records. */
export const OPAQUE: ReadonlySet<string> = new Set(["input", "output", "value", "manifest", "input_schema", "grants"]);
