/**
 * The OTLP/HTTP exporter against a local receiver speaking the real wire format (OTLP JSON,
 * `POST /v1/traces`), and W3C traceparent on the API: a valid one is continued, a malformed one
 * ignored (the request still succeeds, in a trace of its own).
 */
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";
import { startTracing, stopTracing } from "../../runtime/telemetry/tracing.js";
import { parseTraceparent } from "../../runtime/telemetry/traceparent.js";
import { defineTestAgent } from "../helpers/runtime.js";
import { apiFixture, call, type ApiFixture } from "../api/routes-fixtures.js";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

let receiver: Server;
let endpoint = "";
const received: Array<{ contentType: string; spans: OtlpSpan[]; service: unknown }> = [];
let f: ApiFixture;

before(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/traces") return res.writeHead(404).end();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
      for (const rs of body.resourceSpans) {
        received.push({
          contentType: String(req.headers["content-type"]),
          service: rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue,
          spans: rs.scopeSpans.flatMap((s) => s.spans),
        });
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  await startTracing({ otlpEndpoint: endpoint, serviceName: "clawhive-test" });
  f = await apiFixture();
});
after(async () => {
  await stopTracing();
  await f.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const allSpans = () => received.flatMap((r) => r.spans);

test("spans reach an OTLP/HTTP receiver in the OTLP JSON encoding, under the run's trace id", async () => {
  const agent = await defineTestAgent(f.runtime, "exported");
  const answer = await call(f, "POST", "/v1/runs?wait=true", { token: f.token.client, json: { agent, tool_calls: [{ name: "probe.count", input: {} }] } });
  assert.equal(answer.status, 201, answer.text);
  await stopTracing();
  const traceId = answer.body.run.trace_id as string;
  const spans = allSpans().filter((s) => s.traceId === traceId);
  assert.ok(received.every((r) => r.contentType.startsWith("application/json")));
  assert.ok(received.some((r) => r.service === "clawhive-test"));
  const root = spans.find((s) => s.name === `invoke_agent ${agent}`);
  const tool = spans.find((s) => s.name === "execute_tool probe.count");
  assert.ok(root && tool, spans.map((s) => s.name).join(", "));
  assert.equal(tool.parentSpanId, root.spanId);
  assert.ok(tool.attributes.some((a) => a.key === "gen_ai.tool.name" && a.value.stringValue === "probe.count"));
  await startTracing({ otlpEndpoint: endpoint, serviceName: "clawhive-test" });
});

describe("traceparent on POST /v1/runs: valid continued, malformed ignored", () => {
  const VALID = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  const cases: Array<[what: string, header: string]> = [
    ["upper-case hex", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01"],
    ["an all-zero trace id", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"],
    ["an all-zero parent id", "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"],
    ["version ff", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"],
    ["a short trace id", "00-4bf92f3577b34da6a3ce929d0e0e47-00f067aa0ba902b7-01"],
    ["extra fields on version 00", `${VALID}-extra`],
    ["garbage", "not a traceparent"],
    ["an injection attempt", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\nx: y"],
  ];
  for (const [what, header] of cases) {
    test(`${what}: ignored, the run has its own trace`, async () => {
      assert.equal(parseTraceparent(header), undefined);
      const agent = await defineTestAgent(f.runtime, `tp-${Math.random().toString(36).slice(2, 8)}`);
      const answer = await callWith(header, agent);
      assert.equal(answer.status, 202, answer.text);
      assert.match(answer.body.run.trace_id, /^[0-9a-f]{32}$/);
      assert.notEqual(answer.body.run.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    });
  }
  test("control: a valid traceparent gives the run its trace id, and its span the caller's parent", async () => {
    const agent = await defineTestAgent(f.runtime, "tp-valid");
    const answer = await callWith(VALID, agent);
    assert.equal(answer.status, 202, answer.text);
    assert.equal(answer.body.run.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    await f.runtime.getRun(answer.body.run.id)?.end().catch(() => undefined);
    await stopTracing();
    const root = allSpans().find((s) => s.name === `invoke_agent ${agent}`);
    assert.equal(root?.traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
    assert.equal(root?.parentSpanId, "00f067aa0ba902b7");
    await startTracing({ otlpEndpoint: endpoint, serviceName: "clawhive-test" });
  });
});

async function callWith(traceparent: string, agent: string) {
  const response = await fetch(`${f.server.base}/v1/runs`, {
    method: "POST",
    headers: { authorization: `Bearer ${f.token.client}`, "content-type": "application/json", traceparent: traceparent.replace(/[\r\n]/g, " ") },
    body: JSON.stringify({ agent, tool_calls: [{ name: "probe.count", input: {} }] }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}
