import { ClawhiveError } from "../../errors.js";

/**
 * An error that exists only at the HTTP edge (401, 403, 413, 429, a bad path): a `ClawhiveError`
 * with its status and, where the protocol asks for one, a response header (`WWW-Authenticate`,
 * `Retry-After`). The error handler turns it into `{error: {code, message, field?}}`.
 */
export class ApiError extends ClawhiveError {
  readonly field: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, message: string, options: { status: number; field?: string; headers?: Record<string, string>; cause?: unknown }) {
    super(code, message, { status: options.status, cause: options.cause });
    this.field = options.field;
    this.headers = options.headers ?? {};
  }
}

/**
 * The body of every error response. `details`, for the few errors a program must act on beyond
 * the code (e.g. `effect_committed_store_failed`: which effects happened), is JSON data.
 */
export interface ErrorBody {
  error: { code: string; message: string; field?: string; details?: Record<string, unknown> };
}

export function errorBody(code: string, message: string, field?: string, details?: Record<string, unknown>): ErrorBody {
  return { error: { code, message, ...(field === undefined ? {} : { field }), ...(details === undefined ? {} : { details }) } };
}
