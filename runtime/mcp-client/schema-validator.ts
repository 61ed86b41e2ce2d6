/**
 * The JSON Schema validator the SDK's `Client` checks a tool's structured result with: the
 * runtime's own (runtime/json), so an output schema is read in the dialect its `$schema` names
 * (2020-12 when none, as MCP says) with the same bounds as every tool schema, never by the SDK's
 * draft-07 ajv. A schema that cannot be compiled makes every structured result of that tool
 * refused with the reason (review names such a tool, definitions.ts); it never throws, since
 * the SDK compiles every listed tool's at once.
 */
import type { JsonSchemaType, JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js";
import { compileToolSchema, MCP_SCHEMA_DIALECT, ToolSchemaError, type ToolInputValidator } from "../json/index.js";

export const outputSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    let validate: ToolInputValidator;
    try {
      validate = compileToolSchema(schema, { tool: "output", dialect: MCP_SCHEMA_DIALECT, at: "result" });
    } catch (error) {
      if (!(error instanceof ToolSchemaError)) throw error;
      const message = `the tool's output schema cannot be used: ${error.message.replace(/^tool output: /, "")}`;
      return () => ({ valid: false, data: undefined, errorMessage: message });
    }
    return (input) => {
      const violation = validate(input);
      return violation === undefined ? { valid: true, data: input as T, errorMessage: undefined } : { valid: false, data: undefined, errorMessage: violation.message };
    };
  },
};
