/**
 * The one mapping between the runtime's names (camelCase, in memory) and the names everything
 * outside reads (snake_case: the API, `--json` output, run events as stored). Values under a
 * data key (a tool's input or output, a manifest, a grant) are the caller's own and pass
 * unchanged both ways.
 */

const CAPITAL = /[A-Z]/g;
const UNDERSCORED = /_([a-z0-9])/g;

/** Keys whose values are data, not the runtime's own records. */
export const OPAQUE: ReadonlySet<string> = new Set(["input", "output", "value", "manifest", "input_schema", "grants"]);

export function snakeName(name: string): string {
  return name.replace(CAPITAL, (c) => `_${c.toLowerCase()}`);
}

export function camelName(name: string): string {
  return name.replace(UNDERSCORED, (_, c: string) => c.toUpperCase());
}

/** `value` with every object key in snake_case, except under the keys in `opaque` (snake_case names). */
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

/**
 * snake_case names back to the runtime's camelCase, except under the keys in `opaque` (as
 * written, either spelling). A camelCase value comes back unchanged, so rows written before
 * the snake_case spelling read the same.
 */
export function camelKeys<T>(value: unknown, opaque: ReadonlySet<string> = new Set()): T {
  if (Array.isArray(value)) return value.map((item) => camelKeys(item, opaque)) as T;
  if (value === null || typeof value !== "object") return value as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[camelName(key)] = opaque.has(key) ? item : camelKeys(item, opaque);
  return out as T;
}
