import { InvalidInputError } from "../errors.js";
import type { Logger } from "../log/index.js";
import type { Runtime } from "../runtime.js";
import { applyMigrations } from "../store/index.js";
import type { WebhookTarget } from "./config.js";
import { webhookMigrations } from "./schema.js";
import { WebhookDispatcher } from "./dispatcher.js";

/**
 * The dispatcher of the configured webhooks (with none, it still feeds the approvers' SSE
 * stream). A webhook whose
 * signing secret is not stored is refused here, at start, naming its field: a receiver that
 * checks signatures would otherwise drop every delivery; so is a Telegram bot whose token is not.
 */
export async function startWebhooks(targets: readonly WebhookTarget[], runtime: Runtime, options: { log: Logger; consoleUrl: string }): Promise<WebhookDispatcher> {
  for (const [i, target] of targets.entries()) {
    if (target.secret !== undefined && !(await runtime.secrets.has(target.secret))) {
      throw new InvalidInputError(`webhooks[${i}].secret: no stored secret named ${target.secret}; store it with: clawhive secret set ${target.secret}`, { field: `webhooks[${i}].secret` });
    }
    const bot = target.telegram?.botToken;
    if (bot !== undefined && !(await runtime.secrets.has(bot))) {
      throw new InvalidInputError(`webhooks[${i}].bot_token: no stored secret named ${bot}; store the bot's token with: clawhive secret set ${bot}`, { field: `webhooks[${i}].bot_token` });
    }
  }
  await applyMigrations(runtime.store, webhookMigrations, { clock: runtime.clock });
  return new WebhookDispatcher({
    targets,
    store: runtime.store,
    approvals: runtime.approvals,
    now: () => runtime.clock.now(),
    secretValue: (name) => runtime.secretValue(name),
    consoleUrl: options.consoleUrl,
    audit: runtime.audit,
    log: options.log,
  });
}
