/**
 * The plugin side of `wit/plugin/tools.wit` (package `clawhive:plugin@0.1.0`) in jco's guest
 * shapes, and the types plugin authors write tools with.
 */
import type { Denial } from "clawhive:host/types@0.1.1";

export type { Denial };

/** `clawhive:plugin/tools.risk`. */
export type Risk = "safe" | "guarded" | "unsafe";

/** `clawhive:plugin/tools.tool-descriptor`. */
export interface ToolDescriptor {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the tool's input, as JSON text. */
  inputSchema: string;
  capabilities: string[];
  risk: Risk;
}

/** `clawhive:plugin/tools.tool-error`: what a failed `call` throws across the boundary. */
export type ToolError =
  | { tag: "denied"; val: Denial }
  | { tag: "invalid-input"; val: string }
  | { tag: "not-found"; val: string }
  | { tag: "failed"; val: string };

/** The `tools` export of a plugin component. */
export interface ToolsExport {
  describe(): ToolDescriptor[];
  /** Returns JSON text; throws a `ToolError` value (never an `Error`). */
  call(name: string, input: string): string;
}

export type JsonType = "string" | "number" | "integer" | "boolean" | "object" | "array" | "null";

/**
 * The subset of JSON Schema the SDK reads (`type`, `enum`, `required`,
 * `additionalProperties`); any other keyword is passed through to the host untouched.
 */
export interface PropertySchema {
  type?: JsonType | readonly JsonType[];
  description?: string;
  enum?: readonly (string | number | boolean | null)[];
  items?: PropertySchema;
  [keyword: string]: unknown;
}

/** A tool's input schema: always a JSON object. */
export interface InputSchema {
  type: "object";
  properties: { readonly [name: string]: PropertySchema };
  required?: readonly string[];
  additionalProperties?: boolean;
  [keyword: string]: unknown;
}

type TypeValue<T> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? unknown[]
          : T extends "object"
            ? Record<string, unknown>
            : unknown;

/** The TypeScript type of a value a property schema accepts. */
export type ValueOf<P> = P extends { enum: readonly (infer E)[] }
  ? E
  : P extends { type: "array"; items: infer I }
    ? ValueOf<I>[]
    : P extends { type: infer T }
      ? T extends readonly (infer U)[]
        ? TypeValue<U>
        : TypeValue<T>
      : unknown;

type RequiredNames<S extends InputSchema> = S["required"] extends readonly (infer R)[] ? R : never;

/** The TypeScript type of a tool's input, read off its schema. */
export type InputOf<S extends InputSchema> = {
  -readonly [K in keyof S["properties"] as K extends RequiredNames<S> ? K : never]: ValueOf<S["properties"][K]>;
} & {
  -readonly [K in keyof S["properties"] as K extends RequiredNames<S> ? never : K]?: ValueOf<S["properties"][K]>;
};

/** One tool as a plugin author writes it. */
export interface ToolDefinition<S extends InputSchema = InputSchema> {
  description: string;
  inputSchema: S;
  /** Capabilities the tool may use, e.g. `fs.read`, `fs.write`. */
  capabilities: readonly string[];
  risk: Risk;
  /**
   * Runs the tool on input already checked against `inputSchema`'s `required`, `type`s and
   * `enum`s. Returns a JSON-serialisable value (bigints become numbers). Synchronous: the guest
   * cannot wait on a promise. Throw a `ToolFailure` (see `fail`) for an expected failure;
   * anything else thrown becomes `failed`.
   */
  run(input: InputOf<S>): unknown;
}

/** A tool definition of any input type, as `definePlugin` takes it. */
export interface AnyToolDefinition {
  description: string;
  inputSchema: InputSchema;
  capabilities: readonly string[];
  risk: Risk;
  // `never`: every tool's `run` fits here whatever input it takes; `definePlugin` checks the
  // input against the tool's own schema before calling it.
  run(input: never): unknown;
}

export interface PluginDefinition {
  /** The plugin's tools by name (`snake_case`, as the model sees them). */
  tools: { readonly [name: string]: AnyToolDefinition };
}
