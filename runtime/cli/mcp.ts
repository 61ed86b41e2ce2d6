import { userInfo } from "node:os";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { InvalidInputError } from "../errors.js";
import { McpSession } from "../mcp/index.js";
import { parseCommandArgs } from "./args.js";
import { openRuntime, STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";
import { VERSION } from "./version.js";
import { flushTracing } from "../telemetry/tracing.js";

export const mcpHelp = `clawhive mcp — serve an agent's tools to an MCP client; review an agent's MCP servers

  clawhive mcp serve --agent NAME [--call-timeout MS]
  clawhive mcp review AGENT SERVER [--accept] [--json] [--server URL]

  review starts the agent's MCP server SERVER (confined, as its runs do), lists its tools and
  shows how they differ from the definitions accepted before (+ new, - gone, ~ changed). Only
  accepted, unchanged tools are offered to the agent's runs; --accept (or a 'y' at the prompt)
  accepts exactly what is shown. Exit 3: changes left unaccepted.

  Speaks MCP over stdin/stdout, for a client that launches it (Claude Code, Claude Desktop,
  Cursor, VS Code, …). The session is one run of the agent: its tools are the agent's, every
  call goes through its grants, approvals and the audit log, and the run ends (with its
  least-privilege report) when the client disconnects. A Guarded call asks you through the
  client (MCP elicitation) when the client can ask; otherwise it waits for
  'clawhive approvals approve ID' within the call's deadline. Nothing but MCP is written to
  stdout; progress and errors go to stderr.

  The HTTP API serves the same at /mcp?agent=NAME (see docs/mcp.md).

  --agent NAME      the agent whose tools are served (capabilities/NAME.yaml or stored)
  --agents DIR      where agent manifests live (env CLAWHIVE_AGENTS_DIR)
  --call-timeout MS deadline of one call, waiting for a person included (default 600000)
${STORE_FLAGS_HELP}

  Exit codes: 0 the client disconnected; 2 bad usage or an unknown agent.`;

export async function mcpCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "review") return (await import("./mcp-review.js")).mcpReviewCommand(rest);
  if (sub !== "serve") throw new InvalidInputError(`usage: clawhive mcp serve --agent NAME | clawhive mcp review AGENT SERVER${sub === undefined ? "" : ` (unknown subcommand ${JSON.stringify(sub)})`}`);
  const { values, positionals } = parseCommandArgs(rest, {
    agent: { type: "string" },
    agents: { type: "string" },
    "call-timeout": { type: "string" },
    ...STORE_FLAGS,
  });
  if (positionals.length > 0) throw new InvalidInputError(`unexpected argument ${JSON.stringify(positionals[0])}: usage: clawhive mcp serve --agent NAME`);
  const agent = values.agent as string | undefined;
  if (!agent) throw new InvalidInputError("--agent: name the agent whose tools the session serves", { field: "agent" });
  const callTimeout = values["call-timeout"] === undefined ? undefined : Number(values["call-timeout"]);
  if (callTimeout !== undefined && !(Number.isInteger(callTimeout) && callTimeout > 0)) throw new InvalidInputError("--call-timeout: expected milliseconds > 0", { field: "call-timeout" });
  // A server for many calls: its instances are readied while the client initializes.
  const runtime = await openRuntime(values, { pooled: true });
  try {
    const session = await McpSession.open(runtime, {
      agent,
      version: VERSION,
      // Whoever launched this process holds the store: the person at the client decides.
      mayApprove: true,
      decidedBy: `mcp-stdio:${userInfo().username}`,
      clientLabel: "stdio",
      ...(callTimeout === undefined ? {} : { callTimeoutMs: callTimeout }),
    });
    const transport = new StdioServerTransport();
    const closed = new Promise<void>((resolve) => {
      transport.onclose = () => resolve();
      process.stdin.once("end", () => resolve());
      process.once("SIGINT", () => resolve());
      process.once("SIGTERM", () => resolve());
    });
    await session.connect(transport, "pipe");
    await closed;
    await session.close();
    // The session's spans go now: a client kills a server it closed within seconds (SIGTERM after
    // 2 s, SIGKILL after 4 s in the SDK's stdio client), before the runtime below has closed.
    await flushTracing().catch(() => undefined);
    return 0;
  } finally {
    await runtime.close();
  }
}
