/** Response schemas of the smaller resources: plugins, agents, tools, secrets, schedules, skills, memory, service. */
import * as v from "valibot";
import { ANY_JSON, IssueSchema, ISO_TIME, JSON_OBJECT, NEXT_CURSOR, RiskSchema } from "./common.js";

const pluginBase = {
  name: v.string(),
  version: v.string(),
  format: v.string(),
  publisher: v.string(),
  description: v.string(),
  sha256: v.string(),
  size: v.number(),
  capabilities: v.array(v.string()),
  first_party: v.boolean(),
  origin: v.string(),
  installed_at: ISO_TIME,
  updated_at: ISO_TIME,
};
export const PluginSummarySchema = v.strictObject({
  ...pluginBase,
  tools: v.array(v.strictObject({ name: v.string(), risk: RiskSchema, capabilities: v.array(v.string()) })),
});
export const PluginDetailSchema = v.strictObject({
  ...pluginBase,
  tools: v.array(v.strictObject({ name: v.string(), description: v.string(), risk: RiskSchema, capabilities: v.array(v.string()), input_schema: ANY_JSON })),
  manifest: v.pipe(JSON_OBJECT, v.description("the plugin's plugin.json")),
});
export const PluginPage = v.strictObject({ plugins: v.array(PluginSummarySchema), next_cursor: NEXT_CURSOR });
export const PluginBody = v.strictObject({ plugin: PluginDetailSchema });
export const PluginRemoved = v.strictObject({ removed: PluginSummarySchema });
/** What an install found of the publisher's signature. */
export const SignatureVerdictSchema = v.strictObject({
  status: v.pipe(v.picklist(["signed", "unsigned", "acknowledged"]), v.description("signed by a trusted key; unsigned where none was required; or refused and installed on allow_unsigned")),
  key_id: v.optional(v.string()),
  publisher: v.optional(v.string()),
  code: v.optional(v.pipe(v.string(), v.description("for acknowledged: the refusal acknowledged (plugin_unsigned, key_untrusted, …)"))),
  message: v.optional(v.string()),
});

export const PluginInstalled = v.strictObject({
  action: v.picklist(["installed", "upgraded", "unchanged"]),
  plugin: PluginDetailSchema,
  diff: v.optional(v.strictObject({ widening: v.boolean(), lines: v.array(v.string()) })),
  signature: v.optional(SignatureVerdictSchema),
});

/** A widening upgrade refused for want of acceptance, kept for a person to accept or reject. */
export const PendingUpgradeSchema = v.strictObject({
  name: v.string(),
  version: v.pipe(v.string(), v.description("the version the upgrade brings")),
  installed_version: v.pipe(v.string(), v.description("the installed version the diff was made against: an accept is refused once it changed")),
  publisher: v.string(),
  description: v.string(),
  sha256: v.string(),
  origin: v.string(),
  diff: v.strictObject({ widening: v.boolean(), lines: v.pipe(v.array(v.string()), v.description("`+` widening, `-` narrowing; the plugin's own text made inert")) }),
  proposed_by: v.string(),
  proposed_at: ISO_TIME,
  expires_at: ISO_TIME,
});
export const PendingUpgradePage = v.strictObject({ upgrades: v.array(PendingUpgradeSchema) });
export const PendingUpgradeBody = v.strictObject({ upgrade: PendingUpgradeSchema });
export const PendingUpgradeRejected = v.strictObject({ rejected: PendingUpgradeSchema });
/** A refused upgrade: a widening one (upgrade_needs_acceptance) carries its diff and the pending upgrade kept for it. */
export const UpgradeRefused = v.strictObject({
  error: v.strictObject({
    code: v.string(),
    message: v.string(),
    field: v.optional(v.string()),
    diff: v.optional(v.strictObject({ widening: v.boolean(), lines: v.array(v.string()) })),
    pending_upgrade: v.optional(PendingUpgradeSchema),
  }),
});

const agentBase = {
  name: v.string(),
  origin: v.picklist(["file", "store", "runtime"]),
  file: v.optional(v.string()),
  valid: v.boolean(),
  description: v.nullable(v.string()),
  model: v.pipe(v.nullable(v.string()), v.description("provider/model")),
  plugins: v.array(v.strictObject({ name: v.string(), version: v.string() })),
  capabilities: v.array(v.string()),
  format: v.optional(v.picklist(["yaml", "json"])),
  created_at: v.optional(ISO_TIME),
  updated_at: v.optional(ISO_TIME),
};
export const AgentSummarySchema = v.strictObject(agentBase);
const DangerWarningSchema = v.strictObject({ id: v.string(), path: v.string(), message: v.string() });
export const AgentDetailSchema = v.strictObject({
  ...agentBase,
  manifest: v.nullable(JSON_OBJECT),
  source: v.pipe(v.optional(v.string()), v.description("the manifest's text: a stored agent's as sent, a file agent's file")),
  problems: v.optional(v.array(IssueSchema)),
  warnings: v.pipe(v.optional(v.array(DangerWarningSchema)), v.description("the dangerous combinations the manifest acknowledges")),
});
export const AgentPage = v.strictObject({ agents: v.array(AgentSummarySchema), next_cursor: NEXT_CURSOR });
export const AgentBody = v.strictObject({ agent: AgentDetailSchema });
export const AgentPut = v.strictObject({ agent: AgentDetailSchema, warnings: v.array(DangerWarningSchema) });
export const AgentRemoved = v.strictObject({ removed: AgentSummarySchema });
export const AgentValidation = v.variant("valid", [
  v.strictObject({ valid: v.literal(true), name: v.string(), warnings: v.array(DangerWarningSchema) }),
  v.strictObject({ valid: v.literal(false), issues: v.array(IssueSchema) }),
]);

