/** What the two-modes tests share beyond a place and a server: a model call on record, a closed port, one moment. */
import { createServer, type AddressInfo } from "node:net";
import { join } from "node:path";
import { openAuditLog } from "../../runtime/audit/index.js";
import { openStore } from "../../runtime/store/index.js";
import type { CliPlace } from "./fixtures.js";

/** A model call's record, written beside a server as a second writer on the place's store. */
export async function seedModelCall(place: CliPlace): Promise<void> {
  const store = await openStore({ url: `file:${join(place.data, "clawhive.db")}` });
  const log = await openAuditLog(store);
  await log.appendModelCall({
    traceId: "trace-m",
    runId: "run-m",
    agent: "writer",
    provider: "openai",
    model: "gpt-modes",
    baseUrl: "https://api.openai.com/v1",
    messages: 2,
    tools: ["files.write_file"],
    maxTokens: 512,
    inputTokens: 300,
    outputTokens: 20,
    stopReason: "end_turn",
    attempts: 1,
    startAt: Date.now() - 50,
    status: "ok",
  });
  await log.close();
  await store.close();
}

/** A port nothing listens on: one the OS just gave out and took back. */
export async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * The two modes run one after the other, seconds apart on a busy machine: a time said relative
 * to now ("in 60m", "3m ago") may differ by a unit between them, the absolute times beside it not.
 */
export function sameMoment(text: string): string {
  return text.replace(/\((in \d+[smhd]|\d+[smhd] ago)\)/g, "(now±)");
}
