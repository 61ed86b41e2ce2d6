/**
 * The ClawhiveClient a command goes through: the server `--server` (or CLAWHIVE_SERVER) names,
 * else a runtime on the store the flags name, opened in this process for the one command.
 * Either way the command's code is the same: it asks the client.
 */
import type { RuntimeOptions } from "../runtime.js";
import { ApiClawhiveClient, type ClawhiveClient } from "../client/client.js";
import { NotFoundError } from "../errors.js";
import { ApiClient } from "../client/transport.js";
import { resolveServer } from "./client.js";
import type { OpenRuntimeExtra } from "./store-path.js";

/** Who acts on the store when the system cannot name its user (a decision asks for --by then). */
const LOCAL_USER = "local user";

export interface CommandClientOptions extends Pick<RuntimeOptions, "skillsDir" | "secretKeyFile" | "memory" | "pluginDirs">, Pick<OpenRuntimeExtra, "oneShot"> {
  /**
   * The command reads or changes what is already there (approvals, runs, audit, secrets …): on
   * the store, a file store that does not exist is refused (`not_found`, exit 1) instead of
   * being created empty.
   */
  readonly existing?: boolean;
  /**
   * The command reads runs, approvals or the audit log, or decides approvals: on the store no
   * runtime is opened (no plugin installed, nothing driven, the audit log left as it was); the
   * API's routes for these answer over the store alone, which may be read-only. Implies `existing`.
   */
  readonly storeOnly?: boolean;
  /** Who decides, on the store (`--by`, else the user's name); a server records the token. */
  readonly actor?: string;
  /**
   * On the store, continue a run in this process as soon as its approval is decided (`run`,
   * `chat` and `runs watch`, which follow a run to its end); by default a decided run is left
   * to whichever runtime is asked to continue it (`clawhive resume`) or drives it next (a server).
   */
  readonly continueDecidedRuns?: boolean;
}

export async function commandClient(values: Readonly<Record<string, unknown>>, options: CommandClientOptions = {}): Promise<ClawhiveClient> {
  const target = await resolveServer(values);
  if (target !== undefined) return new ApiClawhiveClient(new ApiClient(target), { target: target.url });
  // The runtime and the store are loaded only for a command that opens them here: through a
  // server the process is only a client, and loading them was most of its CPU.
  const [{ openExistingStore, openRuntime, requireExistingStore }, { knownUser }] = await Promise.all([import("./store-path.js"), import("./user.js")]);
  const actor = options.actor === undefined ? {} : { actor: options.actor };
  // Each client's routes only: the store's few, or the runtime's many.
  if (options.storeOnly) {
    const { storeClient } = await import("../client/store-reader.js");
    return storeClient(await openExistingStore(values), { ownsStore: true, ...actor });
  }
  const { inProcessClient } = await import("../client/in-process.js");
  if (options.existing) requireExistingStore(values);
  const { existing: _existing, actor: _actor, storeOnly: _storeOnly, continueDecidedRuns = false, ...runtimeOptions } = options;
  // A decided run is continued here only by a command that follows its run (run, chat), as the
  // approval hook below does: another command's runtime lives for one task, not for others' runs.
  // A command's runtime lives for its one task: runs other nodes left are for a server to take over.
  const runtime = await openRuntime(values, { ...runtimeOptions, continueDecidedRuns, adoptOrphans: false });
  // On the store the caller is a person, never a token: what they start is owned by no token
  // (so a later command continues their conversation), and they decide under their own name.
  return inProcessClient(runtime, { ownsRuntime: true, continueDecidedRuns, actor: options.actor ?? knownUser() ?? LOCAL_USER });
}

/** Runs `body` with the command's client, closed after (a runtime opened for it is closed too). */
export async function withClient<T>(values: Readonly<Record<string, unknown>>, body: (client: ClawhiveClient) => Promise<T>, options: CommandClientOptions = {}): Promise<T> {
  const client = await commandClient(values, options);
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}

/**
 * `withClient` for a command that reads or changes what is there, where no store is an answer
 * rather than a usage error: it is said on stderr and the exit code is 1.
 */
export async function withExistingClient(values: Readonly<Record<string, unknown>>, body: (client: ClawhiveClient) => Promise<number>, options: CommandClientOptions = {}): Promise<number> {
  let client: ClawhiveClient;
  try {
    client = await commandClient(values, { ...options, existing: true });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    console.error(`clawhive: ${error.message}`);
    return 1;
  }
  try {
    return await body(client);
  } finally {
    await client.close();
  }
}
