import type { Denial, ToolError } from "./types.js";

/**
 * An expected failure of a tool, thrown from `run`. `definePlugin` turns it into the
 * `tool-error` case it carries; it never crosses the component boundary as an `Error` (that
 * would trap the instance).
 */
export class ToolFailure extends Error {
  readonly error: ToolError;

  constructor(error: ToolError) {
    super(error.tag === "denied" ? error.val.message : error.val);
    this.name = "ToolFailure";
    this.error = error;
  }
}

/** Builders for the `tool-error` cases: `throw fail.invalidInput("offset: must be at least 1")`. */
export const fail = {
  /** The input is wrong; the model should change it. */
  invalidInput(message: string): ToolFailure {
    return new ToolFailure({ tag: "invalid-input", val: message });
  },
  /** What the input names does not exist. */
  notFound(message: string): ToolFailure {
    return new ToolFailure({ tag: "not-found", val: message });
  },
  /** The tool ran and could not do what was asked; say why and what to do instead. */
  failed(message: string): ToolFailure {
    return new ToolFailure({ tag: "failed", val: message });
  },
  /** The policy refused something; pass on the host's denial as it came. */
  denied(denial: Denial): ToolFailure {
    return new ToolFailure({ tag: "denied", val: denial });
  },
};
