/**
 * From the merged settings to a `ClawhiveConfig`: defaults filled in, paths made absolute
 * against where they were written, the store URL canonical, and the checks that span settings.
 */
import { webhookTarget, type WebhookFileEntry } from "../webhooks/config.js";
import { availableParallelism } from "node:os";
import { dirname, join, resolve } from "node:path";
import { defaultBuildCacheDir, PROJECT_ROOT } from "../plugins/locations.js";
import { defaultDataDir } from "./data-dir.js";
import type { CalendarConfig, MailConfig } from "../runs/backends.js";
import { parseStoreUrl } from "../store/index.js";
import type { ConfigIssue } from "./errors.js";
import { DEFAULT_HOST, DEFAULT_PORT, formatListen, isLoopback } from "./listen.js";
import type { Layer, Leaf } from "./overrides.js";
import type { CalendarFileConfig, MailFileConfig } from "./schema.js";
import type { EmbeddingsConfig } from "../runs/run-memory.js";
import type { ClawhiveConfig, ConfigSource } from "./types.js";

/** The defaults, as documented in docs/configuration.md (and kept equal to the sandbox's own). */
export const DEFAULTS = {
  dataDir: ".clawhive",
  storeFile: "clawhive.db",
  host: DEFAULT_HOST,
  port: DEFAULT_PORT,
  bodyLimitBytes: 1 << 20,
  maxConcurrentRequests: 64,
  workers: () => Math.min(2, availableParallelism()),
  poolSize: 1,
  callTimeoutMs: 30_000,
  maxCallTimeoutMs: 3_600_000,
  queuedCallsPerRun: 64,
  createTimeoutMs: 10_000,
  memoryMaxMb: 256,
  maxHeapMb: 512,
  maxResultBytes: 4 << 20,
} as const;

/** Reads merged settings, noting where each came from. */
interface Reader {
  leaf(key: string): Leaf | undefined;
  value<T>(key: string, fallback: T): T;
  /** An absolute path: relative ones resolve against the file's folder when written there, else the cwd. */
  path(key: string, fallback: () => string): string;
  base(leaf: Leaf): string;
}

export function resolveConfig(layer: Layer, options: { cwd: string; file: string | null; issues: ConfigIssue[] }): ClawhiveConfig {
  const { cwd, file } = options;
  const sources: Record<string, ConfigSource> = {};
  const read: Reader = {
    leaf(key) {
      const found = layer.get(key);
      sources[key] = found?.source ?? { kind: "default" };
      return found;
    },
    value: (key, fallback) => (read.leaf(key)?.value as typeof fallback | undefined) ?? fallback,
    path(key, fallback) {
      const found = read.leaf(key);
      return found ? resolve(read.base(found), found.value as string) : fallback();
    },
    base: (found) => (found.source.kind === "file" && file !== null ? dirname(file) : cwd),
  };
  const dataDir = read.path("data_dir", () => defaultDataDir(cwd));
  const storeLeaf = read.leaf("store.url");
  const keyFile = read.leaf("secrets.key_file");
  const server = serverSettings(read, layer, options.issues);
  return {
    file,
    dataDir,
    agentsDir: read.path("agents_dir", () => join(PROJECT_ROOT, "capabilities")),
    buildCacheDir: read.path("build_cache_dir", () => defaultBuildCacheDir(dataDir)),
    store: {
      url: storeLeaf ? canonicalStoreUrl(storeLeaf.value as string, read.base(storeLeaf)) : `file:${join(dataDir, DEFAULTS.storeFile)}`,
      authToken: read.value<string | undefined>("store.auth_token", undefined),
      timeoutMs: read.value<number | undefined>("store.timeout_ms", undefined),
    },
    server,
    console: { publicUrl: read.value<string | undefined>("console.public_url", undefined) ?? `http://${formatListen({ host: server.host, port: server.port })}` },
    sandbox: {
      workers: read.value("sandbox.workers", DEFAULTS.workers()),
      poolSize: read.value("sandbox.pool_size", DEFAULTS.poolSize as number),
      callTimeoutMs: read.value("sandbox.call_timeout_ms", DEFAULTS.callTimeoutMs as number),
      maxCallTimeoutMs: read.value("sandbox.max_call_timeout_ms", DEFAULTS.maxCallTimeoutMs as number),
      // One worker is left to the others by default (the sandbox's own default).
      callsPerRun: read.value("sandbox.calls_per_run", Math.max(1, read.value("sandbox.workers", DEFAULTS.workers()) - 1)),
      callsPerAgent: read.value("sandbox.calls_per_agent", Math.max(1, read.value("sandbox.workers", DEFAULTS.workers()) - 1)),
      queuedCallsPerRun: read.value("sandbox.queued_calls_per_run", DEFAULTS.queuedCallsPerRun as number),
      createTimeoutMs: read.value("sandbox.create_timeout_ms", DEFAULTS.createTimeoutMs as number),
      memoryMaxMb: read.value("sandbox.memory_max_mb", DEFAULTS.memoryMaxMb as number),
      maxHeapMb: read.value("sandbox.max_heap_mb", DEFAULTS.maxHeapMb as number),
      maxResultBytes: read.value("sandbox.max_result_bytes", DEFAULTS.maxResultBytes as number),
      extismLogLevel: read.value<ClawhiveConfig["sandbox"]["extismLogLevel"]>("sandbox.extism_log_level", "info"),
    },
    secrets: { keyFile: keyFile ? resolve(read.base(keyFile), keyFile.value as string) : undefined, refuseTransformedOutputs: read.value("secrets.refuse_transformed_outputs", false) },
    llm: {
      proxyUrl: read.value<string | undefined>("llm.proxy_url", undefined),
      timeoutMs: read.value<number | undefined>("llm.timeout_ms", undefined),
      maxAttempts: read.value<number | undefined>("llm.max_attempts", undefined),
    },
    memory: { embeddings: embeddingsConfig(read, options.issues) },
    log: { level: read.value<ClawhiveConfig["log"]["level"]>("log.level", undefined), format: read.value<ClawhiveConfig["log"]["format"]>("log.format", undefined) },
    webhooks: read.value<WebhookFileEntry[]>("webhooks", []).map(webhookTarget),
    telemetry: { otlpEndpoint: read.value<string | undefined>("telemetry.otlp_endpoint", undefined), serviceName: read.value("telemetry.service_name", "clawhive") },
    mail: mailConfig(read.leaf("mail"), read.base),
    calendar: calendarConfig(read.leaf("calendar"), read.base),
    sources,
  };
}

