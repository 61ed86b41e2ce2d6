/**
 * The mail work that runs in a parse worker (host-proxies/_parse): MIME parsing (mailparser,
 * libmime) and HTML conversion (html-to-text) go through whole messages with no bound of their
 * own (nested multiparts, megabyte header lines, markup nested 100 000 deep), so they run
 * where a deadline can stop them.
 */
import { bodyText } from "./html-text.js";
import { parseMessage } from "./local/parse.js";
import { snippetOf, threadRoot } from "./shape.js";
import type { MessageParts } from "./shape.js";

export interface MailJobInput {
  bytes: Uint8Array;
  truncated: boolean;
}

export interface MailJobOutput {
  parts: MessageParts;
  text: string;
  snippet: string;
  threadRoot: string | undefined;
}

export interface TextJobInput {
  plain: string | undefined;
  html: string | undefined;
}

export async function mailContentJob(input: MailJobInput): Promise<MailJobOutput> {
  const parts = await parseMessage(Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength), { truncated: input.truncated });
  const text = bodyText(parts.plain, parts.html, parts.htmlSeparate === true);
  return { parts, text, snippet: snippetOf(text), threadRoot: threadRoot(parts.headers) };
}

export function mailTextJob(input: TextJobInput): string {
  return bodyText(input.plain, input.html);
}
