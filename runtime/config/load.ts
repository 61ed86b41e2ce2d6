import { ConfigError, type ConfigIssue } from "./errors.js";
import { locateConfigFile, readConfigFile } from "./file.js";
import { readEnv, readFlags, type Layer } from "./overrides.js";
import { resolveConfig } from "./resolve.js";
import type { ClawhiveConfig } from "./types.js";

export interface LoadConfigOptions {
  /** The environment to read (`process.env` in the CLI; a plain object in tests). */
  env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths given by flags and variables resolve, and where `clawhive.yaml` is looked for. */
  cwd: string;
  /** The config file (`--config FILE`); otherwise `flags.config`, `CLAWHIVE_CONFIG`, `./clawhive.yaml`. */
  file?: string;
  /** A command's parseArgs values: `config`, `data-dir`, `agents`, `store`, `listen`, `host`, `port`, `secret-key-file`. */
  flags?: Readonly<Record<string, unknown>>;
}

/**
 * The runtime's configuration: flag, else environment variable, else the config file, else the
 * default, validated as a whole. Throws one `ConfigError` listing every problem, each naming
 * its source and setting: `config clawhive.yaml: server.listen: expected host:port, e.g.
 * 127.0.0.1:7878`, `env CLAWHIVE_POOL_SIZE: expected an integer 0..64`.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<ClawhiveConfig> {
  const flags = options.flags ?? {};
  const named = options.file ?? (typeof flags.config === "string" ? flags.config : undefined);
  const located = await locateConfigFile({ file: named, env: options.env, cwd: options.cwd });
  const issues: ConfigIssue[] = [];
  let layer: Layer = new Map();
  if (located) {
    try {
      layer = await readConfigFile(located);
    } catch (error) {
      // The file's problems are listed with the environment's and the flags' below.
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  readEnv(options.env, layer, issues);
  readFlags(flags, layer, issues);
  if (issues.length > 0) throw new ConfigError(issues);
  const config = resolveConfig(layer, { cwd: options.cwd, file: located?.path ?? null, issues });
  if (issues.length > 0) throw new ConfigError(issues);
  return config;
}
