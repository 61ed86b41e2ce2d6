import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before } from "node:test";
import type { Runtime } from "../../runtime/index.js";
import { tempDir, testRuntime } from "../helpers/runtime.js";
import { startFakeAnthropic, startFakeOpenAi, type FakeReply, type RecordedRequest } from "../helpers/fake-llm/index.js";

/** What the loop tests need of a fake provider (both fakes have it). */
export interface Fake {
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  reply(...replies: FakeReply[]): unknown;
  clientClosed(): Promise<void>;
  close(): Promise<void>;
}

/** The loop's tests run against both provider adapters. */
export const PROVIDERS: ReadonlyArray<{ provider: "anthropic" | "openai"; start: () => Promise<Fake> }> = [
  { provider: "anthropic", start: () => startFakeAnthropic() },
  { provider: "openai", start: () => startFakeOpenAi() },
];

export const LLM_SECRET = "llm-key";

export interface LoopAgentOptions {
  provider: "anthropic" | "openai";
  baseUrl: string;
  mounts?: Array<{ guest: string; host: string; mode?: "ro" | "rw" }>;
  plugins?: string[];
  lowerToSafe?: string[];
  limits?: Record<string, number>;
}

/** Defines an agent whose model is the fake at `baseUrl`; its key is the stored secret `llm-key`. */
export async function defineLoopAgent(runtime: Runtime, name: string, options: LoopAgentOptions): Promise<string> {
  const mounts = options.mounts ?? [];
  const grants: Record<string, unknown> = { log: {} };
  if (mounts.length > 0) grants["fs.read"] = { mounts: mounts.map((m) => ({ guest: m.guest, host: m.host })) };
  const writable = mounts.filter((m) => m.mode === "rw");
  if (writable.length > 0) grants["fs.write"] = { mounts: writable.map((m) => ({ guest: m.guest, host: m.host, mode: "rw" })) };
  await runtime.defineAgent({
    name,
    description: `loop test agent ${name}`,
    model: { provider: options.provider, id: "test-model", base_url: options.baseUrl, api_key_secret: LLM_SECRET, max_tokens: 1024 },
    system_prompt: "You are a careful test agent.",
    plugins: (options.plugins ?? ["files"]).map((p) => ({ name: p, version: "*" })),
    grants,
    limits: options.limits ?? {},
    approvals: { lower_risk: (options.lowerToSafe ?? []).map((tool) => ({ tool, to: "safe", acknowledged: true })) },
  });
  return name;
}

/** A recorded request's body as text, to look for what the model was sent. */
export function sent(fake: Fake, index: number): string {
  const request = fake.requests[index];
  if (!request) throw new Error(`the fake got ${fake.requests.length} requests, not ${index + 1}`);
  return JSON.stringify(request.body);
}

/** A tool's wire name (`plugin__tool`), as the fakes script it. */
export function wire(tool: string): string {
  return tool.replace(".", "__");
}

export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Registers the file's before/after hooks: a runtime (5 s call deadline) holding the LLM key, and
 * a docs folder with `files` (name → content), handed to `ready` once both exist.
 */
export function withLoopRuntime(files: Record<string, string>, ready: (runtime: Runtime, docs: string) => void): void {
  let dispose: (() => Promise<void>) | undefined;
  let docs: string | undefined;
  before(async () => {
    const made = await testRuntime({ sandbox: { callTimeoutMs: 5_000 } });
    dispose = made.dispose;
    await made.runtime.setSecret(LLM_SECRET, "test-key");
    docs = await tempDir();
    for (const [name, content] of Object.entries(files)) await writeFile(join(docs, name), content);
    ready(made.runtime, docs);
  });
  after(async () => {
    await dispose?.();
    if (docs !== undefined) await rm(docs, { recursive: true, force: true });
  });
}
