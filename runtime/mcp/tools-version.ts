/**
 * One cheap look at what an MCP session's tools are built from: the installed plugins (name,
 * blob, last change) and the MCP pins of its agent, in a single statement. A session compares
 * it before every `tools/call` and reloads plugins and pins only when it changed, so another
 * process or node installing, upgrading or removing a plugin, or accepting a server's new
 * definitions, is seen by the next call without two registry reads on every call.
 */
import type { Store } from "../store/index.js";

const PROBE = `SELECT
  (SELECT group_concat(name_key || ':' || blob_sha256 || ':' || updated_at, ',')
     FROM (SELECT name_key, blob_sha256, updated_at FROM plugins ORDER BY name_key)) AS plugins,
  (SELECT group_concat(server || ':' || spec_hash || ':' || accepted_at, ',')
     FROM (SELECT server, spec_hash, accepted_at FROM mcp_pins WHERE agent = ? ORDER BY server)) AS pins`;

/** The version of `agent`'s tool sources in `store`: equal strings, nothing changed. */
export async function toolsVersion(store: Store, agent: string): Promise<string> {
  const row = (await store.execute({ sql: PROBE, args: [agent] })).rows[0];
  // JSON keeps the two lists apart whatever their text holds.
  return JSON.stringify([row?.plugins ?? null, row?.pins ?? null]);
}
