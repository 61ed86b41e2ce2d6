/**
 * What rendering a push message costs on the dispatcher's path: the Slack, Teams and Telegram
 * messages of an approval (summary made inert, escaped per format, serialised) beside what a
 * signed JSON webhook does with the same event (the payload serialised), in the same loop.
 */
import { performance } from "node:perf_hooks";
import type { Approval } from "../runtime/policy/approvals/index.js";
import { approvalPayload, pushSummary, slackMessage, teamsMessage, telegramMessage } from "../runtime/webhooks/index.js";
import { interleaved } from "./interleave.js";
import { latency, value, type Metrics } from "./metrics.js";

const APPROVAL: Approval = {
  id: "apr_8ffb5e0d-d19f-47c9-bd31-b281c84ce145",
  kind: "tool_call",
  status: "pending",
  scope: null,
  runId: "run_7a3e835c-6fb2-4625-96c7-0a55bc278792",
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  agent: "mailer",
  parentRunId: null,
  stepId: "step_1",
  toolCallId: "tc_1",
  tool: "mail.send",
  input: { to: "ops@corp.example", subject: "Quarterly numbers <!channel>", body: "x".repeat(2000), cc: ["a@corp.example", "b@corp.example"] },
  argsHash: "0".repeat(64),
  capability: null,
  effect: null,
  effectHash: null,
  risk: "guarded",
  reason: "mail.send is Guarded: it needs a person's approval before it runs",
  context: null,
  createdAt: 1_765_000_000_000,
  expiresAt: 1_765_003_600_000,
  decision: null,
  decidedBy: null,
  decidedAt: null,
  decisionReason: null,
  usedAt: null,
  useCount: 0,
  untrustedSources: [],
  secretsRead: [],
};

/** µs per call of `work`, one sample per call, `n` calls. */
function block(n: number, work: () => unknown): number[] {
  const samples: number[] = [];
  let sink = 0;
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    sink += String(work()).length;
    samples.push((performance.now() - start) * 1000);
  }
  if (sink < 0) throw new Error("unreachable");
  return samples;
}

export async function benchPush(options: { quick?: boolean } = {}): Promise<Metrics> {
  const rounds = options.quick ? 10 : 30;
  const n = 200;
  const payload = approvalPayload("approval.requested", APPROVAL);
  const json = () => JSON.stringify(payload);
  const formats = {
    slack: () => JSON.stringify(slackMessage({ payload, summary: pushSummary(APPROVAL, "https://clawhive.example.com") })),
    teams: () => JSON.stringify(teamsMessage({ payload, summary: pushSummary(APPROVAL, "https://clawhive.example.com") })),
    telegram: () => JSON.stringify(telegramMessage({ payload, summary: pushSummary(APPROVAL, "https://clawhive.example.com") }, "-1001234567890")),
  };
  const metrics: Metrics = {};
  block(2000, json);
  for (const [name, render] of Object.entries(formats)) {
    block(2000, render);
    const measured = await interleaved(rounds, async () => block(n, render), async () => block(n, json));
    metrics[`push_render_${name}`] = latency(measured.a);
    metrics[`push_render_json_beside_${name}`] = latency(measured.b);
    metrics[`push_render_${name}_ratio`] = value(measured.ratio, "ratio");
  }
  return metrics;
}
