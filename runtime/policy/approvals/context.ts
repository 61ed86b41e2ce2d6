import type { Clock, Store } from "../../store/index.js";

/** What every approval operation runs against; built once by `ApprovalStore`. */
export interface ApprovalContext {
  readonly store: Store;
  readonly clock: Clock;
  readonly newId: () => string;
  /** How long a pending request waits for a person. */
  readonly pendingMs: number;
  /** How long an approval stays usable after it is granted. */
  readonly approvedMs: number;
}
