import type { ErrorObject, ValidateFunction } from "ajv";
import { ClawhiveError } from "../errors.js";
import { parseBounded } from "./bounded.js";
import { ajvFor, dialectOf, META_SCHEMA_IDS, PLUGIN_SCHEMA_DIALECT, type SchemaDialect } from "./dialects.js";
import { TOOL_SCHEMA_JSON } from "./limits.js";
import { checkJsonValue } from "./value.js";
import { boundedRegExp, PatternInputTooLong } from "./pattern.js";

/** A tool's input schema that cannot be compiled: the tool is refused (at install, or when called). */
export class ToolSchemaError extends ClawhiveError {
  constructor(message: string) {
    super("tool_schema_invalid", message, { status: 422 });
  }
}

/** Why an input does not satisfy its tool's schema: the path into the input and a bounded message. */
export interface SchemaViolation {
  path: string;
  message: string;
}

export type ToolInputValidator = (input: unknown) => SchemaViolation | undefined;

const MESSAGE_MAX = 300;

/**
 * One validator per dialect (dialects.ts), chosen by the schema's `$schema`. A tool's schema is
 * untrusted: unknown keywords are ignored (strict off) rather than failing a schema that uses a
 * vendor's; `format` is not checked (no format library is loaded, and an unknown format must
 * not refuse a tool); patterns go through `boundedRegExp`; `uniqueItems` is checked in linear
 * time; only the first error is collected. Nothing is fetched: a `$ref` outside the schema
 * fails to compile. A schema is checked against its dialect's meta-schema (whose own compile is
 * ~100 ms, the larger part of a short command's first call) unless `installed` says that check
 * was made when its plugin was installed; either way a keyword whose value has the wrong type,
 * an unknown `type`, a pattern that is not a bounded regular expression are refused.
 */
const OPTIONS = { strict: false, allErrors: false, validateFormats: false, logger: false, code: { regExp: boundedRegExp } } as const;

/** Compiled validators by default dialect and root, then schema object: compiled once, not per call. */
const compiled = new Map<string, WeakMap<object, ToolInputValidator>>();

export interface CompileSchemaOptions {
  /** Named in errors: `tool files.read: …`. */
  tool: string;
  /** The schema is an installed plugin's, checked against its meta-schema at its install. */
  installed?: boolean;
  /** The dialect of a schema without `$schema`; default a plugin's (draft-07). */
  dialect?: SchemaDialect;
  /** What the validated value is called in messages (`input.a: …`); default `input`. */
  at?: string;
}

/**
 * Compiles a tool's schema (its JSON text from describe, or the object a registry holds) into a
 * validator, in the dialect its `$schema` names (else `options.dialect`). Throws
 * `ToolSchemaError` naming the tool when the schema is too large or deep, is not an object,
 * names an unknown dialect, or does not compile (including a refused pattern).
 */
export function compileToolSchema(schema: unknown, options: CompileSchemaOptions): ToolInputValidator {
  const fallback = options.dialect ?? PLUGIN_SCHEMA_DIALECT;
  const at = options.at ?? "input";
  const cacheKey = `${fallback}:${at}`;
  let cache = compiled.get(cacheKey);
  if (cache === undefined) compiled.set(cacheKey, (cache = new WeakMap()));
  if (typeof schema === "object" && schema !== null) {
    const known = cache.get(schema);
    if (known) return known;
  }
  const value = typeof schema === "string" ? parseSchemaText(schema, options.tool) : schema;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ToolSchemaError(`tool ${options.tool}: its ${at} schema must be a JSON Schema object`);
  }
  const problem = checkJsonValue(value, TOOL_SCHEMA_JSON, { at: `${at}Schema` });
  if (problem) throw new ToolSchemaError(`tool ${options.tool}: ${problem.message}`);
  const dialect = dialectOf(value, fallback);
  if (!dialect.ok) throw new ToolSchemaError(`tool ${options.tool}: ${dialect.message}`);
  let validate: ValidateFunction;
  const ajv = ajvFor(dialect.dialect, { ...OPTIONS, checkMeta: options.installed !== true });
  // `$schema` spelled another way (http for https, a `#` more or less) is compiled as the id ajv knows.
  const declared = (value as { $schema?: unknown }).$schema;
  const source = declared === undefined || declared === META_SCHEMA_IDS[dialect.dialect] ? value : { ...value, $schema: META_SCHEMA_IDS[dialect.dialect] };
  try {
    validate = ajv.compile(source);
  } catch (error) {
    throw new ToolSchemaError(`tool ${options.tool}: its ${at} schema does not compile as JSON Schema ${dialect.dialect}: ${bounded((error as Error).message)}`);
  } finally {
    // Forgotten at once: one plugin's `$id` must not clash with (or be reached from) another's.
    ajv.removeSchema(source);
  }
  const validator: ToolInputValidator = (input) => {
    try {
      if (validate(input)) return undefined;
    } catch (error) {
      if (error instanceof PatternInputTooLong) return { path: at, message: `${at}: a string is ${error.message}` };
      throw error;
    }
    return violation(validate.errors?.[0], at);
  };
  cache.set(value, validator);
  if (typeof schema === "object" && schema !== null) cache.set(schema, validator);
  return validator;
}

/** A tool's input schema from its describe text, bounded by `TOOL_SCHEMA_JSON`; throws `ToolSchemaError`. */
export function parseToolSchema(text: string, options: { tool: string }): unknown {
  return parseSchemaText(text, options.tool);
}

function parseSchemaText(text: string, tool: string): unknown {
  const parsed = parseBounded(text, TOOL_SCHEMA_JSON, { at: "inputSchema" });
  if (parsed.ok) return parsed.value;
  throw new ToolSchemaError(`tool ${tool}: ${parsed.problem.code === "not-json" ? "its input schema is not JSON" : parsed.problem.message}`);
}

/** ajv's first error as `input.a[0].b: must be string`, with the missing or extra property named. */
function violation(error: ErrorObject | undefined, at: string): SchemaViolation {
  if (!error) return { path: at, message: `${at}: does not match the tool's ${at} schema` };
  const segments = error.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  if (typeof params.missingProperty === "string") segments.push(params.missingProperty);
  const path = [at, ...segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))].join("");
  const extra = typeof params.additionalProperty === "string" ? ` (${JSON.stringify(params.additionalProperty)})` : "";
  const message = typeof params.missingProperty === "string" ? "is required" : `${error.message ?? "is invalid"}${extra}`;
  return { path: bounded(path), message: bounded(`${path}: ${message}`) };
}

function bounded(text: string): string {
  return text.length <= MESSAGE_MAX ? text : `${text.slice(0, MESSAGE_MAX)}…`;
}
