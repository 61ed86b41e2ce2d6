import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { ClawhiveError } from "../errors.js";
import { parseBounded } from "./bounded.js";
import { TOOL_SCHEMA_JSON } from "./limits.js";
import { checkJsonValue } from "./value.js";
import { boundedRegExp, PatternInputTooLong } from "./pattern.js";
import { uniqueItems } from "./unique-items.js";

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
 * One validator for every plugin schema. A plugin's describe output is untrusted: unknown
 * keywords are ignored (strict off) rather than failing a plugin written for another draft;
 * `format` is not checked (no format library is loaded, and an unknown format must not refuse a
 * tool); patterns go through `boundedRegExp`; `uniqueItems` is checked in linear time; only the
 * first error is collected. Nothing is fetched: a `$ref` outside the schema fails to compile.
 */
const OPTIONS = { strict: false, allErrors: false, validateFormats: false, logger: false, code: { regExp: boundedRegExp } } as const;
/**
 * `checking` also validates each schema against the JSON Schema meta-schema (whose own compile is
 * ~100 ms, the larger part of a short command's first call); `compiling` trusts that check was
 * made when the schema's plugin was installed. Both still refuse a keyword whose value has the
 * wrong type, an unknown `type`, a pattern that is not a bounded regular expression.
 */
const checking = new Ajv(OPTIONS);
const compiling = new Ajv({ ...OPTIONS, validateSchema: false });
for (const ajv of [checking, compiling]) {
  ajv.removeKeyword("uniqueItems");
  ajv.addKeyword(uniqueItems);
}

/** Compiled validators by schema object: a tool's schema is compiled once, not per call. */
const compiled = new WeakMap<object, ToolInputValidator>();

/**
 * Compiles a tool's input schema (its JSON text from describe, or the object a registry holds)
 * into a validator. Throws `ToolSchemaError` naming the tool when the schema is too large or
 * deep, is not an object, or does not compile (including a refused pattern). `installed`: the
 * schema is an installed plugin's, checked against the meta-schema at its install.
 */
export function compileToolSchema(schema: unknown, options: { tool: string; installed?: boolean }): ToolInputValidator {
  if (typeof schema === "object" && schema !== null) {
    const known = compiled.get(schema);
    if (known) return known;
  }
  const value = typeof schema === "string" ? parseSchemaText(schema, options.tool) : schema;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ToolSchemaError(`tool ${options.tool}: its input schema must be a JSON Schema object`);
  }
  const problem = checkJsonValue(value, TOOL_SCHEMA_JSON, { at: "inputSchema" });
  if (problem) throw new ToolSchemaError(`tool ${options.tool}: ${problem.message}`);
  let validate: ValidateFunction;
  const ajv = options.installed === true ? compiling : checking;
  try {
    validate = ajv.compile(value);
  } catch (error) {
    throw new ToolSchemaError(`tool ${options.tool}: its input schema does not compile: ${bounded((error as Error).message)}`);
  } finally {
    // Forgotten at once: one plugin's `$id` must not clash with (or be reached from) another's.
    ajv.removeSchema(value);
  }
  const validator: ToolInputValidator = (input) => {
    try {
      if (validate(input)) return undefined;
    } catch (error) {
      if (error instanceof PatternInputTooLong) return { path: "input", message: `input: a string is ${error.message}` };
      throw error;
    }
    return violation(validate.errors?.[0]);
  };
  compiled.set(value, validator);
  if (typeof schema === "object" && schema !== null) compiled.set(schema, validator);
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
function violation(error: ErrorObject | undefined): SchemaViolation {
  if (!error) return { path: "input", message: "input: does not match the tool's input schema" };
  const segments = error.instancePath.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown };
  if (typeof params.missingProperty === "string") segments.push(params.missingProperty);
  const path = ["input", ...segments.map((s) => (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`))].join("");
  const extra = typeof params.additionalProperty === "string" ? ` (${JSON.stringify(params.additionalProperty)})` : "";
  const message = typeof params.missingProperty === "string" ? "is required" : `${error.message ?? "is invalid"}${extra}`;
  return { path: bounded(path), message: bounded(`${path}: ${message}`) };
}

function bounded(text: string): string {
  return text.length <= MESSAGE_MAX ? text : `${text.slice(0, MESSAGE_MAX)}…`;
}
