/**
 * The `mail` plugin: read-only tools over `clawhive:host/gmail`. Which labels are reachable and
 * the search every list is ANDed with are the grant's business, decided by the host; a message
 * fetched by id is checked against the granted labels by the host too. Mail is untrusted input:
 * these tools hand it to the model as data and never act on it.
 */
import { definePlugin } from "../../sdk/index.js";
import { listUnread } from "./list-unread.js";
import { readMessage } from "./read-message.js";
import { summarizeThread } from "./summarize-thread.js";

export const tools = definePlugin({
  tools: { list_unread: listUnread, read_message: readMessage, summarize_thread: summarizeThread },
});
