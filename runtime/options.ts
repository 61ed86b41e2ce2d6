/**
 * What a `Runtime` is opened with, and what starting a run takes. The config room
 * (runtime/config) builds `RuntimeOptions` from the config file, the environment and flags.
 */
import type { AgentManifest } from "./agents/index.js";
import type { LlmProvider } from "./llm/index.js";
import type { CalendarConfig, MailConfig, MailSendConfig } from "./runs/backends.js";
import type { PlannedCall } from "./runs/records.js";
import type { Run } from "./runs/run.js";
import type { EmbeddingsConfig } from "./runs/run-memory.js";
import type { SandboxOptions } from "./sandbox/index.js";
import type { Clock, Store } from "./store/index.js";
import type { McpClientOptions } from "./mcp-client/index.js";

export interface RuntimeOptions {
  /** Where the runtime keeps its state; relative mount paths resolve against it. */
  dataDir: string;
  /** libSQL store: a `file:` path or a server URL. Default `file:<dataDir>/clawhive.db`. */
  storeUrl?: string;
  storeAuthToken?: string;
  /** The deadline of one store call, in ms (default 10 000; see `OpenStoreOptions.timeoutMs`). */
  storeTimeoutMs?: number;
  /**
   * A store already open, used instead of opening `storeUrl` (the runtime closes it). For
   * embedding, and for tests that wrap a store to make it fail on purpose.
   */
  store?: Store;
  /** Agent manifests folder. Default: the project's `capabilities/`. */
  agentsDir?: string;
  sandbox?: SandboxOptions;
  /**
   * Plugin folders the runtime installs itself at start (source folders are built first), kept
   * in step with their folders. Default: the first-party plugins. Every plugin installed in the
   * store is loaded, these and those installed by people.
   */
  pluginDirs?: string[];
  /** Node-local cache of plugin builds. Default: the project's `.clawhive/build`. */
  buildCacheDir?: string;
  /** Mail backend; default: a Maildir at `<dataDir>/mail` (or CLAWHIVE_MAIL_BACKEND=gmail). */
  mail?: MailConfig;
  /** How `mail.send` sends (SMTP or the Gmail API); default: CLAWHIVE_SMTP_HOST / CLAWHIVE_MAIL_SEND=gmail with CLAWHIVE_MAIL_FROM, else none. */
  mailSend?: MailSendConfig;
  /** Calendar backend; default: .ics files in `<dataDir>/calendars` (or CLAWHIVE_CALENDAR_BACKEND=google). */
  calendar?: CalendarConfig;
  /** Secret key (base64 of 32 bytes); default: env CLAWHIVE_SECRET_KEY, else `<dataDir>/secret.key`. */
  secretKey?: string;
  /** A key file to read the secret key from (must exist). */
  secretKeyFile?: string;
  clock?: Clock;
  /** Progress lines for long work (plugin builds). */
  onProgress?: (line: string) => void;
  /**
   * How long this node's hold on a run it drives lasts without renewal (default 15 s): when a
   * node dies, another takes its runs over after this.
   */
  runLeaseMs?: number;
  /**
   * Refuse a tool's output that holds a secret its plugin or MCP server was given, in a
   * transformed spelling (config `secrets.refuse_transformed_outputs`; docs/security.md). Off by
   * default: an agent manifest may turn it on for its own runs.
   */
  refuseTransformedSecrets?: boolean;
  /**
   * A schedule firing claimed this long ago by a node that never recorded its run is started by
   * another node (default 30 s; see `SchedulerOptions.claimTimeoutMs`).
   */
  scheduleClaimTimeoutMs?: number;
  /**
   * The model provider of an agent's runs; default: built from its manifest's `model` block
   * (keys from the secret store). For embedding, tests and benchmarks.
   */
  modelProvider?: (agent: AgentManifest) => LlmProvider;
  /** Skills folder (`<name>/SKILL.md`). Default: the project's `skills/`. */
  skillsDir?: string;
  /** Fire due schedules from this runtime (a long-lived one: `clawhive serve`). Default false. */
  runSchedules?: boolean;
  /**
   * Default true: the runtime continues, in the background, any waiting run of the store whose
   * approval is decided (a server). False: only the runs it is asked to continue (a command
   * that opens the store for one task must not carry other runs on as a side effect).
   */
  continueDecidedRuns?: boolean;
  /**
   * Default true: at each tick the runtime takes over the runs another node left (it died,
   * closed, or its lease ran out), continuing or ending them (a server). False: it carries no
   * other node's run on (a command that opens the store for one task, then exits).
   */
  adoptOrphans?: boolean;
  /** Model providers' outbound proxy and retry settings (config `llm`). */
  llm?: { proxyUrl?: string; timeoutMs?: number; maxAttempts?: number };
  /** Long-term memory: an OpenAI-compatible embeddings endpoint (config `memory.embeddings`); without one, keyword search only. */
  memory?: { embeddings?: EmbeddingsConfig | undefined };
  /** The MCP client's http proxy settings (resolver, trust anchors) and stdio bounds. */
  mcpClient?: Pick<McpClientOptions, "http" | "bounds">;
  /** Called with every run this runtime starts or rebuilds from the store (e.g. metrics). */
  onRun?: (run: Run, how: "started" | "resumed") => void;
}

export interface StartRunOptions {
  agent: string;
  task?: string;
  /** The task's narrower grant (validated to lie within the agent's). */
  grants?: unknown;
  traceId?: string;
  parentRunId?: string;
  /** The API token that asked for it (a client sees only its own runs). */
  ownerToken?: string;
  /** Explicit ToolCalls the run carries out in order (see `submitRun`). */
  plan?: PlannedCall[];
  /** The conversation a model-driven run continues (see `submitRun`). */
  conversationId?: string;
  /**
   * A caller-chosen run id (`run_…`), for a start that must happen at most once (a schedule's
   * firing): a second start with the same id fails `ConflictError` `run_exists`.
   */
  runId?: string;
}

/** `submitRun`: explicit ToolCalls, or task text alone for a run the agent's model drives. */
export type SubmitRunOptions = Omit<StartRunOptions, "plan"> & { toolCalls?: readonly PlannedCall[] };
