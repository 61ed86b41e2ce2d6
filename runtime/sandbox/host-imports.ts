/**
 * The import object one component instance sees, built in its worker: every clawhive host
 * function, and every WASI function the plugin was granted, is a blocking bridge call to the
 * main thread tagged with the instance's id. Nothing else is provided.
 */
import type { HostResponse } from "./protocol.js";
import type { WasiGrant } from "./wasi/context.js";

const HOST_IMPORT = /^clawhive:host\/([a-z][a-z0-9-]*)(?:@0\.\d+\.\d+)?$/;

export interface InstanceImports {
  /** The plugin's WASI grant; without one, no `wasi:` interface is provided. */
  wasi: WasiGrant | undefined;
  /** clawhive's WASI implementation, loaded by the worker with the first plugin that imports it. */
  wasiRuntime: typeof import("./wasi/imports.js") | undefined;
  /** One round trip to the main thread, already tagged with the instance's id. */
  hostCall(iface: string, fn: string, args: unknown[]): HostResponse;
}

export function hostImports({ wasi, wasiRuntime, hostCall }: InstanceImports): Record<string, unknown> {
  const interfaces = new Map<string, unknown>();
  let wasiInterface: ((name: string) => Record<string, unknown> | undefined) | undefined;
  return new Proxy({} as Record<string, unknown>, {
    get(_target, key) {
      if (typeof key !== "string") return undefined;
      if (key.startsWith("wasi:") && wasi && wasiRuntime) {
        // clawhive's own WASI, per instance: each effect is a bridge call like any host function.
        wasiInterface ??= wasiRuntime.wasiInterfaces({ grant: wasi, hostCall });
        return wasiInterface(key.replace(/@[^/]*$/, ""));
      }
      const match = HOST_IMPORT.exec(key);
      if (!match) return undefined; // anything but clawhive:host and the served WASI is not provided
      const iface = match[1]!;
      let functions = interfaces.get(iface);
      if (!functions) {
        const cache = new Map<string, (...args: unknown[]) => unknown>();
        functions = new Proxy({}, {
          get(_t, fn) {
            if (typeof fn !== "string") return undefined;
            let f = cache.get(fn);
            if (!f) {
              f = (...args: unknown[]) => {
                const response = hostCall(iface, fn, args);
                if (response.ok) return response.value;
                throw response.error; // jco lowers a thrown non-Error value as the WIT error case
              };
              cache.set(fn, f);
            }
            return f;
          },
        });
        interfaces.set(iface, functions);
      }
      return functions;
    },
  });
}
