import { streamSSE } from "hono/streaming";
import * as v from "valibot";
import type { WebhookDispatcher, WebhookPayload } from "../../webhooks/index.js";
import { DeadLetterPage } from "../schemas/webhooks.js";
import { PAGE_QUERY, pageOf, timeKey, timeKeyOf } from "./page.js";
import { defineRoute, reply, type ApiRoute } from "./route.js";

const ListQuery = v.strictObject({ ...PAGE_QUERY });
/** A comment line now and then keeps proxies from closing a quiet stream. */
const KEEPALIVE_MS = 15_000;

/** `GET /v1/webhooks/dead-letters` and the approvers' stream `GET /v1/approvals/events`. */
export function webhookRoutes(dispatcher: WebhookDispatcher): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/webhooks/dead-letters",
      tag: "webhooks",
      summary: "Webhook deliveries that failed every attempt, newest first, a page at a time",
      description: "Each keeps the event as it would have been delivered, the receiver's origin (never its path: it is often the credential), the attempts and the last error.",
      roles: ["admin"],
      query: ListQuery,
      responses: { 200: { description: "a page of dead letters", schema: DeadLetterPage } },
      handler: async (c, { query }) => {
        const limit = query.limit ?? 100;
        const before = query.cursor === undefined ? undefined : timeKeyOf(query.cursor);
        const found = await dispatcher.deadLetters.list({ limit: limit + 1, ...(before === undefined ? {} : { before: { failedAt: before.at, id: before.id } }) });
        const page = pageOf(found, (d) => timeKey(d.failedAt, d.id), { limit }, "desc");
        return reply(c, DeadLetterPage, {
          dead_letters: page.items.map((d) => ({ id: d.id, target: d.target, event: d.event, payload: d.payload as unknown as Record<string, unknown>, attempts: d.attempts, last_error: d.lastError, failed_at: new Date(d.failedAt).toISOString() })),
          next_cursor: page.next_cursor,
        });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/approvals/events",
      tag: "approvals",
      summary: "Approvals as they are requested and decided on every node sharing the store, as Server-Sent Events",
      description:
        "Each event: `event` approval.requested or approval.decided, `id` the event's id (`evt_<approval id>_requested` or `_decided`, the same on every node), `data` the webhook payload `{id, type, created_at, data}`. The store is read about once a second, so an event arrives within a few seconds wherever it happened (API, CLI, MCP, another node). A comment every 15 s keeps the stream open.",
      roles: ["approver"],
      responses: { 200: { description: "text/event-stream", mediaType: "text/event-stream" } },
      handler: (c) =>
        streamSSE(c, async (stream) => {
          const queue: WebhookPayload[] = [];
          let wake: (() => void) | undefined;
          const off = dispatcher.streamApprovals((payload) => {
            queue.push(payload);
            wake?.();
          });
          let open = true;
          stream.onAbort(() => {
            open = false;
            wake?.();
          });
          try {
            while (open) {
              for (let next = queue.shift(); next !== undefined; next = queue.shift()) await stream.writeSSE({ id: next.id, event: next.type, data: JSON.stringify(next) });
              const woke = await new Promise<boolean>((resolve) => {
                wake = () => resolve(true);
                setTimeout(() => resolve(false), KEEPALIVE_MS).unref();
              });
              wake = undefined;
              if (!woke && open) await stream.write(": keepalive\n\n");
            }
          } finally {
            off();
          }
        }),
    }),
  ];
}
