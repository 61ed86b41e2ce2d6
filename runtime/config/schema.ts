/**
 * The config file (`clawhive.yaml` or JSON) as a valibot schema. Every key is optional (a
 * default or the environment fills it) and every object is strict: a typo such as
 * `sandbox.poolsize` is an error naming the known keys, never a setting silently ignored.
 * It is also the source of the config's JSON Schema (json-schema.ts).
 */
import * as v from "valibot";
import { strictObject } from "../policy/catalogue/index.js";
import { EXTISM_LOG_LEVELS } from "../plugins/extism-abi.js";
import { WebhookFileSchema } from "../webhooks/config.js";
import { AllowedHostSchema, BoolSchema, int, ListenSchema, MetricsTokenSchema, OriginSchema, PathSchema, SecretNameSchema, StoreUrlSchema, TokenSchema, UrlSchema } from "./fields.js";

/** Every numeric range, in one place: the file schema and the environment table both use it. */
export const RANGES = {
  workers: int(1, 64),
  poolSize: int(0, 64),
  callTimeoutMs: int(100, 3_600_000),
  callsPerRun: int(1, 64),
  queuedCallsPerRun: int(1, 10_000),
  createTimeoutMs: int(100, 600_000),
  memoryMaxMb: int(16, 4096),
  maxHeapMb: int(64, 16_384),
  maxResultBytes: int(1024, 256 << 20),
  bodyLimitBytes: int(1024, 256 << 20),
  maxConcurrentRequests: int(1, 10_000),
  llmTimeoutMs: int(1000, 3_600_000),
  llmMaxAttempts: int(1, 10),
  embeddingDimensions: int(1, 65_536),
  storeTimeoutMs: int(100, 3_600_000),
} as const;

/** An Extism host's log level (runtime/plugins/extism-abi.ts). */
export const ExtismLogLevelSchema = v.picklist(EXTISM_LOG_LEVELS, `expected ${EXTISM_LOG_LEVELS.join(", ")}`);

/** The embeddings model's name as its server knows it (`text-embedding-3-small`, `nomic-embed-text`). */
export const EmbeddingModelSchema = v.pipe(v.string("expected a model name"), v.minLength(1, "expected a model name"), v.maxLength(200, "expected a model name of at most 200 characters"));

const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(v.optional(schema), v.description(text));

const StoreSchema = strictObject({
  url: described(StoreUrlSchema, "the store; default file:<data_dir>/clawhive.db. Env CLAWHIVE_STORE_URL"),
  auth_token: described(TokenSchema, "token of a libSQL server; prefer env CLAWHIVE_STORE_AUTH_TOKEN over writing it here"),
  timeout_ms: described(RANGES.storeTimeoutMs, "the deadline of one store call (statement, batch, transaction round trip); default 10000. Env CLAWHIVE_STORE_TIMEOUT_MS"),
});

const CorsSchema = strictObject({
  origins: described(v.array(OriginSchema, "expected a list of origins"), "browser origins allowed to call the API; empty (the default) turns CORS off. Env CLAWHIVE_CORS_ORIGINS (comma-separated)"),
});

const ServerSchema = strictObject({
  listen: described(ListenSchema, "address of the HTTP API; default 127.0.0.1:7878. Env CLAWHIVE_LISTEN"),
  allow_non_loopback: described(BoolSchema, "must be true to listen on an address other than loopback. Env CLAWHIVE_ALLOW_NON_LOOPBACK"),
  body_limit_bytes: described(RANGES.bodyLimitBytes, "largest request body; default 1048576. Env CLAWHIVE_BODY_LIMIT_BYTES"),
  max_concurrent_requests: described(RANGES.maxConcurrentRequests, "requests served at once, beyond which the API answers 429; default 64. Env CLAWHIVE_MAX_CONCURRENT_REQUESTS"),
  cors: v.optional(CorsSchema),
  allowed_hosts: described(
    v.array(AllowedHostSchema, "expected a list of host names"),
    "names besides the listen address that requests may carry in Host (a reverse proxy's, a LAN name); any other Host is refused (DNS rebinding). Env CLAWHIVE_ALLOWED_HOSTS (comma-separated)",
  ),
  metrics_token: described(MetricsTokenSchema, "a bearer token GET /metrics then requires; default none. Prefer env CLAWHIVE_METRICS_TOKEN over writing it here"),
});

