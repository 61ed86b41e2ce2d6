/**
 * The runtime's MCP client: its pins (cached from the store), the live connections of every
 * run (all closed when the runtime closes, so no server outlives it), and the review/accept
 * of a server's definitions — the person's step before its tools are offered, and again after
 * they change.
 */
import type { MountHostGuard } from "../../host-proxies/fs/index.js";
import type { SandboxInfo } from "../../host-proxies/shell/index.js";
import type { AgentManifest } from "../agents/index.js";
import { NotFoundError } from "../errors.js";
import type { Clock, Store } from "../store/index.js";
import type { McpConnection, McpConnectOptions } from "./connection.js";
import { definitionDiff, specHash, type DefinitionDiff, type DefinitionSet } from "./definitions.js";
import { McpClientError } from "./errors.js";
import { McpPins, pinKey, type McpPin } from "./pins.js";

export interface McpClientOptions {
  store: Store;
  clock: Clock;
  sandbox: () => SandboxInfo;
  hostGuard: MountHostGuard;
  secretValue: (name: string) => Promise<string>;
  version: string;
  /** The http proxy's resolver and trust anchors for HTTP servers (tests, private CAs). */
  http?: McpConnectOptions["http"];
  bounds?: McpConnectOptions["bounds"];
}

/** What a review shows: the live definitions against the pin. */
export interface McpReview {
  agent: string;
  server: string;
  /** Undefined when nothing was accepted yet (or for another program or endpoint). */
  pinned: McpPin | undefined;
  diff: DefinitionDiff;
  skipped: DefinitionSet["skipped"];
}

export class McpClient {
  readonly #options: McpClientOptions;
  readonly #pins: McpPins;
  #cache = new Map<string, McpPin>();
  readonly #live = new Set<McpConnection>();

  private constructor(options: McpClientOptions, pins: McpPins) {
    this.#options = options;
    this.#pins = pins;
  }

  static async open(options: McpClientOptions): Promise<McpClient> {
    const client = new McpClient(options, await McpPins.open(options.store, { clock: options.clock }));
    await client.refresh();
    return client;
  }

  /** The pins as of the last refresh, keyed `agent/server`. */
  get pins(): ReadonlyMap<string, McpPin> {
    return this.#cache;
  }

  async refresh(): Promise<void> {
    this.#cache = await this.#pins.all();
  }

  /** A new connection to `server` of `agent`, closed with the runtime at the latest. */
  async connect(agent: AgentManifest, server: string): Promise<McpConnection> {
    const spec = agent.mcp_servers[server];
    if (spec === undefined) throw new NotFoundError(`agent ${agent.name} has no MCP server ${server}; its servers: ${Object.keys(agent.mcp_servers).join(", ") || "none"}`);
    // The MCP SDK loads with the first connection: a process whose agents use no MCP server (most
    // `clawhive call`s) would otherwise pay ~0.25 s of CPU at start to load it.
    const { McpConnection } = await import("./connection.js");
    const connection = await McpConnection.open({
      name: server,
      spec,
      sandbox: this.#options.sandbox(),
      hostGuard: this.#options.hostGuard,
      secretValue: this.#options.secretValue,
      httpGrant: agent.grants["http.fetch"],
      requestTimeoutMs: spec.call_timeout_ms ?? agent.limits.call_timeout_ms,
      version: this.#options.version,
      ...(this.#options.http ? { http: this.#options.http } : {}),
      ...(this.#options.bounds ? { bounds: this.#options.bounds } : {}),
    });
    this.#live.add(connection);
    const close = connection.close.bind(connection);
    connection.close = async () => {
      this.#live.delete(connection);
      await close();
    };
    return connection;
  }

  /** Starts the server, lists its tools and compares them with the pin. */
  async review(agent: AgentManifest, server: string): Promise<McpReview> {
    return (await this.#look(agent, server)).review;
  }

  async #look(agent: AgentManifest, server: string): Promise<{ review: McpReview; current: DefinitionSet }> {
    const connection = await this.connect(agent, server);
    try {
      const current = await connection.definitions();
      const pinned = this.#validPin(agent, server, await this.#pins.get(agent.name, server));
      return { review: { agent: agent.name, server, pinned, diff: definitionDiff(pinned?.tools, current.tools), skipped: current.skipped }, current };
    } finally {
      await connection.close();
    }
  }

  /**
   * Pins the server's current definitions, provided they are still the ones reviewed (`diffHash`
   * from the review): a server that changed in between is refused with the new diff.
   */
  async accept(agent: AgentManifest, server: string, options: { diffHash: string; by: string }): Promise<McpReview> {
    const { review, current } = await this.#look(agent, server);
    if (review.diff.hash !== options.diffHash) {
      throw new McpClientError("mcp_definitions_changed", `MCP server ${server} of agent ${agent.name}: its definitions are not the ones reviewed (diff ${review.diff.hash}, not ${options.diffHash}); review them again`);
    }
    const pinned = await this.#pins.put({ agent: agent.name, server, specHash: specHash(agent.mcp_servers[server]!), tools: current.tools, acceptedBy: options.by });
    await this.refresh();
    return { ...review, pinned };
  }

  /** Closes every live connection (the runtime is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.#live].map((c) => c.close().catch(() => undefined)));
  }

  #validPin(agent: AgentManifest, server: string, pin: McpPin | undefined): McpPin | undefined {
    return pin !== undefined && pin.specHash === specHash(agent.mcp_servers[server]!) ? pin : undefined;
  }
}

export { pinKey };
