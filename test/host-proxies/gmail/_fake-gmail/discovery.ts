/**
 * The fake Gmail server's rulebook, read from Google's own discovery document
 * (test/fixtures/gmail-api/gmail-v1-discovery.json), never from shapes written from memory:
 * - `route`: which method a request is (path template and HTTP method);
 * - `checkParams`: every query parameter must be one the method or the API declares, of the
 *   declared type (boolean, uint32/int32 integer, enum), repeated only when `repeated`;
 * - `checkSchema`: every field of a response must be a property of its schema (recursively,
 *   through `$ref`), with the declared type and format; `null` is never valid.
 * Each returns a list of problems; an empty list means valid.
 */
import { readFileSync } from "node:fs";
import { GMAIL_DISCOVERY } from "../_corpus.js";

export interface Param {
  type?: string;
  format?: string;
  enum?: string[];
  location?: string;
  repeated?: boolean;
  required?: boolean;
}

export interface Schema {
  id?: string;
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  additionalProperties?: Schema;
  items?: Schema;
}

export interface Method {
  id: string;
  path: string;
  httpMethod: string;
  parameters?: Record<string, Param>;
  response?: { $ref: string };
}

export interface Discovery {
  rootUrl: string;
  servicePath: string;
  parameters: Record<string, Param>;
  schemas: Record<string, Schema>;
  methods: Method[];
}

interface Resource {
  methods?: Record<string, Method>;
  resources?: Record<string, Resource>;
}

export function loadDiscovery(path = GMAIL_DISCOVERY): Discovery {
  const doc = JSON.parse(readFileSync(path, "utf8")) as Discovery & { resources: Record<string, Resource> };
  const methods: Method[] = [];
  const collect = (resource: Resource) => {
    methods.push(...Object.values(resource.methods ?? {}));
    Object.values(resource.resources ?? {}).forEach(collect);
  };
  Object.values(doc.resources).forEach(collect);
  return { rootUrl: doc.rootUrl, servicePath: doc.servicePath, parameters: doc.parameters, schemas: doc.schemas, methods };
}

/** The method a request is, with its decoded path parameters; templates with fewer variables win. */
export function route(d: Discovery, httpMethod: string, pathname: string): { method: Method; pathParams: Record<string, string> } | undefined {
  const path = pathname.replace(/^\//, "");
  const candidates = d.methods
    .filter((m) => m.httpMethod === httpMethod)
    .map((m) => ({ method: m, names: [...m.path.matchAll(/\{\+?([^}]+)\}/g)].map((x) => x[1] ?? "") }))
    .sort((a, b) => a.names.length - b.names.length);
  for (const { method, names } of candidates) {
    const pattern = method.path
      .split(/(\{\+?[^}]+\})/)
      .map((piece) => (piece.startsWith("{+") ? "(.+)" : piece.startsWith("{") ? "([^/]+)" : piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
      .join("");
    const match = new RegExp(`^${pattern}$`).exec(path);
    if (match === null) continue;
    const pathParams = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? "")]));
    return { method, pathParams };
  }
  return undefined;
}

/** Problems with the query string of a request to `method`. */
export function checkParams(d: Discovery, method: Method, query: URLSearchParams): string[] {
  const problems: string[] = [];
  const known = (name: string): Param | undefined => {
    const own = method.parameters?.[name];
    if (own !== undefined) return own.location === "query" ? own : undefined;
    return d.parameters[name];
  };
  for (const name of new Set(query.keys())) {
    const param = known(name);
    const values = query.getAll(name);
    if (param === undefined) {
      problems.push(`${method.id}: unknown parameter ${JSON.stringify(name)}`);
      continue;
    }
    if (values.length > 1 && param.repeated !== true) problems.push(`${method.id}: ${name} is not repeated but was sent ${values.length} times`);
    for (const value of values) {
      const problem = checkScalar(param, value);
      if (problem !== undefined) problems.push(`${method.id}: ${name}=${JSON.stringify(value)}: ${problem}`);
    }
  }
  for (const [name, param] of Object.entries(method.parameters ?? {})) {
    if (param.location === "query" && param.required === true && !query.has(name)) problems.push(`${method.id}: ${name} is required`);
  }
  return problems;
}

