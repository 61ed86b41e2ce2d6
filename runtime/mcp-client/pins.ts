/**
 * Pinned tool definitions, per agent and server, in the store (table `mcp_pins`): what a person
 * accepted, with which program or endpoint (`spec_hash`), when and by whom. Only pinned tools
 * are offered; a tool whose live definition no longer matches its pin is refused until the
 * diff is accepted again. Every runtime node on the store sees the same pins.
 */
import { applyMigrations, type Clock, type Migration, type Store } from "../store/index.js";
import type { McpToolDefinition } from "./definitions.js";

export const mcpClientMigrations: readonly Migration[] = [
  {
    room: "mcp-client",
    version: 1,
    name: "create mcp_pins (issue 17)",
    statements: [
      `CREATE TABLE mcp_pins (
        agent TEXT NOT NULL,
        server TEXT NOT NULL,
        spec_hash TEXT NOT NULL,
        tools TEXT NOT NULL,
        accepted_at INTEGER NOT NULL,
        accepted_by TEXT NOT NULL,
        PRIMARY KEY (agent, server)
      ) STRICT`,
    ],
  },
];

export interface McpPin {
  agent: string;
  server: string;
  specHash: string;
  tools: McpToolDefinition[];
  acceptedAt: number;
  acceptedBy: string;
}

export class McpPins {
  readonly #store: Store;
  readonly #clock: Clock;

  private constructor(store: Store, clock: Clock) {
    this.#store = store;
    this.#clock = clock;
  }

  static async open(store: Store, options: { clock: Clock }): Promise<McpPins> {
    await applyMigrations(store, mcpClientMigrations, { clock: options.clock });
    return new McpPins(store, options.clock);
  }

  /** Every pin, keyed `agent/server`. */
  async all(): Promise<Map<string, McpPin>> {
    const result = await this.#store.execute("SELECT agent, server, spec_hash, tools, accepted_at, accepted_by FROM mcp_pins");
    return new Map(result.rows.map((row) => {
      const pin: McpPin = {
        agent: String(row.agent),
        server: String(row.server),
        specHash: String(row.spec_hash),
        tools: JSON.parse(String(row.tools)) as McpToolDefinition[],
        acceptedAt: Number(row.accepted_at),
        acceptedBy: String(row.accepted_by),
      };
      return [pinKey(pin.agent, pin.server), pin];
    }));
  }

  async get(agent: string, server: string): Promise<McpPin | undefined> {
    return (await this.all()).get(pinKey(agent, server));
  }

  async put(pin: Omit<McpPin, "acceptedAt">): Promise<McpPin> {
    const acceptedAt = this.#clock.now();
    await this.#store.execute({
      sql: `INSERT INTO mcp_pins (agent, server, spec_hash, tools, accepted_at, accepted_by) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (agent, server) DO UPDATE SET spec_hash = excluded.spec_hash, tools = excluded.tools, accepted_at = excluded.accepted_at, accepted_by = excluded.accepted_by`,
      args: [pin.agent, pin.server, pin.specHash, JSON.stringify(pin.tools), acceptedAt, pin.acceptedBy],
    });
    return { ...pin, acceptedAt };
  }
}

export function pinKey(agent: string, server: string): string {
  return `${agent}/${server}`;
}
