import type { ExtismLogLevel } from "../plugins/extism-abi.js";
import type { CalendarConfig, MailConfig } from "../runs/backends.js";
import type { EmbeddingsConfig } from "../runs/run-memory.js";
import type { WebhookTarget } from "../webhooks/config.js";

/** Where a setting's value came from, for messages and for `clawhive config`-style displays. */
export type ConfigSource =
  | { readonly kind: "default" }
  /** `file` as shown to people: relative to the cwd when inside it, else absolute. */
  | { readonly kind: "file"; readonly file: string }
  | { readonly kind: "env"; readonly name: string }
  /** The flag's name without dashes, e.g. `data-dir`. */
  | { readonly kind: "flag"; readonly name: string };

/**
 * The runtime's configuration, validated and resolved: every default filled in, every path
 * absolute, the store URL canonical. Built once at start by `loadConfig`; passed in, never read
 * from a global.
 */
export interface ClawhiveConfig {
  /** The config file read (absolute), or `null` when there was none. */
  readonly file: string | null;
  readonly dataDir: string;
  readonly agentsDir: string;
  readonly buildCacheDir: string;
  readonly store: { readonly url: string; readonly authToken: string | undefined; readonly timeoutMs: number | undefined };
  readonly server: {
    readonly host: string;
    readonly port: number;
    /** Set explicitly; `host` may be non-loopback only when it is true. */
    readonly allowNonLoopback: boolean;
    readonly bodyLimitBytes: number;
    readonly maxConcurrentRequests: number;
    /** Exact origins allowed by CORS; empty means CORS is off. */
    readonly corsOrigins: readonly string[];
    /** Host names besides the listen address that requests may carry (DNS-rebinding defence). */
    readonly allowedHosts: readonly string[];
    /** The bearer token `GET /metrics` requires; undefined: none. */
    readonly metricsToken: string | undefined;
  };
  readonly sandbox: {
    readonly workers: number;
    readonly poolSize: number;
    readonly callTimeoutMs: number;
    /** The operator's cap over every agent's `limits.call_timeout_ms`. */
    readonly maxCallTimeoutMs: number;
    /** Fair share of the workers: calls one run, and one agent's runs, may hold at once. */
    readonly callsPerRun: number;
    readonly callsPerAgent: number;
    readonly queuedCallsPerRun: number;
    readonly createTimeoutMs: number;
    readonly memoryMaxMb: number;
    readonly maxHeapMb: number;
    readonly maxResultBytes: number;
    /** What an Extism plugin's `get_log_level` answers; its kernel log lines below it are dropped. */
    readonly extismLogLevel: ExtismLogLevel | "silent";
  };
  /** `refuseTransformedOutputs`: refuse outputs holding a secret their tool was given, transformed. */
  readonly secrets: { readonly keyFile: string | undefined; readonly refuseTransformedOutputs: boolean };
  /** Structured logs: level and format (undefined: info, pretty on a terminal). */
  readonly log: { readonly level: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent" | undefined; readonly format: "json" | "pretty" | undefined };
  /** Webhook receivers (`webhooks:`), each checked at load. */
  readonly webhooks: readonly WebhookTarget[];
  /** The console: `publicUrl` is where push messages link (`<publicUrl>/approvals/:id`). */
  readonly console: { readonly publicUrl: string };
  /** OpenTelemetry traces: off unless `otlpEndpoint` is set. */
  readonly telemetry: { readonly otlpEndpoint: string | undefined; readonly serviceName: string };
  /** Model providers: outbound proxy and retry settings (undefined: the defaults). */
  readonly llm: { readonly proxyUrl: string | undefined; readonly timeoutMs: number | undefined; readonly maxAttempts: number | undefined };
  /** Long-term memory: the embeddings endpoint, or `undefined` for keyword search only. */
  readonly memory: { readonly embeddings: EmbeddingsConfig | undefined };
  /** `undefined`: the runtime's default (a Maildir under the data dir). */
  readonly mail: MailConfig | undefined;
  /** `undefined`: the runtime's default (.ics files under the data dir). */
  readonly calendar: CalendarConfig | undefined;
  /**
   * Where each setting came from, keyed as in the file (`sandbox.pool_size`), except the listen
   * address: `server.host` and `server.port`, which `--host`/`--port` may set apart.
   */
  readonly sources: Readonly<Record<string, ConfigSource>>;
}
