import { takeStringAt } from "./abi";

/** The `tool-error` variant of `clawhive:plugin/tools` and the host's `host-error`, as guest values. */

/** A policy refusal, as the host gives it (`clawhive:host/types.denial`). */
export class Denial {
  constructor(public capability: string, public reason: string, public message: string) {}
}

/** Case numbers in WIT order: `denied`, `invalid-input`, `not-found`, `failed`. */
export const enum ToolErrorCase { Denied = 0, InvalidInput = 1, NotFound = 2, Failed = 3 }

/** Case numbers in WIT order: `denied`, `not-found`, `invalid-input`, `io`. */
export const enum HostErrorCase { Denied = 0, NotFound = 1, InvalidInput = 2, Io = 3 }

export class HostError {
  constructor(public tag: HostErrorCase, public message: string, public denial: Denial | null) {}
}

export class ToolError {
  constructor(public tag: ToolErrorCase, public message: string, public denial: Denial | null) {}

  static invalidInput(message: string): ToolError { return new ToolError(ToolErrorCase.InvalidInput, message, null); }
  static notFound(message: string): ToolError { return new ToolError(ToolErrorCase.NotFound, message, null); }
  static failed(message: string): ToolError { return new ToolError(ToolErrorCase.Failed, message, null); }

  /** A failed host call keeps its meaning: `denied`, `not-found`, `invalid-input` as they are, `io` as `failed`. */
  static fromHost(e: HostError): ToolError {
    switch (e.tag) {
      case HostErrorCase.Denied: return new ToolError(ToolErrorCase.Denied, e.message, e.denial);
      case HostErrorCase.NotFound: return ToolError.notFound(e.message);
      case HostErrorCase.InvalidInput: return ToolError.invalidInput(e.message);
    }
    return ToolError.failed(e.message);
  }
}

/** A host call's answer: its value, or the host's error. */
export class HostResult<T> {
  constructor(public value: T, public error: HostError | null) {}
}

/** What a tool's `run` returns: JSON text, or a tool error. */
export class Outcome {
  constructor(public json: string, public error: ToolError | null) {}

  static ok(json: string): Outcome { return new Outcome(json, null); }
  static fail(error: ToolError): Outcome { return new Outcome("", error); }
}

/** Reads a `host-error` stored at `at` (its case byte, then its payload at `at + 4`), taking its strings. */
export function takeHostErrorAt(at: usize): HostError {
  const tag = <HostErrorCase>load<u8>(at);
  if (tag == HostErrorCase.Denied) {
    const denial = new Denial(takeStringAt(at + 4), takeStringAt(at + 12), takeStringAt(at + 20));
    return new HostError(tag, denial.message, denial);
  }
  return new HostError(tag, takeStringAt(at + 4), null);
}
