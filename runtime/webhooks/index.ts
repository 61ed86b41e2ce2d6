export { urlProblem, WEBHOOK_EVENTS, WebhookFileSchema, webhookTarget } from "./config.js";
export type { WebhookEvent, WebhookFileEntry, WebhookTarget } from "./config.js";
export { DeadLetters } from "./dead-letters.js";
export type { DeadLetter } from "./dead-letters.js";
export { WebhookDispatcher } from "./dispatcher.js";
export type { WebhookDispatcherOptions, WebhookPayload } from "./dispatcher.js";
export { signDelivery, verifyDelivery } from "./signature.js";
export { slackMessage } from "./template.js";