const SandboxSchema = strictObject({
  workers: described(RANGES.workers, "worker threads running plugin instances; default min(2, CPUs). Env CLAWHIVE_WORKERS"),
  pool_size: described(RANGES.poolSize, "unbound instances kept ready per plugin; 0 turns the pool off; default 1. Env CLAWHIVE_POOL_SIZE"),
  call_timeout_ms: described(RANGES.callTimeoutMs, "deadline of one guest call; default 30000. Env CLAWHIVE_CALL_TIMEOUT_MS"),
  max_call_timeout_ms: described(RANGES.callTimeoutMs, "the longest call deadline any agent may ask for (limits.call_timeout_ms above it is cut to it); default 3600000. Env CLAWHIVE_MAX_CALL_TIMEOUT_MS"),
  calls_per_run: described(RANGES.callsPerRun, "guest calls one run may hold in the workers at once; default workers - 1 (at least 1). Env CLAWHIVE_CALLS_PER_RUN"),
  calls_per_agent: described(RANGES.callsPerRun, "guest calls the runs of one agent may hold in the workers at once; default workers - 1 (at least 1). Env CLAWHIVE_CALLS_PER_AGENT"),
  queued_calls_per_run: described(RANGES.queuedCallsPerRun, "guest calls one run may have waiting for its share of the workers; one more is refused; default 64. Env CLAWHIVE_QUEUED_CALLS_PER_RUN"),
  create_timeout_ms: described(RANGES.createTimeoutMs, "deadline of one instantiation; default 10000. Env CLAWHIVE_CREATE_TIMEOUT_MS"),
  memory_max_mb: described(RANGES.memoryMaxMb, "cap of each instance's wasm memory; default 256. Env CLAWHIVE_MEMORY_MAX_MB"),
  max_heap_mb: described(RANGES.maxHeapMb, "JS heap cap of each worker; default 512. Env CLAWHIVE_MAX_HEAP_MB"),
  max_result_bytes: described(RANGES.maxResultBytes, "largest result one guest call may return; default 4194304. Env CLAWHIVE_MAX_RESULT_BYTES"),
  extism_log_level: described(ExtismLogLevelSchema, "the level an Extism plugin's kernel log lines are kept from (trace, debug, info, warn, error or silent), and what its get_log_level answers; default info. Env CLAWHIVE_EXTISM_LOG_LEVEL"),
});

const LlmSchema = strictObject({
  proxy_url: described(UrlSchema, "outbound HTTP(S) proxy for model providers, e.g. http://proxy.internal:3128. Env CLAWHIVE_LLM_PROXY_URL"),
  timeout_ms: described(RANGES.llmTimeoutMs, "deadline of one model call, the whole stream included; default 600000. Env CLAWHIVE_LLM_TIMEOUT_MS"),
  max_attempts: described(RANGES.llmMaxAttempts, "tries of one model call on 429/5xx and dropped connections; default 4. Env CLAWHIVE_LLM_MAX_ATTEMPTS"),
});

/**
 * Each key optional here, so the environment may supply some and the file others; together they
 * must name base_url, model and dimensions (checked in resolve.ts, naming the missing field).
 */
const EmbeddingsSchema = strictObject({
  base_url: described(UrlSchema, "OpenAI-compatible embeddings endpoint up to /v1, e.g. https://api.openai.com/v1. Env CLAWHIVE_MEMORY_EMBEDDINGS_URL"),
  model: described(EmbeddingModelSchema, "the embeddings model, e.g. text-embedding-3-small. Env CLAWHIVE_MEMORY_EMBEDDINGS_MODEL"),
  dimensions: described(RANGES.embeddingDimensions, "the vector length the model returns, e.g. 1536. Env CLAWHIVE_MEMORY_EMBEDDINGS_DIMENSIONS"),
  api_key_secret: described(SecretNameSchema, "the stored secret holding the API key; none for a local server without one. Env CLAWHIVE_MEMORY_EMBEDDINGS_KEY_SECRET"),
});

const MemorySchema = strictObject({
  embeddings: described(EmbeddingsSchema, "vector search over memory; without it, memory search is by keyword only"),
});

