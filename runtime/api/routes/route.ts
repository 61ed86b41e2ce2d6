import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import * as v from "valibot";
import type { ApiEnv, Role } from "../auth/index.js";
import { ApiError } from "../middleware/api-error.js";
import { parseAt } from "../middleware/issues.js";
import { boundedJson } from "../middleware/json-body.js";

export type Method = "GET" | "POST" | "PUT" | "DELETE";

/** A path or query schema: an object whose fields arrive as strings. */
export type FieldsSchema =
  | v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>
  | v.StrictObjectSchema<v.ObjectEntries, v.ErrorMessage<v.StrictObjectIssue> | undefined>;

/** A body taken as bytes, by media type: an uploaded package, a YAML manifest. */
export interface RawBodySpec {
  /** Lower-case media types without parameters, e.g. `application/gzip`. */
  readonly mediaTypes: readonly string[];
  readonly description: string;
  /** Documents (in OpenAPI) the shape of a raw body sent as JSON; the handler validates it. */
  readonly jsonSchema?: v.GenericSchema;
}

export interface RawBody {
  readonly mediaType: string;
  readonly bytes: Uint8Array;
}

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: v.GenericSchema;
  /** Default `application/json`. */
  readonly mediaType?: string;
  /** The answer has no body (e.g. 202 Accepted). */
  readonly empty?: boolean;
}

/**
 * A JSON answer built against its response schema: the body is type-checked against the schema
 * the OpenAPI document describes the route with, so the two cannot drift.
 */
export function reply<S extends v.GenericSchema>(c: Context, _schema: S, body: v.InferInput<S>, status: ContentfulStatusCode = 200, headers?: Record<string, string>): Response {
  return c.json(body as never, status, headers);
}

type Out<S> = S extends v.GenericSchema ? v.InferOutput<S> : Record<string, never>;

/** What a handler gets: every part of the request already validated. */
export interface RouteInput<P, Q, B, R> {
  readonly params: Out<P>;
  readonly query: Out<Q>;
  /** The JSON body; undefined when the request sent a raw body instead. */
  readonly body: B extends v.GenericSchema ? (R extends RawBodySpec ? v.InferOutput<B> | undefined : v.InferOutput<B>) : undefined;
  readonly raw: R extends RawBodySpec ? RawBody | undefined : undefined;
}

/**
 * One route, declared once: the app mounts it (role check, then validation, then the handler)
 * and the OpenAPI document describes it, both from these fields.
 */
export interface RouteSpec<P, Q, B, R> {
  readonly method: Method;
  /** Hono syntax: `/v1/plugins/:name`. */
  readonly path: string;
  /** Groups routes in the OpenAPI document, e.g. `plugins`. */
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** Who may call it (`admin` always may), or `public` for the unauthenticated `/health`-like routes. */
  readonly roles: readonly Role[] | "public";
  readonly params?: P;
  readonly query?: Q;
  /** A JSON body (`Content-Type: application/json`), validated. */
  readonly body?: B;
  /** Raw bodies accepted besides (or instead of) JSON. */
  readonly raw?: R;
  /** A body limit other than the app's (checked as the bytes arrive, chunked or not). */
  readonly bodyLimitBytes?: number;
  /** The answers worth describing; the shared 400/401/403/413/415/429 are added for it. */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /** Takes an `Idempotency-Key` header: a retried request answers the first answer (middleware/idempotency.ts). */
  readonly idempotent?: boolean;
  readonly handler: (c: Context<ApiEnv>, input: RouteInput<P, Q, B, R>) => Response | Promise<Response>;
}

/** A route with its types erased, as the app and the OpenAPI document hold it. */
export interface ApiRoute {
  readonly method: Method;
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description: string | undefined;
  readonly roles: readonly Role[] | "public";
  readonly params: FieldsSchema | undefined;
  readonly query: FieldsSchema | undefined;
  readonly body: v.GenericSchema | undefined;
  readonly raw: RawBodySpec | undefined;
  readonly bodyLimitBytes: number | undefined;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  readonly idempotent: boolean;
  /** Validates the request's path, query and body (400/415), then runs the handler. */
  readonly handle: (c: Context<ApiEnv>) => Promise<Response>;
}

