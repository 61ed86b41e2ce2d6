/**
 * Google's Calendar API v3 discovery document (test/fixtures/calendar-api, revision 20180515)
 * as a validator: which method a request names, whether its query parameters are ones that
 * method knows and of the right type, and whether a JSON value fits a schema (no unknown
 * fields, right types and formats, fields a method requires present). The fake server uses it
 * on every request it gets and every response it sends.
 */
import { readFileSync } from "node:fs";
import { fixturePath } from "./_fixtures.js";

export interface DiscoverySchema {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: string[];
  minimum?: string;
  maximum?: string;
  repeated?: boolean;
  required?: boolean;
  location?: string;
  items?: DiscoverySchema;
  properties?: Record<string, DiscoverySchema>;
  additionalProperties?: DiscoverySchema;
  annotations?: { required?: string[] };
}

export interface DiscoveryMethod {
  id: string;
  path: string;
  httpMethod: string;
  parameters?: Record<string, DiscoverySchema>;
  request?: { $ref: string };
  response?: { $ref: string };
}

export interface Discovery {
  rootUrl: string;
  servicePath: string;
  parameters: Record<string, DiscoverySchema>;
  schemas: Record<string, DiscoverySchema>;
  methods: DiscoveryMethod[];
}

interface RawResource {
  methods?: Record<string, DiscoveryMethod>;
  resources?: Record<string, RawResource>;
}

export function loadDiscovery(): Discovery {
  const raw = JSON.parse(readFileSync(fixturePath("calendar-api/calendar-v3-discovery.json"), "utf8")) as Omit<Discovery, "methods"> & { resources: Record<string, RawResource> };
  const methods: DiscoveryMethod[] = [];
  const walk = (resources: Record<string, RawResource>) => {
    for (const resource of Object.values(resources)) {
      methods.push(...Object.values(resource.methods ?? {}));
      walk(resource.resources ?? {});
    }
  };
  walk(raw.resources);
  return { rootUrl: raw.rootUrl, servicePath: raw.servicePath, parameters: raw.parameters, schemas: raw.schemas, methods };
}

/** The method `httpMethod` + `path` (below the service path) names, with its path parameters. */
export function matchMethod(doc: Discovery, httpMethod: string, path: string): { method: DiscoveryMethod; params: Record<string, string> } | undefined {
  // A literal segment beats a parameter (`events/quickAdd` over `events/{eventId}`).
  const candidates = doc.methods
    .filter((m) => m.httpMethod === httpMethod)
    .sort((a, b) => b.path.replace(/\{[^}]+\}/g, "").length - a.path.replace(/\{[^}]+\}/g, "").length);
  for (const method of candidates) {
    const names: string[] = [];
    const pattern = method.path.split(/(\{[^}]+\})/).map((part) => {
      if (part.startsWith("{")) {
        names.push(part.slice(1, -1));
        return "([^/]+)";
      }
      return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    }).join("");
    const match = new RegExp(`^${pattern}$`).exec(path);
    if (match) return { method, params: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(match[i + 1] ?? "")])) };
  }
  return undefined;
}

/** Problems with a request's query string: parameters the method does not know, bad types. */
export function queryProblems(doc: Discovery, method: DiscoveryMethod, query: URLSearchParams): string[] {
  const problems: string[] = [];
  for (const name of new Set(query.keys())) {
    const spec = method.parameters?.[name] ?? doc.parameters[name];
    if (spec === undefined || (spec.location !== undefined && spec.location !== "query")) {
      problems.push(`unknown query parameter ${name} for ${method.id}`);
      continue;
    }
    const values = query.getAll(name);
    if (values.length > 1 && spec.repeated !== true) problems.push(`query parameter ${name} repeated`);
    for (const value of values) problems.push(...scalarProblems(spec, value, name));
  }
  return problems;
}

/** Problems with a path parameter or query value given as text. */
export function scalarProblems(spec: DiscoverySchema, text: string, path: string): string[] {
  if (spec.type === "boolean") return text === "true" || text === "false" ? [] : [`${path}: expected true or false, got ${text}`];
  if (spec.type === "integer") {
    if (!/^-?\d+$/.test(text)) return [`${path}: expected an integer, got ${text}`];
    const n = Number(text);
    if (spec.minimum !== undefined && n < Number(spec.minimum)) return [`${path}: ${n} is below ${spec.minimum}`];
    if (spec.maximum !== undefined && n > Number(spec.maximum)) return [`${path}: ${n} is above ${spec.maximum}`];
    return [];
  }
  return stringProblems(spec, text, path);
}

/**
 * Problems with a JSON value against a schema. `requiredFor` (a method id such as
 * `calendar.events.insert`) also checks the properties that method's annotations require.
 */
export function valueProblems(doc: Discovery, schema: DiscoverySchema, value: unknown, path: string, requiredFor?: string): string[] {
  if (schema.$ref !== undefined) {
    const target = doc.schemas[schema.$ref];
    return target === undefined ? [`${path}: unknown schema ${schema.$ref}`] : valueProblems(doc, target, value, path, requiredFor);
  }
  switch (schema.type) {
    case "object": return objectProblems(doc, schema, value, path, requiredFor);
    case "array":
      if (!Array.isArray(value)) return [`${path}: expected an array`];
      return value.flatMap((item, i) => (schema.items === undefined ? [] : valueProblems(doc, schema.items, item, `${path}[${i}]`, requiredFor)));
    case "string": return typeof value === "string" ? stringProblems(schema, value, path) : [`${path}: expected a string`];
    case "boolean": return typeof value === "boolean" ? [] : [`${path}: expected a boolean`];
    case "integer": return Number.isInteger(value) ? [] : [`${path}: expected an integer`];
    case "number": return typeof value === "number" ? [] : [`${path}: expected a number`];
    case "any": return [];
    default: return [`${path}: schema has no type`];
  }
}

function objectProblems(doc: Discovery, schema: DiscoverySchema, value: unknown, path: string, requiredFor?: string): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [`${path}: expected an object`];
  const record = value as Record<string, unknown>;
  const problems: string[] = [];
  for (const [key, item] of Object.entries(record)) {
    const spec = schema.properties?.[key] ?? schema.additionalProperties;
    if (spec === undefined) problems.push(`${path}.${key}: unknown field`);
    else problems.push(...valueProblems(doc, spec, item, `${path}.${key}`, requiredFor));
  }
  if (requiredFor !== undefined) {
    for (const [key, spec] of Object.entries(schema.properties ?? {})) {
      if (spec.annotations?.required?.includes(requiredFor) && record[key] === undefined) problems.push(`${path}.${key}: required by ${requiredFor}`);
    }
  }
  return problems;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

function stringProblems(spec: DiscoverySchema, text: string, path: string): string[] {
  if (spec.enum !== undefined && !spec.enum.includes(text)) return [`${path}: ${text} is not one of ${spec.enum.join(", ")}`];
  if (spec.format === "date-time" && !(DATE_TIME.test(text) && !Number.isNaN(Date.parse(text)))) return [`${path}: ${text} is not an RFC 3339 date-time`];
  if (spec.format === "date" && !DATE.test(text)) return [`${path}: ${text} is not a date`];
  if (spec.format === "int64" && !/^-?\d+$/.test(text)) return [`${path}: ${text} is not an int64`];
  return [];
}