const SecretsSchema = strictObject({
  key_file: described(PathSchema, "file holding the secret key (base64 of 32 bytes); default <data_dir>/secret.key. Env CLAWHIVE_SECRET_KEY_FILE"),
  refuse_transformed_outputs: described(
    BoolSchema,
    "refuse, as the tool's error secret_in_output, an output holding a secret its plugin or MCP server was given in a transformed spelling (reversed, case, base64, hex, escapes, ROT13, separators, split across fields; docs/security.md); default false. Env CLAWHIVE_REFUSE_TRANSFORMED_SECRETS",
  ),
});

const MailSchema = v.variant(
  "backend",
  [
    strictObject({ backend: v.literal("maildir"), dir: described(PathSchema, "the Maildir; default <data_dir>/mail") }),
    strictObject({
      backend: v.literal("gmail"),
      token_secret: described(SecretNameSchema, "the stored secret holding the OAuth token; default gmail-token"),
      base_url: v.optional(UrlSchema),
    }),
  ],
  "expected backend maildir or gmail",
);
const CalendarSchema = v.variant(
  "backend",
  [
    strictObject({
      backend: v.literal("ics"),
      dir: described(PathSchema, "folder of .ics files; default <data_dir>/calendars"),
      time_zone: described(v.pipe(v.string(), v.minLength(1)), "IANA time zone of floating times, e.g. Europe/Paris"),
    }),
    strictObject({
      backend: v.literal("google"),
      token_secret: described(SecretNameSchema, "the stored secret holding the OAuth token; default google-calendar-token"),
      base_url: v.optional(UrlSchema),
    }),
  ],
  "expected backend ics or google",
);

const LogSchema = strictObject({
  level: described(v.picklist(["fatal", "error", "warn", "info", "debug", "trace", "silent"], "expected fatal, error, warn, info, debug, trace or silent"), "least severe level written; default info (serve). Env CLAWHIVE_LOG_LEVEL"),
  format: described(v.picklist(["json", "pretty"], "expected json or pretty"), "json (one object a line) or pretty; default pretty on a terminal, json otherwise"),
});

const TelemetrySchema = strictObject({
  otlp_endpoint: described(UrlSchema, "OTLP/HTTP traces endpoint, e.g. http://127.0.0.1:4318/v1/traces; tracing is off unless set"),
  service_name: described(v.pipe(v.string(), v.minLength(1), v.maxLength(100)), "service.name of the spans; default clawhive"),
});

const ConsoleSchema = strictObject({
  public_url: described(UrlSchema, "the console's address as people reach it; push messages link to <public_url>/approvals/:id. Default the server's own listen URL"),
});

export const ConfigFileSchema = strictObject({
  $schema: described(v.string(), "the JSON Schema of this file, for editors"),
  data_dir: described(PathSchema, "where state lives; default ./.clawhive. Env CLAWHIVE_DATA_DIR"),
  agents_dir: described(PathSchema, "agent manifests; default the project's capabilities/. Env CLAWHIVE_AGENTS_DIR"),
  build_cache_dir: described(PathSchema, "node-local cache of plugin builds; default the project's .clawhive/build. Env CLAWHIVE_BUILD_CACHE"),
  store: v.optional(StoreSchema),
  server: v.optional(ServerSchema),
  sandbox: v.optional(SandboxSchema),
  secrets: v.optional(SecretsSchema),
  llm: v.optional(LlmSchema),
  memory: v.optional(MemorySchema),
  mail: described(MailSchema, "mail backend; default a Maildir under the data dir. Env CLAWHIVE_MAIL_BACKEND"),
  calendar: described(CalendarSchema, "calendar backend; default .ics files under the data dir. Env CLAWHIVE_CALENDAR_BACKEND"),
  log: v.optional(LogSchema),
  telemetry: v.optional(TelemetrySchema),
  webhooks: described(v.array(WebhookFileSchema, "expected a list of webhooks"), "receivers of approval.requested, approval.decided and run.ended: signed JSON, a Slack or Teams message, or a Telegram bot's message"),
  console: v.optional(ConsoleSchema),
});

export type ConfigFile = v.InferOutput<typeof ConfigFileSchema>;
export type MailFileConfig = v.InferOutput<typeof MailSchema>;
export type CalendarFileConfig = v.InferOutput<typeof CalendarSchema>;
export { MailSchema, CalendarSchema };
