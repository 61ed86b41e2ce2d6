import { fail } from "./tool-failure.js";

/** Host `u64` values arrive as bigints, which `JSON.stringify` refuses. */
function replaceBigint(_key: string, value: unknown): unknown {
  if (typeof value !== "bigint") return value;
  return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString();
}

/** A tool's result as JSON text; bigints become numbers (or strings past 2^53). */
export function toJson(result: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(result, replaceBigint);
  } catch (e) {
    throw fail.failed(`result: cannot be written as JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  // `undefined` (a tool that returns nothing) is not JSON.
  return text ?? "null";
}
