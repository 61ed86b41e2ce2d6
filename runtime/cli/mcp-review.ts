/**
 * `clawhive mcp review AGENT SERVER [--accept]`: an MCP server's live tool definitions against
 * the accepted ones; `--accept` (or a 'y' at the prompt in a terminal) pins exactly the
 * definitions shown — as a widening plugin upgrade is accepted.
 */
import { createInterface } from "node:readline/promises";
import { userInfo } from "node:os";
import { InvalidInputError } from "../errors.js";
import type { reviewView } from "../api/routes/mcp-servers.js";
import { parseCommandArgs } from "./args.js";
import { segment, SERVER_FLAGS } from "./client.js";
import { withClient } from "./command-client.js";
import { inert, jsonOut } from "./render.js";
import { STORE_FLAGS } from "./store-path.js";

type ReviewView = ReturnType<typeof reviewView>;

export async function mcpReviewCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, agents: { type: "string" }, accept: { type: "boolean" }, json: { type: "boolean" } });
  const [agentName, server, ...rest] = positionals;
  if (agentName === undefined || server === undefined || rest.length > 0) throw new InvalidInputError("usage: clawhive mcp review AGENT SERVER [--accept] [--json]");
  const path = `/v1/agents/${segment(agentName)}/mcp-servers/${segment(server)}`;
  // On the store the acceptance is recorded as the person's; through a server, as the token's.
  return withClient(
    values,
    async (client) => {
      const { review } = await client.request<{ review: ReviewView }>("GET", path);
      return decide(review, values, async () => (await client.request<{ review: ReviewView }>("POST", `${path}/accept`, { json: { diff_hash: review.diff.hash } })).review);
    },
    { actor: `cli:${userInfo().username}` },
  );
}

/** Prints the review; accepts on --accept or a 'y'; exit 3 when changes were left unaccepted. */
async function decide(review: ReviewView, values: Readonly<Record<string, unknown>>, accept: () => Promise<ReviewView>): Promise<number> {
  const json = values.json === true;
  const pending = review.diff.lines.length > 0;
  if (!json || !values.accept) print(review, json);
  if (!pending) return 0;
  if (values.accept !== true) {
    if (json || !process.stdin.isTTY || !process.stderr.isTTY) {
      console.error("not accepted: re-run with --accept to offer these definitions to the agent's runs");
      return 3;
    }
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await prompt.question("Accept these tool definitions? [y/N] ");
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) {
      console.error("not accepted");
      return 3;
    }
  }
  const accepted = await accept();
  if (json) console.log(jsonOut(accepted));
  else console.error(`accepted: ${accepted.pinned?.tools.length ?? 0} tools of ${accepted.server} are offered to ${accepted.agent}'s runs`);
  return 0;
}

function print(review: ReviewView, json: boolean): void {
  if (json) return console.log(jsonOut(review));
  const when = review.pinned === null ? "nothing accepted yet" : `accepted ${review.pinned.accepted_at} by ${review.pinned.accepted_by}`;
  console.error(`MCP server ${review.server} of agent ${review.agent} (${when}):`);
  if (review.diff.lines.length === 0) console.error("  no change: every tool is as accepted");
  for (const line of review.diff.lines) console.error(`  ${inert(line)}`);
  for (const s of review.skipped) console.error(`  (not offered: ${s.tool}: ${s.reason})`);
}