/**
 * Declares a route. Path parameters, query and body are validated in that order, after the role
 * check the app puts in front of it, so an unauthorised caller learns nothing about input rules.
 *
 * @example
 * defineRoute({ method: "DELETE", path: "/v1/secrets/:name", tag: "secrets", summary: "Remove a secret",
 *   roles: ["admin"], params: v.strictObject({ name: SECRET_NAME }), responses: { 200: { description: "removed" } },
 *   handler: async (c, { params }) => c.json({ removed: await remove(params.name) }) })
 */
export function defineRoute<
  P extends FieldsSchema | undefined = undefined,
  Q extends FieldsSchema | undefined = undefined,
  B extends v.GenericSchema | undefined = undefined,
  R extends RawBodySpec | undefined = undefined,
>(spec: RouteSpec<P, Q, B, R>): ApiRoute {
  const route: Omit<ApiRoute, "handle"> = {
    method: spec.method,
    path: spec.path,
    tag: spec.tag,
    summary: spec.summary,
    description: spec.description,
    roles: spec.roles,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    raw: spec.raw,
    bodyLimitBytes: spec.bodyLimitBytes,
    responses: spec.responses,
    idempotent: spec.idempotent === true,
  };
  return {
    ...route,
    handle: async (c) => {
      const params = route.params === undefined ? {} : parseAt(route.params, c.req.param(), "path");
      const query = route.query === undefined ? {} : parseAt(route.query, singleValues(c.req.queries()), "query");
      const { body, raw } = await readBody(c, route);
      return spec.handler(c, { params, query, body, raw } as RouteInput<P, Q, B, R>);
    },
  };
}

/**
 * The query as one string a name. A repeated name (`?status=a&status=b`) is refused rather
 * than resolved: servers and proxies disagree on which one wins (HTTP parameter pollution).
 */
function singleValues(queries: Record<string, string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(queries)) {
    if (values.length !== 1) throw new ApiError("invalid_input", `query.${name}: given ${values.length} times; give it once`, { status: 400, field: `query.${name}` });
    out[name] = values[0]!;
  }
  return out;
}

const JSON_MEDIA = /^application\/(?:[\w.-]+\+)?json$/;

/** The media type of a request, lower case, without parameters (`charset=…`). */
export function mediaTypeOf(c: Context): string {
  return (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
}

async function readBody(c: Context<ApiEnv>, route: Omit<ApiRoute, "handle">): Promise<{ body: unknown; raw: RawBody | undefined }> {
  if (route.body === undefined && route.raw === undefined) return { body: undefined, raw: undefined };
  const type = mediaTypeOf(c);
  if (route.raw?.mediaTypes.includes(type)) return { body: undefined, raw: { mediaType: type, bytes: new Uint8Array(await c.req.arrayBuffer()) } };
  if (route.body !== undefined && JSON_MEDIA.test(type)) return { body: parseAt(route.body, parseJson(await c.req.arrayBuffer()), "body"), raw: undefined };
  const accepted = [...(route.body === undefined ? [] : ["application/json"]), ...(route.raw?.mediaTypes ?? [])];
  throw new ApiError("unsupported_media_type", `request body: expected Content-Type: ${accepted.join(" or ")}, got ${type === "" ? "none" : JSON.stringify(type)}`, {
    status: 415,
    field: "body",
  });
}

/**
 * Strict UTF-8, then JSON. The parser's own message is not repeated: V8 quotes the text around
 * the error, and that text may be a secret's value.
 */
export function parseJson(bytes: ArrayBuffer | Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("invalid_json", "request body: not UTF-8 text", { status: 400, field: "body" });
  }
  return boundedJson(text, (error) => {
    const at = /position (\d+)/.exec(error.message)?.[1];
    return `request body: malformed JSON${at === undefined ? "" : ` near byte ${at}`}`;
  });
}
