/**
 * Local fakes of Slack's and Teams' incoming webhooks and of Telegram's Bot API, on 127.0.0.1.
 * Each checks the request shape the real service takes and answers as it does; a request that is
 * not that shape is kept as `bad` with the reason, and answered with the service's own error.
 * `mode` sets each service's next answers: `ok`, a status, a 429 with its wait, or `hold`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type FakeMode = { kind: "ok" } | { kind: "status"; status: number } | { kind: "rate"; retryAfter: number } | { kind: "hold" };
export type Service = "slack" | "teams" | "telegram";

export interface Received {
  readonly service: Service;
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly at: number;
}

export interface PushFakes {
  readonly base: string;
  readonly token: string;
  readonly received: Received[];
  readonly bad: Array<{ service: Service; reason: string }>;
  mode: Record<Service, FakeMode>;
  /** Ends every held answer. */
  release(): void;
  close(): Promise<void>;
}

export const SLACK_PATH = "/services/T0001/B0001/abcdefghijklmnop";
export const TEAMS_PATH = "/workflows/teams/triggers/manual/paths/invoke";

function problem(service: Service, body: Record<string, unknown>, req: IncomingMessage, token: string): string | undefined {
  if (req.method !== "POST") return `method ${req.method}`;
  if (!String(req.headers["content-type"]).startsWith("application/json")) return `content-type ${req.headers["content-type"]}`;
  if (service === "slack") {
    if (typeof body.text !== "string" || body.text === "") return "no text";
    if (!Array.isArray(body.blocks) || body.blocks.length === 0 || body.blocks.length > 50) return "blocks not a list of 1..50";
    return undefined;
  }
  if (service === "teams") {
    const attachment = Array.isArray(body.attachments) ? (body.attachments[0] as Record<string, unknown> | undefined) : undefined;
    if (body.type !== "message") return "type is not message";
    if (attachment?.contentType !== "application/vnd.microsoft.card.adaptive") return "attachments[0].contentType is not an Adaptive Card";
    const card = attachment.content as Record<string, unknown> | undefined;
    if (card?.type !== "AdaptiveCard" || !Array.isArray(card.body)) return "content is not an AdaptiveCard with a body";
    return undefined;
  }
  if (req.url !== `/bot${token}/sendMessage`) return "unauthorized";
  if (typeof body.chat_id !== "string" && typeof body.chat_id !== "number") return "chat_id missing";
  if (typeof body.text !== "string" || body.text === "") return "text missing";
  if (body.parse_mode !== undefined && !["HTML", "MarkdownV2", "Markdown"].includes(String(body.parse_mode))) return "bad parse_mode";
  return undefined;
}

function serviceOf(path: string): Service | undefined {
  // A suffix tells one Slack channel from another (each its own target).
  if (path === SLACK_PATH || path.startsWith(`${SLACK_PATH}/`)) return "slack";
  if (path === TEAMS_PATH) return "teams";
  if (path.startsWith("/bot")) return "telegram";
  return undefined;
}

export async function startPushFakes(token: string): Promise<PushFakes> {
  const held: ServerResponse[] = [];
  let messageId = 0;
  const fakes: Omit<PushFakes, "base"> & { base: string } = {
    base: "",
    token,
    received: [],
    bad: [],
    mode: { slack: { kind: "ok" }, teams: { kind: "ok" }, telegram: { kind: "ok" } },
    release: () => {
      for (const res of held.splice(0)) res.destroy();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const answer = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    res.writeHead(status, { "content-type": typeof body === "string" ? "text/plain" : "application/json", ...headers }).end(text);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "";
      const service = serviceOf(path);
      if (service === undefined) return answer(res, 404, "no_service");
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        fakes.bad.push({ service, reason: "body is not JSON" });
        return answer(res, 400, "invalid_payload");
      }
      const wrong = problem(service, body, req, token);
      if (wrong !== undefined) {
        fakes.bad.push({ service, reason: wrong });
        if (service === "telegram") return answer(res, wrong === "unauthorized" ? 401 : 400, { ok: false, error_code: wrong === "unauthorized" ? 401 : 400, description: wrong === "unauthorized" ? "Unauthorized" : `Bad Request: ${wrong}` });
        return answer(res, 400, "invalid_payload");
      }
      fakes.received.push({ service, path: service === "telegram" ? "/bot<token>/sendMessage" : path, body, at: Date.now() });
      const mode = fakes.mode[service];
      if (mode.kind === "hold") return void held.push(res);
      if (mode.kind === "status") {
        if (service === "telegram") return answer(res, mode.status, { ok: false, error_code: mode.status, description: "Internal Server Error" });
        return answer(res, mode.status, "internal_error");
      }
      if (mode.kind === "rate") {
        if (service === "telegram") return answer(res, 429, { ok: false, error_code: 429, description: `Too Many Requests: retry after ${mode.retryAfter}`, parameters: { retry_after: mode.retryAfter } });
        return answer(res, 429, "rate_limited", { "retry-after": String(mode.retryAfter) });
      }
      if (service === "slack") return answer(res, 200, "ok");
      if (service === "teams") return answer(res, 202, "");
      messageId += 1;
      return answer(res, 200, { ok: true, result: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: body.chat_id, type: "group" }, text: "…" } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fakes.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fakes;
}
