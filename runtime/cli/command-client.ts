/**
 * The ClawhiveClient a command goes through: the server `--server` (or CLAWHIVE_SERVER) names,
 * else a runtime on the store the flags name, opened in this process for the one command.
 * Either way the command's code is the same: it asks the client.
 */
import type { RuntimeOptions } from "../runtime.js";
import { ApiClawhiveClient, type ClawhiveClient } from "../client/client.js";
import { inProcessClient } from "../client/in-process.js";
import { ApiClient } from "../client/transport.js";
import { resolveServer } from "./client.js";
import { openRuntime } from "./store-path.js";

export async function commandClient(values: Readonly<Record<string, unknown>>, local: Pick<RuntimeOptions, "skillsDir"> = {}): Promise<ClawhiveClient> {
  const target = await resolveServer(values);
  if (target !== undefined) return new ApiClawhiveClient(new ApiClient(target), { target: target.url });
  return inProcessClient(await openRuntime(values, local), { ownsRuntime: true });
}

/** Runs `body` with the command's client, closed after (a runtime opened for it is closed too). */
export async function withClient<T>(values: Readonly<Record<string, unknown>>, body: (client: ClawhiveClient) => Promise<T>, local: Pick<RuntimeOptions, "skillsDir"> = {}): Promise<T> {
  const client = await commandClient(values, local);
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}
