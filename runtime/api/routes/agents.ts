import * as v from "valibot";
import { AgentManifestError, AgentManifestSchema } from "../../agents/index.js";
import type { AgentFormat } from "../../agents/store.js";
import { InvalidInputError } from "../../errors.js";
import { ApiError } from "../middleware/api-error.js";
import type { AgentCatalog, AgentEntry } from "./agent-catalog.js";
import { NAME } from "./fields.js";
import { defineRoute } from "./route.js";
import type { ApiRoute, RawBody } from "./route.js";

const YAML_TYPES = ["application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml"];

const MANIFEST_BODY = {
  mediaTypes: ["application/json", ...YAML_TYPES],
  description: "An agent manifest, as in capabilities/<name>.yaml: YAML (application/yaml) or the same fields as JSON. It is kept as sent.",
  jsonSchema: AgentManifestSchema,
} as const;

const Params = v.strictObject({ name: NAME });
const ValidateQuery = v.strictObject({ name: v.optional(NAME) });

/** Agents: list, read, put (YAML or JSON), remove, validate. Admin only. */
export function agentRoutes(catalog: AgentCatalog): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/agents",
      tag: "agents",
      summary: "List agents: manifest files, stored ones and the runtime's own",
      roles: ["admin"],
      responses: { 200: { description: "`{agents: [...]}`, by name" } },
      handler: async (c) => c.json({ agents: (await catalog.list()).map(agentSummary) }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/agents/:name",
      tag: "agents",
      summary: "One agent: its checked manifest, and for a stored agent the text as sent",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "`{agent}`" }, 404: { description: "no agent of that name" } },
      handler: async (c, { params }) => {
        const entry = await catalog.get(params.name);
        if (entry === undefined) throw new ApiError("not_found", `no agent named ${params.name}`, { status: 404 });
        return c.json({ agent: agentDetail(entry) });
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
        200: { description: "`{agent, warnings}`: replaced" },
        201: { description: "`{agent, warnings}`: created" },
        409: { description: "agent_defined_by_file / agent_defined_by_runtime: the name is not a stored agent's" },
      },
      handler: async (c, { params, raw }) => {
        const { source, format } = manifestText(raw!);
        const result = await inBody(() => catalog.put(params.name, source, { format }));
        return c.json({ agent: agentDetail(result.entry), warnings: result.warnings }, result.created ? 201 : 200);
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
        200: { description: "`{removed: agent}`" },
        404: { description: "no agent of that name" },
        409: { description: "agent_defined_by_file / agent_defined_by_runtime: only stored agents are removed here" },
      },
      handler: async (c, { params }) => c.json({ removed: agentSummary(await catalog.remove(params.name)) }),
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
      responses: { 200: { description: "`{valid, name?, warnings?, issues?}`" } },
      handler: async (c, { query, raw }) => {
        const { source, format } = manifestText(raw!);
        try {
          const parsed = await catalog.validate(source, { format, name: query.name });
          return c.json({ valid: true, name: parsed.manifest.name, warnings: parsed.warnings });
        } catch (error) {
          if (!(error instanceof AgentManifestError)) throw error;
          return c.json({ valid: false, issues: error.issues.map(({ path, message }) => ({ path, message })) });
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

export function agentSummary(entry: AgentEntry) {
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
      : { format: entry.stored.format, createdAt: new Date(entry.stored.createdAt).toISOString(), updatedAt: new Date(entry.stored.updatedAt).toISOString() }),
  };
}

function agentDetail(entry: AgentEntry) {
  return {
    ...agentSummary(entry),
    manifest: entry.manifest ?? null,
    ...(entry.stored === undefined ? {} : { source: entry.stored.source }),
    ...(entry.problems.length === 0 ? {} : { problems: entry.problems.map(({ path, message }) => ({ path, message })) }),
  };
}
