/**
 * What the configuration (clawhive.yaml, its variables) says to a command that runs work in this
 * process rather than through a server: how its model calls go out (`llm.proxy_url`,
 * `llm.timeout_ms`, `llm.max_attempts`), how its sandbox is set (`sandbox.*`, the pool aside) and
 * where its traces go (`telemetry.*`, started here). `file` is the `--config` a command was given.
 * Where the state lives stays the flags' and variables' (store-path.ts), as for every command.
 */
import { loadConfig, runtimeOptionsFrom, type ClawhiveConfig } from "../config/index.js";
import type { RuntimeOptions } from "../runtime.js";
import { startCommandTracing } from "./command-tracing.js";

export async function commandSettings(options: { file?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<{ llm: NonNullable<RuntimeOptions["llm"]>; sandbox: ClawhiveConfig["sandbox"] }> {
  const config = await loadConfig({ env: options.env ?? process.env, cwd: options.cwd ?? process.cwd(), ...(options.file === undefined ? {} : { file: options.file }) });
  await startCommandTracing(config.telemetry);
  return { llm: runtimeOptionsFrom(config).llm ?? {}, sandbox: config.sandbox };
}
