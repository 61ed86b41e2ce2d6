/** `clawhive:host/message`: chat messages to incoming webhooks, through the http proxy's checks. */
export { checkFormat, createMessageProxy, MAX_MESSAGE_TEXT } from "./proxy.js";
export type { MessageProxy, MessageReceipt, MessageResource, OutgoingMessage } from "./proxy.js";
export { messageBody, MESSAGE_FORMATS } from "./format.js";
export type { MessageFormat } from "./format.js";
export { messageHostFunctions, parseMessageRecord, MESSAGE_HOST_FUNCTION_NAMES } from "./host-functions.js";
