/** `clawhive plugin upgrades | accept NAME | reject NAME`: widening upgrades kept for a person's decision. */
import type * as v from "valibot";
import type { PendingUpgradeSchema, PluginInstalled } from "../api/schemas/resources.js";
import type { ClawhiveClient } from "../client/client.js";
import { InvalidInputError } from "../errors.js";
import { parseCommandArgs } from "./args.js";
import { SERVER_FLAGS } from "./client.js";
import { printInstall, reportOf } from "./plugin-view.js";
import { inert, jsonOut } from "./render.js";
import { STORE_FLAGS } from "./store-path.js";

type PendingView = v.InferInput<typeof PendingUpgradeSchema>;
type Plugins = <T>(values: Record<string, unknown>, body: (client: ClawhiveClient) => Promise<T>, options?: { existing?: boolean }) => Promise<T>;

export const pendingUpgradesHelp = `  clawhive plugin upgrades [--json]            pending widening upgrades and their permission diffs
  clawhive plugin accept NAME [--json]         accept NAME's pending upgrade (verified again)
  clawhive plugin reject NAME                  drop NAME's pending upgrade`;

/** Lists the pending upgrades, each with its diff (`+` widens, `-` narrows). */
export async function pendingUpgrades(argv: string[], withPlugins: Plugins): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  if (positionals.length > 0) throw new InvalidInputError("usage: clawhive plugin upgrades [--json]");
  const upgrades = await withPlugins(values, async (client) => (await client.request<{ upgrades: PendingView[] }>("GET", "/v1/plugins/upgrades")).upgrades, { existing: true });
  if (values.json === true) {
    console.log(jsonOut(upgrades));
    return 0;
  }
  if (upgrades.length === 0) console.log("no pending upgrades");
  for (const u of upgrades) {
    console.log(`${u.name} ${u.installed_version} → ${u.version}  proposed by ${inert(u.proposed_by)} at ${u.proposed_at}, kept until ${u.expires_at}`);
    for (const line of u.diff.lines) console.log(`  ${inert(line)}`);
  }
  if (upgrades.length > 0) console.log("accept one with 'clawhive plugin accept NAME', or drop it with 'clawhive plugin reject NAME'");
  return 0;
}

/** Accepts or rejects the pending upgrade of one plugin. */
export async function decidePendingUpgrade(decision: "accept" | "reject", argv: string[], withPlugins: Plugins): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const [given, ...extra] = positionals;
  if (!given || extra.length > 0) throw new InvalidInputError(`usage: clawhive plugin ${decision} NAME`, { field: "name" });
  const name = given.toLowerCase();
  const path = `/v1/plugins/${encodeURIComponent(name)}/upgrade`;
  if (decision === "accept") {
    const answer = await withPlugins(values, (client) => client.request<v.InferInput<typeof PluginInstalled>>("POST", `${path}/accept`), { existing: true });
    printInstall(reportOf(answer), values.json === true);
    return 0;
  }
  const rejected = await withPlugins(values, async (client) => (await client.request<{ rejected: PendingView }>("DELETE", path)).rejected, { existing: true });
  console.log(`rejected the pending upgrade of ${rejected.name} to ${rejected.version}; ${rejected.name}@${rejected.installed_version} stays installed`);
  return 0;
}
