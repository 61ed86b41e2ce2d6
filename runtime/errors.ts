/**
 * The one error family of clawhive. Every error that crosses a room boundary is a
 * `ClawhiveError` with a stable `code` (for programs), a message that says what was wrong and
 * what to do (for people), and an HTTP status for when it crosses the API.
 */
export class ClawhiveError extends Error {
  readonly code: string;
  readonly status: number;

  constructor(code: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.status = options.status ?? 500;
  }
}

/** Bad input from a caller: a field, an argument, a file. */
export class InvalidInputError extends ClawhiveError {
  readonly field: string | undefined;
  constructor(message: string, options: { field?: string; cause?: unknown } = {}) {
    super("invalid_input", message, { status: 400, cause: options.cause });
    this.field = options.field;
  }
}

export class NotFoundError extends ClawhiveError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("not_found", message, { status: 404, cause: options.cause });
  }
}

/** A state conflict: the thing exists, is ended, is in use. */
export class ConflictError extends ClawhiveError {
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: 409, cause: options.cause });
  }
}

/** A plugin could not be built, loaded or verified. */
export class PluginError extends ClawhiveError {
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: 422, cause: options.cause });
  }
}

/**
 * A guest call failed inside the sandbox: a trap, a deadline, a memory cap, an oversized
 * result. `code` says which: `plugin_trapped`, `deadline_exceeded`, `memory_cap`,
 * `result_too_large`, `instance_lost`.
 */
export class SandboxError extends ClawhiveError {
  constructor(code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: 500, cause: options.cause });
  }
}
