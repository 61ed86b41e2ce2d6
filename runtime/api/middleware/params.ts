import { validator } from "hono/validator";
import * as v from "valibot";
import { parseAt } from "./issues.js";

/** An agent, plugin or secret name: lower case, digits and `-`, starting with a letter, ≤ 63. */
export const NAME = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,62}$/, "expected a name: a-z, 0-9 and -, starting with a letter, at most 63 characters"));

/** An id the runtime made: `run_…`, `apr_…`, `task_…`, `tok_…` (a short prefix, `_`, then letters, digits and `-`). */
export const ID = v.pipe(v.string(), v.regex(/^[a-z]{2,8}_[A-Za-z0-9-]{1,64}$/, "expected an id such as run_… or apr_…"));

/**
 * Validates a route's path parameters against `schema` (an object of `NAME`, `ID` or a schema of
 * your own) before the handler runs: 400 naming the parameter (`path.name`) and nothing done
 * otherwise. The handler reads the checked values with `c.req.valid("param")`. The router gives
 * parameters percent-decoded, so `..%2Fsecrets` arrives here as `../secrets` and is refused.
 *
 * @example app.delete("/v1/agents/:name", requireRole("admin"), validParams(v.object({ name: NAME })), handler)
 */
export function validParams<S extends v.GenericSchema<Record<string, string>, Record<string, unknown>>>(schema: S) {
  return validator("param", (value) => parseAt(schema, value, "path") as v.InferOutput<S>);
}

/** One path parameter, checked: for handlers that do not use `validParams`. */
export function pathParam(c: { req: { param(name: string): string | undefined } }, name: string, schema: v.GenericSchema<string, string> = NAME): string {
  return parseAt(v.object({ [name]: schema }), { [name]: c.req.param(name) }, "path")[name] as string;
}