/** The API's settings; a non-loopback host without `allow_non_loopback` is an issue of the host's source. */
function serverSettings(read: Reader, layer: Layer, issues: ConfigIssue[]): ClawhiveConfig["server"] {
  const host = read.value("server.host", DEFAULTS.host as string);
  const port = read.value("server.port", DEFAULTS.port as number);
  const allowNonLoopback = read.value("server.allow_non_loopback", false);
  const hostLeaf = layer.get("server.host");
  if (!allowNonLoopback && !isLoopback(host) && hostLeaf) {
    issues.push({
      source: hostLeaf.source,
      field: hostLeaf.field,
      message: `${formatListen({ host, port })} is not a loopback address: other machines could reach the API; set server.allow_non_loopback: true (env CLAWHIVE_ALLOW_NON_LOOPBACK=1) to listen there`,
    });
  }
  return {
    host,
    port,
    allowNonLoopback,
    bodyLimitBytes: read.value("server.body_limit_bytes", DEFAULTS.bodyLimitBytes as number),
    maxConcurrentRequests: read.value("server.max_concurrent_requests", DEFAULTS.maxConcurrentRequests as number),
    corsOrigins: [...new Set(read.value<string[]>("server.cors.origins", []))],
    allowedHosts: [...new Set(read.value<string[]>("server.allowed_hosts", []))],
    metricsToken: read.value<string | undefined>("server.metrics_token", undefined),
  };
}

const EMBEDDINGS = "memory.embeddings";

/**
 * The embeddings endpoint, when any of its settings is given: base_url, model and dimensions
 * are then all needed, and a missing one is an issue of the source that started the section.
 */
function embeddingsConfig(read: Reader, issues: ConfigIssue[]): EmbeddingsConfig | undefined {
  const leaves = {
    base_url: read.leaf(`${EMBEDDINGS}.base_url`),
    model: read.leaf(`${EMBEDDINGS}.model`),
    dimensions: read.leaf(`${EMBEDDINGS}.dimensions`),
    api_key_secret: read.leaf(`${EMBEDDINGS}.api_key_secret`),
  };
  const given = Object.entries(leaves).find(([, leaf]) => leaf !== undefined);
  if (!given) return undefined;
  const missing = (["base_url", "model", "dimensions"] as const).filter((key) => leaves[key] === undefined);
  for (const key of missing) {
    issues.push({ source: given[1]!.source, field: `${EMBEDDINGS}.${key}`, message: `${EMBEDDINGS}.${key} is missing: ${EMBEDDINGS}.${given[0]} is set, and base_url, model and dimensions go together` });
  }
  if (missing.length > 0) return undefined;
  return {
    baseUrl: leaves.base_url!.value as string,
    model: leaves.model!.value as string,
    dimensions: leaves.dimensions!.value as number,
    ...(leaves.api_key_secret === undefined ? {} : { apiKeySecret: leaves.api_key_secret.value as string }),
  };
}

/** `file:` URLs become absolute (`file:/abs/clawhive.db`); server URLs and `:memory:` stay. */
function canonicalStoreUrl(url: string, cwd: string): string {
  const location = parseStoreUrl(url, { cwd });
  return location.kind === "file" ? location.url : url;
}

function mailConfig(found: Leaf | undefined, base: (leaf: Leaf) => string): MailConfig | undefined {
  if (!found) return undefined;
  const mail = found.value as MailFileConfig;
  if (mail.backend === "maildir") return { backend: "maildir", ...(mail.dir === undefined ? {} : { dir: resolve(base(found), mail.dir) }) };
  return { backend: "gmail", tokenSecret: mail.token_secret ?? "gmail-token", ...(mail.base_url === undefined ? {} : { baseUrl: mail.base_url }) };
}

function calendarConfig(found: Leaf | undefined, base: (leaf: Leaf) => string): CalendarConfig | undefined {
  if (!found) return undefined;
  const calendar = found.value as CalendarFileConfig;
  if (calendar.backend === "ics") {
    return {
      backend: "ics",
      ...(calendar.dir === undefined ? {} : { dir: resolve(base(found), calendar.dir) }),
      ...(calendar.time_zone === undefined ? {} : { timeZone: calendar.time_zone }),
    };
  }
  return { backend: "google", tokenSecret: calendar.token_secret ?? "google-calendar-token", ...(calendar.base_url === undefined ? {} : { baseUrl: calendar.base_url }) };
}
