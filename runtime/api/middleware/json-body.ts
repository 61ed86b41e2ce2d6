import type { Env, MiddlewareHandler } from "hono";
import * as v from "valibot";
import { ApiError } from "./api-error.js";
import { parseAt } from "./issues.js";

const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/i;

/**
 * Reads the body as JSON and validates it with `schema` before the handler runs; the handler
 * reads it with `c.req.valid("json")`. 415 unless the body is declared JSON (Hono's own
 * validator would validate `{}` instead), 400 `invalid_json` for malformed JSON, 400 naming the
 * field (`body.agent`) for a valibot issue. Runs after the body limit, so it never reads more
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
    let value: unknown;
    try {
      value = JSON.parse(await c.req.text());
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      throw new ApiError("invalid_json", `request body: malformed JSON: ${error.message}`, { status: 400, field: "body" });
    }
    c.req.addValidatedData("json", parseAt(schema, value, "body") as object);
    await next();
  };
}
