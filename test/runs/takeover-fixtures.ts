/**
 * Two runtime nodes on one store for takeover tests: node A drives a model-driven run and then
 * stops answering (its model call hangs, its lease is left to run out), node B — once its clock
 * is moved an hour ahead, so A's lease has run out for it — takes the run over.
 */
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { Runtime } from "../../runtime/index.js";
import type { LlmProvider, LlmRequest, LlmResponse } from "../../runtime/llm/index.js";
import { openStore } from "../../runtime/store/index.js";
import { FaultyStore } from "../helpers/faulty-store.js";
import { respond } from "../helpers/scripted-response.js";
export { respond } from "../helpers/scripted-response.js";
import { copyInstalledStore, defineTestAgent, FILES_PLUGIN, PROBE_PLUGIN, tempDir } from "../helpers/runtime.js";
import { writeTestSecretKey } from "../helpers/secret-key.js";
import { needsSqld, startSqld, type SqldServer } from "../helpers/sqld.js";

export const HOUR = 3_600_000;

export interface Node {
  runtime: Runtime;
  /** A's store, through which a test stops A at an exact statement (B's is the plain store). */
  store?: FaultyStore;
  /** Every request this node's model was sent. */
  requests: LlmRequest[];
  /** Resolves once this node's model has been asked `n` times. */
  asked(n: number): Promise<void>;
  /** Lets A's hanging model call answer with `response`. */
  release(response: LlmResponse): void;
  /** Moves this node's clock `ms` ahead of real time (another node's lease then looks run out). */
  ahead(ms: number): void;
}


export const writeUse = (file: string) => ({ type: "tool_use" as const, id: `tu_${file}`, name: "files.write_file", input: { path: `/w/${file}`, content: file } });

/**
 * A's model asks for one write (`a.txt`), then hangs (until released or aborted); B's model
 * answers with the tool results it was sent, as text.
 */
function scripted(node: "a" | "b", requests: LlmRequest[], waiters: Array<{ n: number; resolve: () => void }>, hold: { release?: (r: LlmResponse) => void }): LlmProvider {
  return {
    provider: "test",
    model: "scripted",
    complete: async (request, options): Promise<LlmResponse> => {
      requests.push(request);
      for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
      const last = request.messages.at(-1);
      const answered = last?.content.some((b) => b.type === "tool_result") === true;
      // Asked again after its own answer, B's model does the task again, as a model may: a
      // node that asks it then makes the write a second time.
      if (node === "b" && last?.role === "assistant") return respond([writeUse("a.txt")]);
      if (node === "b") return respond([{ type: "text", text: answered ? "done after the journal's results" : "done without results" }]);
      if (!answered) return respond([writeUse("a.txt")]);
      return new Promise<LlmResponse>((resolve, reject) => {
        hold.release = resolve;
        options?.signal?.addEventListener("abort", () => reject(options.signal?.reason ?? new Error("aborted")));
      });
    },
  };
}

export async function twoNodes(storeUrl: (dataDir: string) => string, options: { authToken?: string } = {}) {
  const dataDir = await tempDir("clawhive-takeover-");
  const work = join(dataDir, "work");
  await mkdir(work);
  await writeTestSecretKey(dataDir);
  // A store file starts with the plugins installed (as node A would leave it); a server's store is installed by A.
  const url = storeUrl(dataDir);
  if (url.startsWith("file:")) await copyInstalledStore(url.slice("file:".length));
  const make = async (name: "a" | "b"): Promise<Node> => {
    const requests: LlmRequest[] = [];
    const waiters: Array<{ n: number; resolve: () => void }> = [];
    const hold: { release?: (r: LlmResponse) => void } = {};
    let offset = 0;
    const agentsDir = join(dataDir, `agents-${name}`);
    await mkdir(agentsDir, { recursive: true });
    const store = name === "a" ? new FaultyStore(await openStore({ url, ...(options.authToken === undefined ? {} : { authToken: options.authToken }) })) : undefined;
    const runtime = await Runtime.create({
      dataDir,
      agentsDir,
      ...(store !== undefined ? { store } : { storeUrl: url, ...(options.authToken === undefined ? {} : { storeAuthToken: options.authToken }) }),
      pluginDirs: [FILES_PLUGIN, PROBE_PLUGIN],
      sandbox: { poolSize: 0 },
      clock: { now: () => Date.now() + offset },
      modelProvider: () => scripted(name, requests, waiters, hold),
    });
    await defineTestAgent(runtime, "writer", { plugins: ["files"], mounts: [{ guest: "/w", host: work, mode: "rw" }], lowerToSafe: ["files.write_file"] });
    return {
      runtime,
      ...(store === undefined ? {} : { store }),
      requests,
      asked: (n) => new Promise((resolve) => (requests.length >= n ? resolve() : waiters.push({ n, resolve }))),
      release: (response) => hold.release?.(response),
      ahead: (ms) => (offset = ms),
    };
  };
  const a = await make("a");
  const b = await make("b");
  return {
    a,
    b,
    work,
    dispose: async () => {
      await b.runtime.close();
      await a.runtime.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits (bounded) until `check` holds, ticking node `node`'s driver between looks. */
export async function until(node: Runtime, check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 800; i++) {
    if (await check()) return;
    await node.driverTick();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/**
 * Ticks `node`'s driver every 25 ms, as its interval would, until `done` settles (at most 20 s).
 * One tick right after a decision may look before the decision is visible to it; a node's own
 * interval would tick again, and so does this.
 */
export async function tickUntil(node: Runtime, done: Promise<void>, what: string): Promise<void> {
  let settled = false;
  void done.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < 800 && !settled; i++) {
    // Not awaited: a tick may be the one a test holds inside the store.
    void node.driverTick().catch(() => undefined);
    await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 25))]);
  }
  if (!settled) throw new Error(`timed out waiting until ${what}`);
  await done;
}

/** The allowed fs write intents of run `runId` for file `file`. */
export async function writeIntents(runtime: Runtime, runId: string, file: string): Promise<number> {
  const page = await runtime.audit.query({ runId, kind: "host_call", status: "intent", limit: 1000 });
  return page.records.filter((r) => r.decision === "allow" && (r.args ?? "").includes(file)).length;
}

/** A store the takeover cases run on: its URL for a node's data dir, and its server's life. */
export interface TakeoverStore {
  label: string;
  skip?: string;
  url(dataDir: string): string;
  /** `twoNodes`' options for this store (a server's auth token). */
  options(): { authToken?: string };
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** A shared store file, and a libSQL server when sqld is here (skipped, saying why, when not). */
export function takeoverStores(): TakeoverStore[] {
  let server: SqldServer | undefined;
  const sqld = needsSqld();
  const none = async () => undefined;
  return [
    { label: "a shared file", url: (dataDir) => `file:${join(dataDir, "shared.db")}`, options: () => ({}), start: none, stop: none },
    {
      label: "sqld",
      ...(sqld.skip === undefined ? {} : { skip: sqld.skip }),
      url: () => server!.url,
      options: () => (server?.authToken === undefined ? {} : { authToken: server.authToken }),
      start: async () => {
        server = await startSqld({ auth: true });
      },
      stop: async () => {
        await server?.stop();
      },
    },
  ];
}
