/**
 * The message of an incoming webhook of Slack or Microsoft Teams (both take `{text}`): one line
 * a person can act on. Text from models and tools is made inert and Slack's control characters
 * (`&`, `<`, `>`) escaped, so a tool's output cannot forge a link or a mention.
 */
import { inert } from "../text/inert.js";
import type { WebhookPayload } from "./payload.js";

function plain(value: unknown): string {
  return inert(String(value ?? ""), { newlines: false }).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

export function slackMessage(payload: WebhookPayload): { text: string } {
  const d = payload.data as { run_id?: unknown; agent?: unknown; end_reason?: unknown; approval?: Record<string, unknown> };
  const a = d.approval ?? {};
  switch (payload.type) {
    case "approval.requested":
      return { text: `clawhive: approval ${plain(a.id)} requested: ${plain(a.tool)} for agent ${plain(d.agent)} (run ${plain(d.run_id)}): ${plain(a.reason)}. Decide with: clawhive approvals show ${plain(a.id)}` };
    case "approval.decided":
      return { text: `clawhive: approval ${plain(a.id)} ${a.decision === "approve" ? "approved" : "denied"} by ${plain(a.by)}: ${plain(a.tool)} for agent ${plain(d.agent)} (run ${plain(d.run_id)})` };
    case "run.ended":
      return { text: `clawhive: run ${plain(d.run_id)} of agent ${plain(d.agent)} ended: ${plain(d.end_reason)}` };
  }
}
