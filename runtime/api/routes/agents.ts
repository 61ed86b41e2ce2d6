import * as v from "valibot";
import { AgentManifestError, AgentManifestSchema } from "../../agents/index.js";
import type { AgentFormat } from "../../agents/store.js";
import { InvalidInputError } from "../../errors.js";
import { ApiError } from "../middleware/api-error.js";
import type { AgentCatalog, AgentEntry } from "./agent-catalog.js";
import { NAME } from "./fields.js";
import { defineRoute, reply } from "./route.js";
import * as S from "../schemas/resources.js";
import { PAGE_QUERY, pageOf } from "./page.js";
import type { ApiRoute, RawBody } from "./route.js";

const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

const MANIFEST_BODY = {
  mediaTypes: ["application/json", ...YAML_TYPES],
  description: "An agent manifest, as in capabilities/<name>.yaml: YAML (application/yaml) or the same fields as JSON. It is kept as sent.",
  jsonSchema: AgentManifestSchema,
} as const;

const Params = v.strictObject({ name: NAME });
const ValidateQuery = v.strictObject({ name: v.optional(NAME) });
const ListQuery = v.strictObject({ ...PAGE_QUERY });

/** Agents: list, read, put (YAML or JSON), remove, validate. Admin only. */
export function agentRoutes(catalog: AgentCatalog): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/agents",
      tag: "agents",
      summary: "List agents: manifest files, stored ones and the runtime's own",
      roles: ["admin"],
      query: ListQuery,
      responses: { 200: { description: "a page of agents, by name", schema: S.AgentPage } },
      handler: async (c, { query }) => {
        const page = pageOf(await catalog.list(), (a) => a.name, query);
        return reply(c, S.AgentPage, { agents: page.items.map(agentSummary), next_cursor: page.next_cursor });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/agents/:name",
      tag: "agents",
      summary: "One agent: its checked manifest, and for a stored agent the text as sent",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "the agent", schema: S.AgentBody }, 404: { description: "no agent of that name" } },
      handler: async (c, { params }) => {
        const entry = await catalog.get(params.name);
        if (entry === undefined) throw new ApiError("not_found", `no agent named ${params.name}`, { status: 404 });
        return reply(c, S.AgentBody, { agent: agentDetail(entry) });
      },
    }),
    defineRoute({
      method: "PUT",
      path: "/v1/agents/:name",
      tag: "agents",
      summary: "Create or replace a stored agent",
      description:
        "Checked as `clawhive agent validate` checks a file (schema, mounts, references, dangerous combinations); the manifest's name must be :name. Kept in the store: it survives a restart and every runtime on the store sees it. A name defined by a manifest file is refused (409).",
      roles: ["admin"],
      params: Params,
      raw: MANIFEST_BODY,
      responses: {
        200: { description: "replaced", schema: S.AgentPut },
        201: { description: "created", schema: S.AgentPut },
        409: { description: "agent_defined_by_file / agent_defined_by_runtime: the name is not a stored agent's" },
      },
      handler: async (c, { params, raw }) => {
        const { source, format } = manifestText(raw!);
        const result = await inBody(() => catalog.put(params.name, source, { format }));
        return reply(c, S.AgentPut, { agent: agentDetail(result.entry), warnings: result.warnings }, result.created ? 201 : 200);
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/agents/:name",
      tag: "agents",
      summary: "Remove a stored agent",
      roles: ["admin"],
      params: Params,
      responses: {
        200: { description: "removed", schema: S.AgentRemoved },
        404: { description: "no agent of that name" },
        409: { description: "agent_defined_by_file / agent_defined_by_runtime: only stored agents are removed here" },
      },
      handler: async (c, { params }) => reply(c, S.AgentRemoved, { removed: agentSummary(await catalog.remove(params.name)) }),
    }),
    defineRoute({
      method: "POST",
      path: "/v1/agents/validate",
      tag: "agents",
      summary: "Check a manifest without storing it",
      description: "200 either way: `{valid: true, name, warnings}` or `{valid: false, issues: [{path, message}]}`. ?name= also checks the manifest's name.",
      roles: ["admin"],
      query: ValidateQuery,
      raw: MANIFEST_BODY,
      responses: { 200: { description: "valid with its name and warnings, or not with its issues", schema: S.AgentValidation } },
      handler: async (c, { query, raw }) => {
        const { source, format } = manifestText(raw!);
        try {
          const parsed = await catalog.validate(source, { format, name: query.name });
          return reply(c, S.AgentValidation, { valid: true, name: parsed.manifest.name, warnings: parsed.warnings });
        } catch (error) {
          if (!(error instanceof AgentManifestError)) throw error;
          return reply(c, S.AgentValidation, { valid: false, issues: error.issues.map(({ path, message }) => ({ path, message })) });
        }
      },
    }),
  ];
}

function manifestText(raw: RawBody): { source: string; format: AgentFormat } {
  let source: string;
  try {
    source = new TextDecoder("utf-8", { fatal: true }).decode(raw.bytes);
  } catch {
    throw new InvalidInputError("body: not UTF-8 text", { field: "body" });
  }
  return { source, format: raw.mediaType.endsWith("json") ? "json" : "yaml" };
}

/** A manifest problem names its path in the manifest; the caller sent it as the body. */
async function inBody<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AgentManifestError)) throw error;
    const path = error.issues[0]?.path;
    throw new InvalidInputError(error.message, { field: path === undefined || path === "(root)" || path.startsWith("line ") ? "body" : `body.${path}`, cause: error });
  }
}

export function agentSummary(entry: AgentEntry): v.InferInput<typeof S.AgentSummarySchema> {
  const m = entry.manifest;
  return {
    name: entry.name,
    origin: entry.origin,
    ...(entry.file === undefined ? {} : { file: entry.file }),
    valid: m !== undefined,
    description: m?.description ?? null,
    model: m === undefined ? null : `${m.model.provider}/${m.model.id}`,
    plugins: m?.plugins.map((p) => ({ name: p.name, version: p.version })) ?? [],
    capabilities: m === undefined ? [] : Object.keys(m.grants).sort(),
    ...(entry.stored === undefined
      ? {}
      : { format: entry.stored.format, created_at: new Date(entry.stored.createdAt).toISOString(), updated_at: new Date(entry.stored.updatedAt).toISOString() }),
  };
}

function agentDetail(entry: AgentEntry): v.InferInput<typeof S.AgentDetailSchema> {
  return {
    ...agentSummary(entry),
    manifest: (entry.manifest ?? null) as Record<string, unknown> | null,
    ...(entry.stored === undefined ? (entry.source === undefined ? {} : { source: entry.source }) : { source: entry.stored.source }),
    ...(entry.warnings === undefined ? {} : { warnings: entry.warnings.map(({ id, path, message }) => ({ id, path, message })) }),
    ...(entry.problems.length === 0 ? {} : { problems: entry.problems.map(({ path, message }) => ({ path, message })) }),
  };
}
