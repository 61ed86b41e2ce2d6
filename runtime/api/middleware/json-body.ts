import type { Env, MiddlewareHandler } from "hono";
import * as v from "valibot";
import { ApiError } from "./api-error.js";
import { parseAt } from "./issues.js";
import { CLIENT_JSON } from "../../json/limits.js";
import { scanJson } from "../../json/scan.js";

const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/i;

/**
 * Reads the body as JSON and validates it with `schema` before the handler runs; the handler
 * reads it with `c.req.valid("json")`. 415 unless the body is declared JSON (Hono's own
 * validator would validate `{}` instead), 400 `invalid_json` for malformed JSON, 400 naming the
 * field (`body.agent`) for a valibot issue, 400 `json_too_deep` (or `json_too_many_values`)
 * naming where a body passes `CLIENT_JSON`, checked before it is parsed. Runs after the body limit, so it never reads more
 * than the limit allows.
 */
export function jsonBody<S extends v.GenericSchema, E extends Env = Env, P extends string = string>(
  schema: S,
): MiddlewareHandler<E, P, { in: { json: v.InferInput<S> }; out: { json: v.InferOutput<S> } }> {
  return async (c, next) => {
    const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim() ?? "";
    if (!JSON_MEDIA.test(type)) {
      throw new ApiError("unsupported_media_type", `request body: expected Content-Type: application/json, got ${type === "" ? "none" : JSON.stringify(type)}`, {
        status: 415,
        field: "body",
      });
    }
    const value = boundedJson(await c.req.text(), (syntax) => `request body: malformed JSON: ${syntax.message}`);
    c.req.addValidatedData("json", parseAt(schema, value, "body") as object);
    await next();
  };
}

/**
 * A client's JSON text as a value: checked against `CLIENT_JSON` before it is parsed (every
 * handler, the audit and the store write a body out again recursively), then parsed. 400
 * `json_too_deep` / `json_too_many_values` naming the place (`body.input.a[0]…`), or
 * `invalid_json` with the message `malformed` gives for the parser's error.
 */
export function boundedJson(text: string, malformed: (error: SyntaxError) => string): unknown {
  const problem = scanJson(text, CLIENT_JSON, { at: "body" });
  if (problem) throw new ApiError(`json_${problem.code.replace(/-/g, "_")}`, `request body: ${problem.message}`, { status: 400, field: problem.path });
  try {
    return JSON.parse(text);
  } catch (error) {
    if (!(error instanceof SyntaxError)) throw error;
    throw new ApiError("invalid_json", malformed(error), { status: 400, field: "body" });
  }
}
