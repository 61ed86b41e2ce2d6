import type { RuntimeOptions } from "../runtime.js";
import type { SandboxEvent } from "../sandbox/index.js";
import type { ClawhiveConfig } from "./types.js";

/**
 * The `Runtime.create` options a config describes. What a config cannot hold (a clock, a
 * progress sink, a sandbox event listener such as the metrics') is passed beside it.
 * `CLAWHIVE_SECRET_KEY` is not a setting but the key itself: the runtime reads it.
 */
export function runtimeOptionsFrom(
  config: ClawhiveConfig,
  extra: { onProgress?: (line: string) => void; onSandboxEvent?: (event: SandboxEvent) => void } = {},
): RuntimeOptions {
  return {
    dataDir: config.dataDir,
    storeUrl: config.store.url,
    ...(config.store.authToken === undefined ? {} : { storeAuthToken: config.store.authToken }),
    ...(config.store.timeoutMs === undefined ? {} : { storeTimeoutMs: config.store.timeoutMs }),
    agentsDir: config.agentsDir,
    buildCacheDir: config.buildCacheDir,
    sandbox: { ...config.sandbox, ...(extra.onSandboxEvent ? { onEvent: extra.onSandboxEvent } : {}) },
    ...(config.secrets.keyFile === undefined ? {} : { secretKeyFile: config.secrets.keyFile }),
    ...(config.secrets.refuseTransformedOutputs ? { refuseTransformedSecrets: true } : {}),
    llm: {
      ...(config.llm.proxyUrl === undefined ? {} : { proxyUrl: config.llm.proxyUrl }),
      ...(config.llm.timeoutMs === undefined ? {} : { timeoutMs: config.llm.timeoutMs }),
      ...(config.llm.maxAttempts === undefined ? {} : { maxAttempts: config.llm.maxAttempts }),
    },
    ...(config.memory.embeddings === undefined ? {} : { memory: { embeddings: config.memory.embeddings } }),
    ...(config.mail === undefined ? {} : { mail: config.mail }),
    ...(config.calendar === undefined ? {} : { calendar: config.calendar }),
    ...(extra.onProgress ? { onProgress: extra.onProgress } : {}),
  };
}
