/**
 * The agent manifest (`capabilities/<name>.yaml`) as a valibot schema: structure and
 * per-field syntax. Checks that span fields (checks.ts), touch the disk (host-dirs.ts) or span
 * manifests (load.ts) run after it. This schema is also the source of `capabilities/schema.json`,
 * so it sticks to what JSON Schema can say, plus `check`s the JSON Schema simply omits.
 */
// The one function, not semver's index (which loads every module of the package, ~0.1 s).
import validRange from "semver/ranges/valid.js";
import * as v from "valibot";
import { AgentNameListSchema, AgentNameSchema, CapabilityGrantSchema, NAME_MESSAGE, NAME_REGEX, strictObject, unique } from "../policy/catalogue/index.js";
import { RiskSchema } from "../plugins/manifest.js";
import { DANGER_IDS } from "./danger-ids.js";
import { McpServersSchema } from "../mcp-client/spec.js";
import { PLUGIN_CONFIG_DESCRIPTION, PluginConfigGrantSchema } from "../plugins/config-grant.js";

/** Same rule as plugin manifests' tool names (runtime/plugins/manifest.ts). */
const TOOL_REGEX = /^[a-z][a-z0-9_]{0,62}$/;
const TOOL_MESSAGE = "expected a tool name: a lowercase letter, then lowercase letters, digits or '_'";
/** `plugin.tool`, e.g. `files.write_file`. */
const TOOL_REF_REGEX = /^[a-z][a-z0-9-]{0,62}\.[a-z][a-z0-9_]{0,62}$/;

const int = (min: number, max: number) => v.pipe(v.number(), v.integer("expected a whole number"), v.minValue(min), v.maxValue(max));

const CompactionSchema = strictObject({
  at_tokens: v.pipe(
    v.optional(int(256, 10_000_000)),
    v.description("compact when a Step's request (system prompt, tools, messages, max_tokens) passes this many tokens; below context_tokens (default four fifths of context_tokens)"),
  ),
  keep_recent_turns: v.pipe(v.optional(int(0, 1000), 2), v.description("the latest turns (a turn is one run's messages) never compacted (default 2)")),
  summary_tokens: v.pipe(v.optional(int(64, 32_768), 1024), v.description("the summary's length in tokens at most: the summary call's max_tokens (default 1024)")),
});

const ModelSchema = strictObject({
  provider: v.picklist(["openai", "anthropic", "openai-compatible"]),
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,127}$/, "expected a model id like claude-sonnet-4-5 or gpt-4.1")),
  base_url: v.pipe(
    v.optional(v.pipe(v.string(), v.url("expected an absolute URL like https://api.example.com/v1"))),
    v.description("required for openai-compatible; https unless the host is loopback"),
  ),
  api_key_secret: v.pipe(
    v.optional(
      v.pipe(
        v.string(),
        // Checked before the name rule: a pasted key gets the message that matters.
        v.check((s) => !/^(sk-|sk_|xai-|AIza)/.test(s) && s.length <= 63, "this looks like an API key: store the key as a secret and put the secret's name here"),
        v.regex(/^[a-z][a-z0-9_-]{0,62}$/, "expected the name of a stored secret: lowercase letters, digits, '_' or '-'"),
      ),
    ),
    v.description("the name of the secret holding the API key; never the key itself"),
  ),
  max_tokens: v.optional(int(1, 1_000_000), 4096),
  temperature: v.pipe(
    v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(2))),
    v.description("OpenAI and compatible servers only: Anthropic's current API version refuses sampling parameters"),
  ),
  context_tokens: v.pipe(
    v.optional(int(1024, 10_000_000)),
    v.description("the model's context window in tokens; older turns are dropped to fit it (default 128000)"),
  ),
  stream: v.pipe(v.optional(v.boolean()), v.description("stream responses (default true); false for servers that stream tool calls poorly")),
  max_response_bytes: v.pipe(
    v.optional(int(1024, 64 * 1024 * 1024)),
    v.description("the model's answer (text and tool calls) in bytes at most, default 1048576 (1 MiB); a longer one fails the run with llm_response_too_large"),
  ),
  tool_protocol: v.pipe(
    v.optional(v.picklist(["native", "text"])),
    v.description("how tools reach the model: native (the API's tool calling, default) or text (a tool list in the system prompt, calls as <tool_call> elements in the model's text; docs/tool-protocol.md)"),
  ),
  tool_call_attempts: v.pipe(
    v.optional(int(1, 10)),
    v.description("model turns in a row whose tool calls are unusable (malformed, unknown tool, input failing the schema) before the run fails with invalid_input (default 3)"),
  ),
  compaction: v.pipe(
    v.optional(CompactionSchema),
    v.description("summarise a conversation's older turns with this model when a request passes compaction.at_tokens; the originals stay in the store and a compaction can be undone (docs/compaction.md). Absent: older turns are only dropped to fit context_tokens"),
  ),
});

const PluginRefSchema = strictObject({
  name: v.pipe(v.string(), v.regex(NAME_REGEX, NAME_MESSAGE)),
  version: v.pipe(
    v.string(),
    v.check((s) => s.trim() !== "" && validRange(s) !== null, "expected a semver range like ^1.2.0, ~0.3 or >=1 <2"),
    v.description("semver range of acceptable plugin versions"),
  ),
  tools: v.pipe(
    v.optional(v.pipe(v.array(v.pipe(v.string(), v.regex(TOOL_REGEX, TOOL_MESSAGE))), v.minLength(1), v.check((items) => unique(items), "tool names must be unique"))),
    v.description("the plugin tools offered to the model; all of them when absent"),
  ),
  config: v.pipe(v.optional(PluginConfigGrantSchema), v.description(PLUGIN_CONFIG_DESCRIPTION)),
});

