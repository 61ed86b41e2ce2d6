import * as v from "valibot";
import { NotFoundError } from "../../errors.js";
import { forgetAsPerson, MEMORY_FILE_MAX_BYTES, MAX_PERSON_EPISODE_BYTES, MAX_PERSON_K, personScope, readMemoryFile, searchAsPerson, writeAsPerson, writeMemoryFile, type MemoryHit } from "../../memory/index.js";
import type { Runtime } from "../../runtime.js";
import { ApiError } from "../middleware/api-error.js";
import { NAME, queryInt } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import * as S from "../schemas/resources.js";
import type { ApiRoute } from "./route.js";

const Params = v.strictObject({ name: NAME });
const EpisodeParams = v.strictObject({ name: NAME, episode: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,100}$/, "expected an episode id")) });
const SCOPE = v.pipe(
  v.string(),
  v.check(isScope, "expected agent, user or project/<name> (name: lowercase letters, digits, '_' or '-', at most 64)"),
  v.description("agent (default), user or project/<name>"),
);
const SearchQuery = v.strictObject({
  q: v.pipe(v.string(), v.minLength(1, "expected the words to search for"), v.maxLength(2000, "expected at most 2000 characters")),
  k: v.optional(queryInt(1, MAX_PERSON_K)),
  scope: v.optional(SCOPE),
});
const ScopeQuery = v.strictObject({ scope: v.optional(SCOPE) });
const WriteBody = v.strictObject({
  text: v.pipe(v.string("expected the note as text"), v.minLength(1, "expected the note as text"), v.maxBytes(MAX_PERSON_EPISODE_BYTES, `expected at most ${MAX_PERSON_EPISODE_BYTES} bytes of UTF-8`)),
  title: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(200))),
  scope: v.optional(SCOPE),
});
const FileBody = v.strictObject({ text: v.string("expected MEMORY.md as text") });

/**
 * An agent's long-term memory as people reach it: search (every partition of the agent, its
 * sub-agents' included), write (source `person`), forget, and its MEMORY.md. Reads are for
 * approvers (who already see what runs do) and admins; changes for admins.
 */
export function memoryRoutes(runtime: Runtime): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/agents/:name/memory",
      tag: "memory",
      summary: "Search an agent's memory (or a shared scope's)",
      description: "Hybrid (keyword and vector) search when the runtime has memory.embeddings, else keyword. scope: agent (default: the agent's partitions and its sub-agents'), user, or project/<name>.",
      roles: ["approver"],
      params: Params,
      query: SearchQuery,
      responses: { 200: { description: "the k best hits, best first", schema: S.MemoryHits }, 404: { description: "no agent of that name" } },
      handler: async (c, { params, query }) => {
        await knownAgent(runtime, params.name);
        const hits = await searchAsPerson(await runtime.memory(), params.name, { query: query.q, k: query.k, scope: query.scope });
        return reply(c, S.MemoryHits, { hits: hits.map(hitView) });
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/agents/:name/memory",
      tag: "memory",
      summary: "Write a note into an agent's memory (or a shared scope), as a person",
      roles: ["admin"],
      params: Params,
      body: WriteBody,
      responses: { 201: { description: "written", schema: S.MemoryWritten }, 404: { description: "no agent of that name" } },
      handler: async (c, { params, body }) => {
        await knownAgent(runtime, params.name);
        const id = await writeAsPerson(await runtime.memory(), params.name, { text: body.text, title: body.title, scope: body.scope });
        return reply(c, S.MemoryWritten, { episode_id: id }, 201);
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/agents/:name/memory/:episode",
      tag: "memory",
      summary: "Forget one episode of an agent's memory (or of a shared scope)",
      roles: ["admin"],
      params: EpisodeParams,
      query: ScopeQuery,
      responses: { 200: { description: "forgotten", schema: S.MemoryForgotten }, 404: { description: "no such agent or episode" } },
      handler: async (c, { params, query }) => {
        await knownAgent(runtime, params.name);
        if (!(await forgetAsPerson(await runtime.memory(), params.name, { episodeId: params.episode, scope: query.scope }))) {
          throw new NotFoundError(`agent ${params.name} has no episode ${params.episode} in scope ${query.scope ?? "agent"}`);
        }
        return reply(c, S.MemoryForgotten, { forgotten: params.episode });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/agents/:name/memory-file",
      tag: "memory",
      summary: "The agent's MEMORY.md (empty when it has none)",
      roles: ["approver"],
      params: Params,
      responses: { 200: { description: "the text and its size", schema: S.MemoryFile }, 404: { description: "no agent of that name" } },
      handler: async (c, { params }) => {
        await knownAgent(runtime, params.name);
        const text = await readMemoryFile(runtime.dataDir, params.name);
        return reply(c, S.MemoryFile, { text, bytes: Buffer.byteLength(text, "utf8") });
      },
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/agents/:name/memory-file",
      tag: "memory",
      summary: "Replace the agent's MEMORY.md (read into every system prompt of the agent)",
      description: `At most ${MEMORY_FILE_MAX_BYTES} bytes of UTF-8: a longer text is refused (413), never cut.`,
      roles: ["admin"],
      params: Params,
      body: FileBody,
      responses: { 200: { description: "written: its size", schema: S.MemoryFileWritten }, 404: { description: "no agent of that name" }, 413: { description: "memory_file_too_large: text is over the cap" } },
      handler: async (c, { params, body }) => {
        await knownAgent(runtime, params.name);
        const bytes = Buffer.byteLength(body.text, "utf8");
        if (bytes > MEMORY_FILE_MAX_BYTES) {
          throw new ApiError("memory_file_too_large", `text: ${bytes} bytes is over the ${MEMORY_FILE_MAX_BYTES}-byte cap of MEMORY.md; shorten it`, { status: 413, field: "body.text" });
        }
        await writeMemoryFile(runtime.dataDir, params.name, body.text);
        return reply(c, S.MemoryFileWritten, { bytes });
      },
    }),
  ];
}

/** A hit as the API and the CLI show it. */
export function hitView(hit: MemoryHit) {
  return {
    episode_id: hit.episodeId,
    title: hit.title,
    heading_path: hit.headingPath,
    text: hit.text,
    score: hit.score,
    untrusted: hit.untrusted,
    source: hit.source,
    partition: hit.partition,
    created_at: new Date(hit.createdAt).toISOString(),
  };
}

function isScope(raw: string): boolean {
  try {
    personScope(raw);
    return true;
  } catch {
    return false;
  }
}

async function knownAgent(runtime: Runtime, name: string): Promise<void> {
  await runtime.refreshAgents();
  if (!runtime.agents().some((a) => a.name === name)) throw new NotFoundError(`no agent named ${name}`);
}