const RANGES: Record<string, [number, number]> = { uint32: [0, 2 ** 32 - 1], int32: [-(2 ** 31), 2 ** 31 - 1] };

function checkScalar(param: Param, value: string): string | undefined {
  if (param.enum !== undefined && !param.enum.includes(value)) return `not one of ${param.enum.join(", ")}`;
  if (param.type === "boolean" && value !== "true" && value !== "false") return "not a boolean";
  if (param.type === "integer") {
    if (!/^-?\d+$/.test(value)) return "not an integer";
    const [min, max] = RANGES[param.format ?? ""] ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
    if (Number(value) < min || Number(value) > max) return `outside ${param.format}`;
  }
  return undefined;
}

/** Problems with `value` as an instance of the schema named `name`. */
export function checkSchema(d: Discovery, name: string, value: unknown): string[] {
  const problems: string[] = [];
  checkValue(d, { $ref: name }, value, name, problems);
  return problems;
}

function checkValue(d: Discovery, schema: Schema, value: unknown, at: string, problems: string[]): void {
  if (schema.$ref !== undefined) {
    const target = d.schemas[schema.$ref];
    if (target === undefined) return void problems.push(`${at}: schema ${schema.$ref} is not in the discovery document`);
    return checkValue(d, target, value, at, problems);
  }
  if (value === null || value === undefined) return void problems.push(`${at}: ${String(value)} is not a value`);
  switch (schema.type) {
    case "object":
      return checkObject(d, schema, value, at, problems);
    case "array":
      if (!Array.isArray(value)) return void problems.push(`${at}: expected an array`);
      return value.forEach((item, i) => checkValue(d, schema.items ?? {}, item, `${at}[${i}]`, problems));
    case "string":
      if (typeof value !== "string") return void problems.push(`${at}: expected a string`);
      return checkStringFormat(schema, value, at, problems);
    case "integer":
    case "number": {
      const [min, max] = RANGES[schema.format ?? ""] ?? [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
      if (typeof value !== "number" || (schema.type === "integer" && !Number.isInteger(value)) || value < min || value > max) {
        problems.push(`${at}: expected ${schema.format ?? schema.type}`);
      }
      return;
    }
    case "boolean":
      if (typeof value !== "boolean") problems.push(`${at}: expected a boolean`);
      return;
    case "any":
      return;
    default:
      problems.push(`${at}: schema type ${String(schema.type)} is not understood by the fake`);
  }
}

function checkObject(d: Discovery, schema: Schema, value: unknown, at: string, problems: string[]): void {
  if (typeof value !== "object" || Array.isArray(value)) return void problems.push(`${at}: expected an object`);
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const property = schema.properties?.[key] ?? schema.additionalProperties;
    if (property === undefined) problems.push(`${at}.${key}: not a field of ${schema.id ?? "this object"}`);
    else checkValue(d, property, inner, `${at}.${key}`, problems);
  }
}

function checkStringFormat(schema: Schema, value: string, at: string, problems: string[]): void {
  if (schema.enum !== undefined && !schema.enum.includes(value)) problems.push(`${at}: ${JSON.stringify(value)} is not one of ${schema.enum.join(", ")}`);
  // Google sends 64-bit integers as decimal strings, bytes as base64url.
  if ((schema.format === "int64" || schema.format === "uint64") && !/^-?\d+$/.test(value)) problems.push(`${at}: expected a decimal ${schema.format} string`);
  if (schema.format === "byte" && !/^[A-Za-z0-9_\-+/]*={0,2}$/.test(value)) problems.push(`${at}: expected base64`);
}
