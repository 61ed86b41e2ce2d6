import * as v from "valibot";
import { InvalidInputError } from "../../errors.js";

/**
 * A valibot failure as the one `InvalidInputError` the API answers 400 with: the first issue,
 * its field as a dot path under `where` (`body.grants.fs`, `path.name`), so a caller learns
 * which field to fix. The value itself is not echoed: it may be large or a secret.
 */
export function issuesError(issues: readonly v.BaseIssue<unknown>[], where: string, cause?: unknown): InvalidInputError {
  const first = issues[0];
  const path = first === undefined ? null : v.getDotPath(first);
  const field = path === null || path === "" ? where : `${where}.${path}`;
  const message = first?.message ?? "invalid";
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : "";
  return new InvalidInputError(`${field}: ${message}${more}`, { field, cause });
}

/** `v.safeParse`, throwing `issuesError` on failure. */
export function parseAt<S extends v.GenericSchema>(schema: S, value: unknown, where: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value);
  if (!result.success) throw issuesError(result.issues, where);
  return result.output;
}
