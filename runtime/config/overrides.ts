/**
 * Environment variables and command-line flags, each naming one setting. Their text is turned
 * into the setting's type (integers, booleans, lists) and checked by the same schema the file
 * uses. An empty variable counts as unset: `CLAWHIVE_DATA_DIR= clawhive …` must not mean the
 * cwd (the rule of runtime/cli/store-path.ts, kept).
 */
import * as v from "valibot";
import type { ConfigIssue } from "./errors.js";
import { AllowedHostSchema, BoolSchema, HostSchema, ListenSchema, MetricsTokenSchema, OriginSchema, PathSchema, PortSchema, SecretNameSchema, StoreUrlSchema, TokenSchema, UrlSchema } from "./fields.js";
import { parseListen } from "./listen.js";
import { CalendarSchema, EmbeddingModelSchema, ExtismLogLevelSchema, MailSchema, RANGES } from "./schema.js";
import type { ConfigSource } from "./types.js";

/** One setting's value and where it came from. `field` is the key as written at the source. */
export interface Leaf {
  readonly value: unknown;
  readonly source: ConfigSource;
  readonly field: string;
}
/** Settings by key (`sandbox.pool_size`; the listen address as `server.host` and `server.port`). */
export type Layer = Map<string, Leaf>;

type Text = "string" | "int" | "bool" | "list";

interface Override {
  /** The setting key; `server.listen` is split into `server.host` and `server.port`. */
  readonly key: string;
  readonly schema: v.GenericSchema;
  readonly text?: Text;
}

