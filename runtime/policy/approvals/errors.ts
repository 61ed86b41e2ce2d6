import { ClawhiveError } from "../../errors.js";

/**
 * Why an approval could not be requested or decided. `approval_too_large` (413): the arguments
 * it would bind are over `MAX_APPROVAL_ARGS_BYTES`; the ToolCall fails instead of waiting. `approval_not_found` (404): no approval has this id.
 * `approval_not_pending` (409): someone already decided it (or it was used). `approval_expired`
 * (410): its deadline passed; the run has to ask again. `approval_withdrawn` (410): its run ended
 * (cancelled, failed) first, so there is nothing left to approve.
 */
export type ApprovalErrorCode = "approval_not_found" | "approval_not_pending" | "approval_expired" | "approval_too_large" | "approval_withdrawn";

const STATUS: Record<ApprovalErrorCode, number> = {
  approval_not_found: 404,
  approval_not_pending: 409,
  approval_expired: 410,
  approval_too_large: 413,
  approval_withdrawn: 410,
};

export class ApprovalError extends ClawhiveError {
  declare readonly code: ApprovalErrorCode;

  constructor(code: ApprovalErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { status: STATUS[code], cause: options.cause });
  }
}
