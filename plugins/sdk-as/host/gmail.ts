/**
 * Bindings for `clawhive:host/gmail@0.1.1` (wit/host/gmail.wit), lowered by hand to the canonical
 * ABI as host/memory.ts does. `list-request` flattens to 10 values, so it goes as flat arguments;
 * every result comes back through a return area (the case byte, then the payload at +4).
 */
import { storeString, takeStringAt, takeStringListAt } from "../abi";
import { takeOptionStringAt } from "../option";
import { HostError, HostResult, takeHostErrorAt } from "../tool-error";

@external("clawhive:host/gmail@0.1.1", "list-messages")
declare function listMessagesImport(
  lp: usize, ll: usize, qc: i32, qp: usize, ql: usize, mc: i32, m: u32, pc: i32, pp: usize, pl: usize, ret: usize,
): void;

@external("clawhive:host/gmail@0.1.1", "get-message")
declare function getMessageImport(ip: usize, il: usize, ret: usize): void;

@external("clawhive:host/gmail@0.1.1", "get-thread")
declare function getThreadImport(ip: usize, il: usize, ret: usize): void;

/** `message-summary` (size 68, align 4). */
export class MessageSummary {
  id: string = "";
  threadId: string = "";
  from: string = "";
  to: string = "";
  subject: string = "";
  date: string = "";
  snippet: string = "";
  labels: string[] = [];
  unread: bool = false;
}

/** `attachment-info` (size 24, align 8). */
export class AttachmentInfo {
  filename: string = "";
  mimeType: string = "";
  size: u64 = 0;
}

/** `message` (size 144, align 4). A null `inReplyTo` is none. */
export class Message {
  summary: MessageSummary = new MessageSummary();
  text: string = "";
  attachments: AttachmentInfo[] = [];
  cc: string = "";
  bcc: string = "";
  replyTo: string = "";
  sender: string = "";
  messageId: string = "";
  inReplyTo: string | null = null;
  references: string[] = [];
}

/** `list-request`. Null fields and a negative `maxResults` are none. */
export class ListRequest {
  label: string = "";
  query: string | null = null;
  maxResults: i64 = -1;
  pageToken: string | null = null;
}

/** `list-result` (size 20, align 4). A null `nextPageToken` is none. */
export class ListResult {
  messages: MessageSummary[] = [];
  nextPageToken: string | null = null;
}

const SUMMARY_SIZE: usize = 68;
const ATTACHMENT_SIZE: usize = 24;
/** The largest payload is `message` (144 bytes), after the case at +0 and its padding. */
const RET_SIZE: usize = 4 + 144;

function takeSummary(at: usize): MessageSummary {
  const s = new MessageSummary();
  s.id = takeStringAt(at);
  s.threadId = takeStringAt(at + 8);
  s.from = takeStringAt(at + 16);
  s.to = takeStringAt(at + 24);
  s.subject = takeStringAt(at + 32);
  s.date = takeStringAt(at + 40);
  s.snippet = takeStringAt(at + 48);
  s.labels = takeStringListAt(at + 56);
  s.unread = load<u8>(at + 64) != 0;
  return s;
}

/** The `list<message-summary>` stored at `at`, taken: every summary and the list's block freed. */
function takeSummaryListAt(at: usize): MessageSummary[] {
  const items = <usize>load<u32>(at);
  const n = <i32>load<u32>(at + 4);
  const out = new Array<MessageSummary>(n);
  for (let i = 0; i < n; i++) unchecked((out[i] = takeSummary(items + <usize>i * SUMMARY_SIZE)));
  if (items != 0) heap.free(items);
  return out;
}

function takeMessage(at: usize): Message {
  const m = new Message();
  m.summary = takeSummary(at);
  m.text = takeStringAt(at + 68);
  const ap = <usize>load<u32>(at + 76);
  const an = <i32>load<u32>(at + 80);
  for (let i = 0; i < an; i++) {
    const a = ap + <usize>i * ATTACHMENT_SIZE;
    const info = new AttachmentInfo();
    info.filename = takeStringAt(a);
    info.mimeType = takeStringAt(a + 8);
    info.size = load<u64>(a + 16);
    m.attachments.push(info);
  }
  if (ap != 0) heap.free(ap);
  m.cc = takeStringAt(at + 84);
  m.bcc = takeStringAt(at + 92);
  m.replyTo = takeStringAt(at + 100);
  m.sender = takeStringAt(at + 108);
  m.messageId = takeStringAt(at + 116);
  m.inReplyTo = takeOptionStringAt(at + 124);
  m.references = takeStringListAt(at + 136);
  return m;
}

/** `list-messages: func(request: list-request) -> result<list-result, host-error>`. */
export function listMessages(request: ListRequest): HostResult<ListResult> {
  const blocks = new Array<usize>();
  // label at +0, query at +8, page token at +16: (pointer, length) pairs.
  const args = heap.alloc(24);
  storeString(args, request.label, blocks);
  const query = request.query;
  const token = request.pageToken;
  if (query != null) storeString(args + 8, query, blocks);
  if (token != null) storeString(args + 16, token, blocks);
  const ret = heap.alloc(RET_SIZE);
  listMessagesImport(
    <usize>load<u32>(args), <usize>load<u32>(args + 4),
    query != null ? 1 : 0, query != null ? <usize>load<u32>(args + 8) : 0, query != null ? <usize>load<u32>(args + 12) : 0,
    request.maxResults >= 0 ? 1 : 0, request.maxResults >= 0 ? <u32>request.maxResults : 0,
    token != null ? 1 : 0, token != null ? <usize>load<u32>(args + 16) : 0, token != null ? <usize>load<u32>(args + 20) : 0,
    ret,
  );
  let result: HostResult<ListResult>;
  if (load<u8>(ret) == 0) {
    const list = new ListResult();
    list.messages = takeSummaryListAt(ret + 4);
    list.nextPageToken = takeOptionStringAt(ret + 12);
    result = new HostResult<ListResult>(list, null);
  } else {
    result = new HostResult<ListResult>(new ListResult(), takeHostErrorAt(ret + 4));
  }
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(args);
  heap.free(ret);
  return result;
}

/** `get-message: func(id: string) -> result<message, host-error>`. */
export function getMessage(id: string): HostResult<Message> {
  const blocks = new Array<usize>();
  const arg = heap.alloc(8);
  storeString(arg, id, blocks);
  const ret = heap.alloc(RET_SIZE);
  getMessageImport(<usize>load<u32>(arg), <usize>load<u32>(arg + 4), ret);
  const result = load<u8>(ret) == 0
    ? new HostResult<Message>(takeMessage(ret + 4), null)
    : new HostResult<Message>(new Message(), takeHostErrorAt(ret + 4));
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(arg);
  heap.free(ret);
  return result;
}

/** `get-thread: func(thread-id: string) -> result<list<message-summary>, host-error>`. */
export function getThread(threadId: string): HostResult<MessageSummary[]> {
  const blocks = new Array<usize>();
  const arg = heap.alloc(8);
  storeString(arg, threadId, blocks);
  const ret = heap.alloc(RET_SIZE);
  getThreadImport(<usize>load<u32>(arg), <usize>load<u32>(arg + 4), ret);
  const result = load<u8>(ret) == 0
    ? new HostResult<MessageSummary[]>(takeSummaryListAt(ret + 4), null)
    : new HostResult<MessageSummary[]>([], takeHostErrorAt(ret + 4));
  for (let i = 0; i < blocks.length; i++) heap.free(unchecked(blocks[i]));
  heap.free(arg);
  heap.free(ret);
  return result;
}

export { HostError };