const ToolRefSchema = v.pipe(v.string(), v.regex(TOOL_REF_REGEX, "expected plugin.tool, e.g. files.write_file"));

const LimitsSchema = strictObject({
  max_tool_rounds: v.optional(int(1, 1000), 20),
  max_tool_calls_per_turn: v.pipe(
    v.optional(int(1, 1000), 32),
    v.description("tool calls one model turn may ask for; the rest of the turn is not run, and the model is told so"),
  ),
  run_timeout_ms: v.optional(int(1000, 86_400_000), 600_000),
  call_timeout_ms: v.optional(int(100, 3_600_000), 30_000),
  memory_mb: v.pipe(v.optional(int(16, 4096), 256), v.description("wasm memory cap per plugin instance")),
  max_depth: v.pipe(
    v.optional(int(0, 31), 3),
    v.description("how many levels of sub-agents may run below a run of this agent (0: it may spawn none); every ancestor's limit holds too"),
  ),
});

const ToolRetrievalSchema = strictObject({
  max_tools: v.pipe(int(1, 128), v.description("tools shown to the model in one Step, the most relevant first; the rest are found with the tools.search meta-tool")),
  always: v.pipe(
    v.optional(v.pipe(v.array(ToolRefSchema), v.check((items) => unique(items), "tool names must be unique")), () => []),
    v.description("tools shown in every Step whatever the conversation (counted in max_tools)"),
  ),
});

const ApprovalsSchema = strictObject({
  guarded: v.pipe(
    v.optional(v.picklist(["ask", "run"]), "ask"),
    v.description("default scope of an approval of a Guarded ToolCall: ask = this call only (once), run = the rest of the run"),
  ),
  expiry_minutes: v.optional(int(1, 10_080), 60),
  unsafe_patterns: v.pipe(
    v.optional(v.array(ToolRefSchema), () => []),
    v.description(
      "Unsafe tools whose effects a person may approve by pattern (e.g. shell.exec of git diff *) rather than one at a time; absent, every Unsafe effect is approved once",
    ),
  ),
  raise_risk: v.optional(v.array(strictObject({ tool: ToolRefSchema, to: RiskSchema })), () => []),
  lower_risk: v.pipe(
    v.optional(v.array(strictObject({ tool: ToolRefSchema, to: RiskSchema, acknowledged: v.optional(v.boolean()) })), () => []),
    v.description("each entry needs acknowledged: true"),
  ),
});

const SecretsSchema = strictObject({
  refuse_transformed_outputs: v.pipe(
    v.optional(v.boolean(), false),
    v.description(
      "refuse a tool's output that holds a secret its plugin or MCP server was given in a transformed spelling (reversed, case, base64, hex, escapes, ROT13, separators, split across fields: docs/security.md); the operator's secrets.refuse_transformed_outputs turns it on for every agent",
    ),
  ),
});

export const AgentManifestSchema = strictObject({
  name: AgentNameSchema,
  description: v.pipe(v.string(), v.minLength(1, "expected a description"), v.maxLength(500)),
  model: ModelSchema,
  system_prompt: v.pipe(v.string(), v.minLength(1, "expected a system prompt"), v.maxLength(100_000)),
  plugins: v.optional(v.array(PluginRefSchema), () => []),
  grants: v.pipe(v.optional(CapabilityGrantSchema, () => ({})), v.description("capability → resource; what is absent is denied")),
  mcp_servers: v.pipe(
    v.optional(McpServersSchema, () => ({})),
    v.description("external MCP servers (stdio, confined; or streamable HTTP): their tools are offered as <server>.<tool>, Guarded by default, once a person accepted their definitions"),
  ),
  tool_retrieval: v.pipe(
    v.optional(ToolRetrievalSchema),
    v.description("for an agent with many tools: each Step shows the max_tools most relevant to the conversation (keyword, and meaning when memory.embeddings is set) plus the tools.search meta-tool; absent, every tool is shown"),
  ),
  limits: v.optional(LimitsSchema, () => ({})),
  approvals: v.optional(ApprovalsSchema, () => ({})),
  sub_agents: v.pipe(
    v.optional(AgentNameListSchema, () => []),
    v.description("agents this agent may start as sub-agents (each is a tool the model sees); spawning also needs grants.agent.spawn naming them"),
  ),
  todo: v.pipe(
    v.optional(v.picklist(["run", "conversation"], "expected run or conversation")),
    v.description("a task list the model keeps with the tools todo_write and todo_read, shown in clawhive chat and the run's events: run (one list a run) or conversation (one list across a conversation's runs); absent: no todo tools"),
  ),
  skills: v.pipe(
    v.optional(
      v.pipe(v.array(v.pipe(v.string(), v.regex(NAME_REGEX, NAME_MESSAGE))), v.check((items) => unique(items), "skill names must be unique")),
      () => [],
    ),
    v.description("skills (skills/<name>/SKILL.md) whose text enters the system prompt when the agent's tools cover what each requires; a skill grants nothing"),
  ),
  acknowledge: v.pipe(
    v.optional(v.pipe(v.array(v.picklist(DANGER_IDS)), v.check((items) => unique(items), "ids must be unique")), () => []),
    v.description("ids of dangerous combinations the author accepts"),
  ),
  secrets: v.optional(SecretsSchema, () => ({ refuse_transformed_outputs: false })),
});

export type AgentManifestInput = v.InferInput<typeof AgentManifestSchema>;
export type AgentManifest = v.InferOutput<typeof AgentManifestSchema>;
export type AgentModel = AgentManifest["model"];
export type AgentPluginRef = AgentManifest["plugins"][number];
export type AgentLimits = AgentManifest["limits"];
export type AgentApprovals = AgentManifest["approvals"];
