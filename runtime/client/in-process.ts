/**
 * The client in this process, over a Runtime: the API's own routes answer it (no socket, no
 * server), so every answer, refusal and error code is what a server on this runtime would
 * give. Calls are an admin's, under a token id made for this client alone: it never reaches the
 * token store, so nothing outside this process can present it.
 */
import { createApp } from "../api/app.js";
import { VERSION } from "../cli/version.js";
import type { Runtime } from "../runtime.js";
import { appClient, type TokenCheck } from "./app-client.js";
import type { ApiClawhiveClient } from "./client.js";

export { appClient, type TokenCheck } from "./app-client.js";

export interface InProcessClientOptions {
  /** Close the runtime when the client is closed (a command that opened it for one call). */
  readonly ownsRuntime?: boolean;
  /**
   * The person deciding approvals and accepting MCP server definitions through this client
   * (recorded in place of the client's token id). The command line passes `--by` or the user.
   */
  readonly actor?: string;
  /**
   * Continue a run here as soon as its approval is decided, as a server does (default). The
   * command line turns it off: its process ends with the command, and `clawhive resume`
   * continues the run instead.
   */
  readonly continueDecidedRuns?: boolean;
}

export function inProcessClient(runtime: Runtime, options: InProcessClientOptions = {}): ApiClawhiveClient {
  const build = (tokens: TokenCheck) =>
    createApp({
      runtime,
      tokens,
      version: VERSION,
      agentsDir: runtime.agentsDir,
      // The caller is this process: a plugin source may be named by its path, read by the runtime.
      pluginLocalSources: true,
      // As a server does: a decision continues its run at once here.
      ...(options.continueDecidedRuns === false ? {} : { onApprovalDecided: (approval: { runId: string }) => void runtime.continueRun(approval.runId).catch(() => undefined) }),
    });
  return appClient(build, { localSources: true, ...(options.actor === undefined ? {} : { actor: options.actor }), ...(options.ownsRuntime ? { close: () => runtime.close() } : {}) });
}
