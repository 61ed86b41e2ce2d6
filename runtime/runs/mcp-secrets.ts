/**
 * The stored secrets a run's MCP servers hold: a stdio server is given the ones its `env`
 * names when it starts, a streamable HTTP server is sent its host's credentials with every
 * request, and either may hand them back in any answer. Each answer is reviewed as a
 * plugin's output is (output-review.ts): those secrets redacted, and with the stricter setting
 * an answer holding one transformed refused; every call to such a server counts, in the run's
 * report, as reading them.
 */
import type { McpExecution } from "../mcp-client/index.js";
import type { ActiveToolCall } from "./host-context.js";
import { mcpServerSecrets, refusesTransformed, reviewOutput } from "./output-review.js";
import type { ReportBuilder } from "./report.js";
import type { RunServices, RunSetup } from "./run-setup.js";
import { SecretsRead } from "./secrets-read.js";

export class McpServerSecrets {
  readonly #setup: RunSetup;
  readonly #services: RunServices;
  readonly #held = new Map<string, Promise<{ names: string[]; secrets: SecretsRead }>>();

  constructor(setup: RunSetup, services: RunServices) {
    this.#setup = setup;
    this.#services = services;
  }

  async review(execution: McpExecution, call: { server: string; active: ActiveToolCall; report: Pick<ReportBuilder, "denied" | "secretRead"> }): Promise<McpExecution> {
    const { names, secrets } = await this.#of(call.server);
    const { active, report } = call;
    for (const secret of names) report.secretRead({ toolCallId: active.toolCallId, tool: active.qualifiedName, secret });
    return reviewOutput(execution, { secrets, refuse: refusesTransformed(this.#setup, this.#services), tool: active.qualifiedName, report }) as McpExecution;
  }

  /** Server `server`'s secrets, read once per run. */
  #of(server: string): Promise<{ names: string[]; secrets: SecretsRead }> {
    let held = this.#held.get(server);
    if (held === undefined) {
      held = (async () => {
        const names = mcpServerSecrets(this.#setup.agent.mcp_servers[server], this.#setup.agent.grants["http.fetch"]);
        const secrets = new SecretsRead();
        // One the store cannot give did not reach the server either (it would not have started).
        for (const name of names) await this.#services.secretValue(name).then((value) => secrets.add(name, value), () => undefined);
        return { names, secrets };
      })();
      this.#held.set(server, held);
    }
    return held;
  }
}
