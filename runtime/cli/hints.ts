/**
 * The one story every command tells about a paused run: how to decide its approval and what
 * continues it afterwards. Through a server, the server's driver continues it and `runs watch`
 * follows it; on the store, `clawhive resume` continues any run (a single call, a plan of calls,
 * a model's loop). Every hint is built here so that no two commands contradict each other.
 */

/** `--server URL` when the command went through a server, else empty. */
export type ServerFlag = string;

/** The ServerFlag of a ClawhiveClient's commands: empty for the client in this process (`in-process`). */
export function serverFlagOf(client: { readonly target: string }): ServerFlag {
  return client.target === "in-process" ? "" : ` --server ${client.target}`;
}

/** The command that decides approval `id`. */
export function decideCommand(approvalId: string, serverFlag: ServerFlag): string {
  return `clawhive approvals approve ${approvalId}${serverFlag}`;
}

/** The command that carries run `runId` on once its approval is decided (approved or denied). */
export function continueCommand(runId: string, serverFlag: ServerFlag): string {
  return serverFlag === "" ? `clawhive resume ${runId}` : `clawhive runs watch ${runId}${serverFlag}`;
}

/** The line after a pause: decide, then continue. */
export function pausedHint(runId: string, approvalId: string, serverFlag: ServerFlag): string {
  const then = serverFlag === "" ? `then '${continueCommand(runId, serverFlag)}' continues it` : `the server continues it; '${continueCommand(runId, serverFlag)}' follows it`;
  return `decide with '${decideCommand(approvalId, serverFlag)}' (or deny); ${then}`;
}

/** The line after a decision: what carries the run on, whichever way it was decided. */
export function decidedHint(runId: string, decision: "approve" | "deny", serverFlag: ServerFlag): string {
  const how = decision === "approve" ? "runs the approved call" : "ends the denied call as an error and goes on";
  if (serverFlag !== "") return `the server continues run ${runId} (it ${how}); follow it with '${continueCommand(runId, serverFlag)}'`;
  return `continue run ${runId} with '${continueCommand(runId, serverFlag)}' (it ${how})`;
}
