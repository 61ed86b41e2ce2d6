/**
 * The OpenAPI 3.1 document of the API, generated from the route declarations (`defineRoute`):
 * the same valibot schemas that validate a request describe it here, so the two cannot drift.
 * What JSON Schema cannot say (a check, a transform) is left out; the route still enforces it.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { JsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import type { ApiRoute, FieldsSchema, ResponseSpec } from "./routes/route.js";

export interface OpenApiInfo {
  readonly version: string;
  readonly title?: string;
}

type Json = Record<string, unknown>;

/** `{error: {code, message, field?}}`: every error answer. */
export const ErrorBodySchema = v.strictObject({
  error: v.strictObject({
    code: v.pipe(v.string(), v.description("stable, for programs: e.g. invalid_input, not_found, plugin_exists")),
    message: v.pipe(v.string(), v.description("what was wrong and what to do, for people")),
    field: v.optional(v.pipe(v.string(), v.description("the input at fault: body.<path>, path.<name>, query.<name>, path, authorization"))),
  }),
});

const SHARED_ERRORS: Readonly<Record<number, string>> = {
  400: "invalid input: the field named in error.field (nothing was changed)",
  401: "no bearer token, or an unknown or revoked one",
  403: "the token's role may not use this route",
  413: "the body is larger than this route's limit",
  415: "the body's Content-Type is not one this route takes",
  429: "too many requests at once: retry after Retry-After seconds",
};

const IDEMPOTENCY_HEADER: Json = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "A retried request with the same key (same token, same body) answers the first answer, with Idempotent-Replayed: true; 422 idempotency_key_reused for a different body, 409 idempotency_in_progress while the first still runs. Kept a day.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

export function openApiDocument(routes: readonly ApiRoute[], info: OpenApiInfo): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    (paths[path] ??= {})[route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: {
      title: info.title ?? "clawhive API",
      version: info.version,
      description: "Every /v1 route needs Authorization: Bearer <token>; x-roles says which roles may call it (admin may call all).",
    },
    paths,
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer", description: "chv_tok_… tokens from `clawhive token create`" } },
      schemas: { Error: jsonSchemaOf(ErrorBodySchema) },
    },
  };
}

function operation(route: ApiRoute): Json {
  const hasInput = route.params !== undefined || route.query !== undefined || route.body !== undefined || route.raw !== undefined;
  const errors = [
    ...(hasInput ? [400] : []),
    ...(route.roles === "public" ? [] : [401, 403]),
    ...(route.body !== undefined || route.raw !== undefined ? [413, 415] : []),
    429,
  ];
  const responses: Record<string, Json> = {};
  for (const status of errors) responses[status] = errorResponse(SHARED_ERRORS[status]!);
  for (const [status, spec] of Object.entries(route.responses)) responses[status] = response(Number(status), spec);
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    security: route.roles === "public" ? [] : [{ bearer: [] }],
    "x-roles": route.roles === "public" ? [] : [...new Set(["admin", ...route.roles])],
    parameters: [...fields(route.params, "path"), ...fields(route.query, "query"), ...(route.idempotent ? [IDEMPOTENCY_HEADER] : [])],
    ...(route.body === undefined && route.raw === undefined ? {} : { requestBody: requestBody(route) }),
    responses,
  };
}

/** `PUT /v1/agents/:name` → `putV1AgentsName`. */
function operationId(route: ApiRoute): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter((w) => w !== "");
  return route.method.toLowerCase() + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
}

function fields(schema: FieldsSchema | undefined, where: "path" | "query"): Json[] {
  if (schema === undefined) return [];
  return Object.entries(schema.entries).map(([name, entry]) => {
    const optional = entry.type === "optional" || entry.type === "exact_optional" || entry.type === "nullish";
    return { name, in: where, required: where === "path" || !optional, schema: jsonSchemaOf(entry) };
  });
}

function requestBody(route: ApiRoute): Json {
  const content: Record<string, Json> = {};
  if (route.body !== undefined) content["application/json"] = { schema: jsonSchemaOf(route.body) };
  for (const type of route.raw?.mediaTypes ?? []) {
    const documented = type.endsWith("json") && route.raw?.jsonSchema !== undefined;
    content[type] = { schema: documented ? jsonSchemaOf(route.raw!.jsonSchema!) : { type: "string", contentMediaType: type } };
  }
  return { required: true, ...(route.raw === undefined ? {} : { description: route.raw.description }), content };
}

function response(status: number, spec: ResponseSpec): Json {
  // An error in another shape than the API's (MCP's JSON-RPC errors) names its schema.
  if (status >= 400 && spec.schema === undefined) return errorResponse(spec.description);
  if (status === 204 || spec.empty === true) return { description: spec.description };
  const type = spec.mediaType ?? "application/json";
  if (spec.schema === undefined && type === "application/json") throw new Error(`response ${status} (${spec.description}): a JSON answer needs its schema`);
  const schema = spec.schema === undefined ? { type: "string" } : jsonSchemaOf(spec.schema, "output");
  return { description: spec.description, content: { [type]: { schema } } };
}

function errorResponse(description: string): Json {
  return { description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } };
}

/** JSON Schema 2020-12 (what OpenAPI 3.1 uses) of a valibot schema: its input side for requests, its output for answers. */
function jsonSchemaOf(schema: v.GenericSchema, typeMode: "input" | "output" = "input"): JsonSchema {
  const { $schema: _, ...rest } = toJsonSchema(schema, { target: "draft-2020-12", typeMode, errorMode: "ignore" });
  return rest;
}

/** Every `METHOD /path` an OpenAPI document lists, in Hono syntax (for tests and checks). */
export function documentedRoutes(document: Json): string[] {
  const paths = (document.paths ?? {}) as Record<string, Record<string, unknown>>;
  return Object.entries(paths).flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method.toUpperCase()} ${path.replace(/\{([^}]+)\}/g, ":$1")}`));
}