/** In order: a later variable wins over an earlier one naming the same setting. */
export const ENV_OVERRIDES: ReadonlyArray<Override & { readonly name: string }> = [
  { name: "CLAWHIVE_DATA_DIR", key: "data_dir", schema: PathSchema },
  { name: "CLAWHIVE_AGENTS_DIR", key: "agents_dir", schema: PathSchema },
  { name: "CLAWHIVE_BUILD_CACHE", key: "build_cache_dir", schema: PathSchema },
  { name: "CLAWHIVE_STORE_URL", key: "store.url", schema: StoreUrlSchema },
  { name: "CLAWHIVE_STORE_AUTH_TOKEN", key: "store.auth_token", schema: TokenSchema },
  { name: "CLAWHIVE_STORE_TIMEOUT_MS", key: "store.timeout_ms", schema: RANGES.storeTimeoutMs, text: "int" },
  // The variables `clawhive serve` read before CLAWHIVE_LISTEN existed; CLAWHIVE_LISTEN wins.
  { name: "CLAWHIVE_HOST", key: "server.host", schema: HostSchema },
  { name: "CLAWHIVE_PORT", key: "server.port", schema: PortSchema, text: "int" },
  { name: "CLAWHIVE_LISTEN", key: "server.listen", schema: ListenSchema },
  { name: "CLAWHIVE_ALLOW_NON_LOOPBACK", key: "server.allow_non_loopback", schema: BoolSchema, text: "bool" },
  { name: "CLAWHIVE_BODY_LIMIT_BYTES", key: "server.body_limit_bytes", schema: RANGES.bodyLimitBytes, text: "int" },
  { name: "CLAWHIVE_MAX_CONCURRENT_REQUESTS", key: "server.max_concurrent_requests", schema: RANGES.maxConcurrentRequests, text: "int" },
  { name: "CLAWHIVE_CORS_ORIGINS", key: "server.cors.origins", schema: v.array(OriginSchema), text: "list" },
  { name: "CLAWHIVE_ALLOWED_HOSTS", key: "server.allowed_hosts", schema: v.array(AllowedHostSchema), text: "list" },
  { name: "CLAWHIVE_METRICS_TOKEN", key: "server.metrics_token", schema: MetricsTokenSchema },
  { name: "CLAWHIVE_WORKERS", key: "sandbox.workers", schema: RANGES.workers, text: "int" },
  { name: "CLAWHIVE_POOL_SIZE", key: "sandbox.pool_size", schema: RANGES.poolSize, text: "int" },
  { name: "CLAWHIVE_CALL_TIMEOUT_MS", key: "sandbox.call_timeout_ms", schema: RANGES.callTimeoutMs, text: "int" },
  { name: "CLAWHIVE_MAX_CALL_TIMEOUT_MS", key: "sandbox.max_call_timeout_ms", schema: RANGES.callTimeoutMs, text: "int" },
  { name: "CLAWHIVE_CALLS_PER_RUN", key: "sandbox.calls_per_run", schema: RANGES.callsPerRun, text: "int" },
  { name: "CLAWHIVE_CALLS_PER_AGENT", key: "sandbox.calls_per_agent", schema: RANGES.callsPerRun, text: "int" },
  { name: "CLAWHIVE_QUEUED_CALLS_PER_RUN", key: "sandbox.queued_calls_per_run", schema: RANGES.queuedCallsPerRun, text: "int" },
  { name: "CLAWHIVE_CREATE_TIMEOUT_MS", key: "sandbox.create_timeout_ms", schema: RANGES.createTimeoutMs, text: "int" },
  { name: "CLAWHIVE_MEMORY_MAX_MB", key: "sandbox.memory_max_mb", schema: RANGES.memoryMaxMb, text: "int" },
  { name: "CLAWHIVE_MAX_HEAP_MB", key: "sandbox.max_heap_mb", schema: RANGES.maxHeapMb, text: "int" },
  { name: "CLAWHIVE_MAX_RESULT_BYTES", key: "sandbox.max_result_bytes", schema: RANGES.maxResultBytes, text: "int" },
  { name: "CLAWHIVE_EXTISM_LOG_LEVEL", key: "sandbox.extism_log_level", schema: ExtismLogLevelSchema },
  { name: "CLAWHIVE_SECRET_KEY_FILE", key: "secrets.key_file", schema: PathSchema },
  { name: "CLAWHIVE_OTLP_ENDPOINT", key: "telemetry.otlp_endpoint", schema: UrlSchema },
  { name: "CLAWHIVE_REFUSE_TRANSFORMED_SECRETS", key: "secrets.refuse_transformed_outputs", schema: BoolSchema, text: "bool" },
  { name: "CLAWHIVE_LLM_PROXY_URL", key: "llm.proxy_url", schema: UrlSchema },
  { name: "CLAWHIVE_LLM_TIMEOUT_MS", key: "llm.timeout_ms", schema: RANGES.llmTimeoutMs, text: "int" },
  { name: "CLAWHIVE_LLM_MAX_ATTEMPTS", key: "llm.max_attempts", schema: RANGES.llmMaxAttempts, text: "int" },
  { name: "CLAWHIVE_MEMORY_EMBEDDINGS_URL", key: "memory.embeddings.base_url", schema: UrlSchema },
  { name: "CLAWHIVE_MEMORY_EMBEDDINGS_MODEL", key: "memory.embeddings.model", schema: EmbeddingModelSchema },
  { name: "CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS", key: "memory.embeddings.dimensions", schema: RANGES.embeddingDimensions, text: "int" },
  { name: "CLAWHIVE_MEMORY_EMBEDDINGS_KEY_SECRET", key: "memory.embeddings.api_key_secret", schema: SecretNameSchema },
];

/** Flags (parseArgs names) that set a setting; `--config` picks the file and is not here. */
export const FLAG_OVERRIDES: ReadonlyArray<Override & { readonly flag: string }> = [
  { flag: "data-dir", key: "data_dir", schema: PathSchema },
  { flag: "agents", key: "agents_dir", schema: PathSchema },
  { flag: "store", key: "store.url", schema: StoreUrlSchema },
  { flag: "host", key: "server.host", schema: HostSchema },
  { flag: "port", key: "server.port", schema: PortSchema, text: "int" },
  { flag: "listen", key: "server.listen", schema: ListenSchema },
  { flag: "secret-key-file", key: "secrets.key_file", schema: PathSchema },
];

