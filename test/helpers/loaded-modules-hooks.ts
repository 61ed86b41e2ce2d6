/**
 * Module hooks (node:module `register`) that report every module URL loaded through the ES
 * module loader to the port given in `initialize`: see loaded-modules.ts.
 */
import type { MessagePort } from "node:worker_threads";

let port: MessagePort | undefined;

export function initialize(data: { port: MessagePort }): void {
  port = data.port;
}

export async function load(url: string, context: unknown, next: (url: string, context: unknown) => Promise<unknown>): Promise<unknown> {
  port?.postMessage(url);
  return next(url, context);
}
