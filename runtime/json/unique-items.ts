import type { ErrorObject, FuncKeywordDefinition } from "ajv";

/**
 * `uniqueItems` in linear time. ajv's own compares items pairwise (quadratic), so an input of a
 * few thousand objects under a plugin's `uniqueItems: true` would hold the main thread; here each
 * item is written once in a canonical form (keys sorted) and looked up in a set. The input's
 * depth is bounded before it is validated, so the recursion is too.
 */
const unique: ((schema: boolean, data: unknown[]) => boolean) & { errors?: Array<Partial<ErrorObject>> } = (schema, data) => {
  if (!schema) return true;
  const seen = new Map<string, number>();
  for (let i = 0; i < data.length; i++) {
    const key = canonical(data[i]);
    const j = seen.get(key);
    if (j !== undefined) {
      unique.errors = [{ keyword: "uniqueItems", message: `must NOT have duplicate items (items ${j} and ${i} are identical)`, params: { i, j } }];
      return false;
    }
    seen.set(key, i);
  }
  return true;
};

export const uniqueItems: FuncKeywordDefinition = { keyword: "uniqueItems", type: "array", schemaType: "boolean", errors: true, validate: unique as FuncKeywordDefinition["validate"] };

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
