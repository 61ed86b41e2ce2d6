/**
 * Progress of a long `tools/call`, for a client that asked for it (`_meta.progressToken`): a
 * notification every second while the call runs, and one whenever it starts waiting for a
 * person, so a client keeps its request alive and can show why it waits.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolRequest } from "@modelcontextprotocol/sdk/types.js";

type RequestHandler = Parameters<Server["setRequestHandler"]>[1];
export type CallExtra = Parameters<RequestHandler>[1];

const EVERY_MS = 1000;

export interface ProgressReporter {
  say(message: string): Promise<void>;
  stop(): void;
}

export function progressReporter(request: CallToolRequest, extra: CallExtra): ProgressReporter {
  const token = request.params._meta?.progressToken;
  if (token === undefined) return { say: async () => undefined, stop: () => undefined };
  let progress = 0;
  let last = "running";
  const send = (message: string) =>
    extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ++progress, message } }).catch(() => undefined);
  const timer = setInterval(() => void send(last), EVERY_MS);
  timer.unref();
  return {
    say: async (message) => {
      last = message;
      await send(message);
    },
    stop: () => clearInterval(timer),
  };
}
