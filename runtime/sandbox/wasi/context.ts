import type { HostResponse } from "../protocol.js";

/** What a plugin's grant gives its WASI guest: plain values from plugin.json, never the process's. */
export interface WasiGrant {
  env: Readonly<Record<string, string>>;
  config: Readonly<Record<string, string>>;
  args: readonly string[];
}

/** What one instance's WASI implementation needs: its bridge to the main thread and its grant. */
export interface WasiInstanceContext {
  /** A blocking round trip to the main thread, tagged with the instance: the binding decides. */
  hostCall(iface: string, fn: string, args: unknown[]): HostResponse;
  grant: WasiGrant;
}

export const EMPTY_WASI_GRANT: WasiGrant = Object.freeze({ env: Object.freeze({}), config: Object.freeze({}), args: Object.freeze([]) });
