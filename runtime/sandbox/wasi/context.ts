import type { HostResponse, WasiGrant } from "../protocol.js";

export type { WasiGrant } from "../protocol.js";


/** What one instance's WASI implementation needs: its bridge to the main thread and its grant. */
export interface WasiInstanceContext {
  /** A blocking round trip to the main thread, tagged with the instance: the binding decides. */
  hostCall(iface: string, fn: string, args: unknown[]): HostResponse;
  grant: WasiGrant;
}

export const EMPTY_WASI_GRANT: WasiGrant = Object.freeze({ env: Object.freeze({}), config: Object.freeze({}), args: Object.freeze([]) });