export const ToolSchema = v.strictObject({
  name: v.pipe(v.string(), v.description("plugin.tool")),
  plugin: v.string(),
  tool: v.string(),
  description: v.string(),
  input_schema: ANY_JSON,
  capabilities: v.array(v.string()),
  risk: RiskSchema,
  plugin_risk: v.optional(RiskSchema),
});
export const ToolPage = v.strictObject({ agent: v.optional(v.string()), tools: v.array(ToolSchema), next_cursor: NEXT_CURSOR });

export const SecretSchema = v.strictObject({ name: v.string(), created_at: ISO_TIME, updated_at: ISO_TIME });
export const SecretPage = v.strictObject({ secrets: v.array(SecretSchema), next_cursor: NEXT_CURSOR });
export const SecretBody = v.strictObject({ secret: SecretSchema });
export const SecretPut = v.strictObject({ secret: SecretSchema, redacted: v.boolean() });
export const Removed = v.strictObject({ removed: v.string() });

export const ScheduleSchema = v.strictObject({
  id: v.string(),
  agent: v.string(),
  kind: v.string(),
  at: v.nullable(ISO_TIME),
  cron: v.nullable(v.string()),
  timezone: v.nullable(v.string()),
  task: v.nullable(v.string()),
  tool_calls: v.nullable(v.array(v.strictObject({ name: v.string(), input: v.optional(ANY_JSON) }))),
  grants: v.nullable(JSON_OBJECT),
  until: v.nullable(ISO_TIME),
  max_runs: v.nullable(v.number()),
  runs_so_far: v.number(),
  next_at: v.nullable(ISO_TIME),
  status: v.string(),
  created_at: ISO_TIME,
  ended_at: v.nullable(ISO_TIME),
  created_by: v.nullable(v.strictObject({ agent: v.string(), run: v.nullable(v.string()) })),
});
export const FiringSchema = v.strictObject({ due_at: ISO_TIME, status: v.string(), run_id: v.nullable(v.string()), error: v.nullable(v.string()), node: v.nullable(v.string()), at: v.nullable(ISO_TIME) });
export const ScheduleBody = v.strictObject({ schedule: ScheduleSchema });
export const ScheduleDetail = v.strictObject({ schedule: ScheduleSchema, firings: v.array(FiringSchema) });
export const SchedulePage = v.strictObject({ schedules: v.array(ScheduleSchema), next_cursor: NEXT_CURSOR });

const SkillSchema = v.strictObject({ name: v.string(), description: v.string(), requires: v.strictObject({ tools: v.array(v.string()) }), bytes: v.number() });
export const SkillPage = v.strictObject({
  agent: v.optional(v.string()),
  skills: v.array(SkillSchema),
  problems: v.optional(v.array(v.strictObject({ file: v.string(), message: v.string() }))),
  left_out: v.optional(v.array(v.strictObject({ name: v.string(), path: v.nullable(v.string()), reason: v.string() }))),
  next_cursor: NEXT_CURSOR,
});
export const SkillBody = v.strictObject({ skill: v.strictObject({ ...SkillSchema.entries, text: v.string() }) });

export const MemoryHits = v.strictObject({
  hits: v.array(
    v.strictObject({
      episode_id: v.string(),
      title: v.string(),
      heading_path: v.array(v.string()),
      text: v.string(),
      score: v.number(),
      untrusted: v.boolean(),
      source: v.picklist(["person", "model", "tool"]),
      partition: v.string(),
      created_at: ISO_TIME,
    }),
  ),
});
export const MemoryWritten = v.strictObject({ episode_id: v.string() });
export const MemoryForgotten = v.strictObject({ forgotten: v.string() });
export const MemoryFile = v.strictObject({ text: v.string(), bytes: v.number() });
export const MemoryFileWritten = v.strictObject({ bytes: v.number() });

export const HealthBody = v.strictObject({
  status: v.literal("ok"),
  version: v.string(),
  plugins: v.optional(v.number()),
  tools: v.optional(v.number()),
  sandbox: v.optional(JSON_OBJECT),
});
export const ReadyBody = v.strictObject({
  ready: v.boolean(),
  checks: v.strictObject({
    store: v.pipe(
      v.picklist(["ok", "unreachable", "read_only", "full", "failing"]),
      v.description("ok: a write committed; unreachable: no answer in time or no connection; read_only: writes refused as read-only; full: its disk is full; failing: a write failed otherwise"),
    ),
    plugins: v.picklist(["ok", "not_loaded"]),
  }),
});
export const OpenApiBody = v.pipe(JSON_OBJECT, v.description("an OpenAPI 3.1 document"));

/** `POST /v1/plugins/proposals`: the plugin.json a bare typed component would get, and what a person reads. */
export const PluginProposal = v.strictObject({ manifest: JSON_OBJECT, lines: v.array(v.string()) });

/** An agent's MCP server: its live tool definitions against the accepted pin. */
export const McpReviewSchema = v.strictObject({
  agent: v.string(),
  server: v.string(),
  pinned: v.nullable(v.strictObject({ accepted_at: ISO_TIME, accepted_by: v.nullable(v.string()), tools: v.array(v.string()) })),
  diff: v.strictObject({
    hash: v.string(),
    added: v.array(v.string()),
    removed: v.array(v.string()),
    changed: v.array(v.string()),
    unchanged: v.array(v.string()),
    lines: v.array(v.string()),
  }),
  skipped: v.array(v.strictObject({ tool: v.string(), reason: v.string() })),
});
export const McpReviewBody = v.strictObject({ review: McpReviewSchema });