/**
 * The mail and calendar backends are described by several variables at once, as
 * runtime/runs/backends.ts reads them: when the `…_BACKEND` variable is set, the backend it
 * describes replaces the file's whole `mail:` (or `calendar:`) section.
 */
const BACKEND_OVERRIDES = [
  {
    key: "mail",
    schema: MailSchema,
    variables: { backend: "CLAWHIVE_MAIL_BACKEND", token_secret: "CLAWHIVE_GMAIL_TOKEN_SECRET", base_url: "CLAWHIVE_GMAIL_BASE_URL" },
    remote: "gmail",
  },
  {
    key: "calendar",
    schema: CalendarSchema,
    variables: { backend: "CLAWHIVE_CALENDAR_BACKEND", token_secret: "CLAWHIVE_CALENDAR_TOKEN_SECRET", base_url: "CLAWHIVE_CALENDAR_BASE_URL" },
    remote: "google",
  },
] as const;

export function readEnv(env: Readonly<Record<string, string | undefined>>, layer: Layer, issues: ConfigIssue[]): void {
  for (const override of ENV_OVERRIDES) {
    const text = nonEmpty(env[override.name]);
    if (text !== undefined) apply(override, text, { kind: "env", name: override.name }, layer, issues);
  }
  for (const backend of BACKEND_OVERRIDES) {
    const name = nonEmpty(env[backend.variables.backend]);
    if (name === undefined) continue;
    const value: Record<string, string> = { backend: name };
    // The remote backend's other variables only mean something for it; a local one has none.
    if (name === backend.remote) {
      for (const [field, variable] of Object.entries(backend.variables)) {
        const text = nonEmpty(env[variable]);
        if (field !== "backend" && text !== undefined) value[field] = text;
      }
    }
    const parsed = v.safeParse(backend.schema, value);
    if (parsed.success) {
      layer.set(backend.key, { value: parsed.output, source: { kind: "env", name: backend.variables.backend }, field: backend.key });
      continue;
    }
    for (const issue of parsed.issues) {
      const field = String(issue.path?.[0]?.key ?? "backend") as keyof typeof backend.variables;
      const variable = backend.variables[field] ?? backend.variables.backend;
      issues.push({ source: { kind: "env", name: variable }, field: `${backend.key}.${field}`, message: issue.message });
    }
  }
}

export function readFlags(flags: Readonly<Record<string, unknown>>, layer: Layer, issues: ConfigIssue[]): void {
  for (const override of FLAG_OVERRIDES) {
    const text = flags[override.flag];
    if (typeof text === "string") apply(override, text, { kind: "flag", name: override.flag }, layer, issues);
  }
}

function apply(override: Override, text: string, source: ConfigSource, layer: Layer, issues: ConfigIssue[]): void {
  const parsed = v.safeParse(override.schema, fromText(text, override.text ?? "string"));
  if (!parsed.success) {
    issues.push({ source, field: override.key, message: parsed.issues[0].message });
    return;
  }
  setLeaf(layer, override.key, { value: parsed.output, source, field: override.key });
}

/** Sets a leaf, splitting a listen address into its host and port. */
export function setLeaf(layer: Layer, key: string, leaf: Leaf): void {
  if (key !== "server.listen") {
    layer.set(key, leaf);
    return;
  }
  const address = parseListen(leaf.value as string)!;
  layer.set("server.host", { ...leaf, value: address.host });
  layer.set("server.port", { ...leaf, value: address.port });
}

function fromText(text: string, kind: Text): unknown {
  switch (kind) {
    case "int":
      // Only plain digits: `0x10`, `1e3` and `12abc` are refused rather than read as numbers.
      return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
    case "bool": {
      const lower = text.trim().toLowerCase();
      if (["1", "true", "yes", "on"].includes(lower)) return true;
      if (["0", "false", "no", "off"].includes(lower)) return false;
      return text;
    }
    case "list":
      return text
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "");
    default:
      return text;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
