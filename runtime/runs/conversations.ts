import { randomUUID } from "node:crypto";
import { ConflictError, NotFoundError } from "../errors.js";
import type { Message } from "../llm/index.js";
import type { IntentGuard } from "../audit/index.js";
import { allRows, type Statement, type Store } from "../store/index.js";
import { CHUNK } from "./loop/state-rows.js";
import { Compactions } from "./compactions.js";

/** A person's talk with one agent over several runs. */
export interface Conversation {
  id: string;
  agent: string;
  /** The API token that started it (a client continues only its own). */
  ownerToken: string | null;
  createdAt: number;
  updatedAt: number;
}

/** One stored message of a conversation, in order. */
export interface ConversationMessage extends Message {
  seq: number;
  /** The run whose turn it was. */
  runId: string | null;
  at: number;
}

/**
 * The `conversations` and `conversation_messages` tables: what a person and an agent said over
 * several runs, so a run that continues a conversation starts from its history. Messages are
 * the unified message model's blocks as JSON, appended a whole run's turn at a time, so the
 * history never holds a tool call without its result.
 */
export class Conversations {
  readonly #store: Store;
  readonly #now: () => number;
  /** The summaries standing in for earlier messages (compactions.ts). */
  readonly compactions: Compactions;

  constructor(store: Store, options: { now: () => number }) {
    this.#store = store;
    this.#now = options.now;
    this.compactions = new Compactions(store, options);
  }

  async create(agent: string, options: { ownerToken?: string | null } = {}): Promise<Conversation> {
    const now = this.#now();
    const conversation: Conversation = { id: `conv_${randomUUID()}`, agent, ownerToken: options.ownerToken ?? null, createdAt: now, updatedAt: now };
    await this.#store.execute({
      sql: "INSERT INTO conversations (id, agent, owner_token, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
      args: [conversation.id, agent, conversation.ownerToken, now, now],
    });
    return conversation;
  }

  async get(id: string): Promise<Conversation | undefined> {
    const result = await this.#store.execute({ sql: "SELECT * FROM conversations WHERE id = ?", args: [id] });
    const row = result.rows[0];
    if (!row) return undefined;
    return {
      id: String(row.id),
      agent: String(row.agent),
      ownerToken: row.owner_token === null || row.owner_token === undefined ? null : String(row.owner_token),
      createdAt: Number(row.created_at),
      updatedAt: Number(row.updated_at),
    };
  }

  /**
   * Conversation `id` for a new run of `agent` by `ownerToken`: it must exist, belong to that
   * agent, and (when the caller has a token) to that caller.
   */
  async forRun(id: string, options: { agent: string; ownerToken?: string | null }): Promise<Conversation> {
    const conversation = await this.get(id);
    const foreign = conversation && options.ownerToken != null && conversation.ownerToken !== null && conversation.ownerToken !== options.ownerToken;
    if (!conversation || foreign) throw new NotFoundError(`no conversation ${id}`);
    if (conversation.agent !== options.agent) {
      throw new ConflictError("conversation_agent", `conversation ${id} is with agent ${conversation.agent}, not ${options.agent}; continue it with that agent or start a new one`);
    }
    return conversation;
  }

  /** The messages of conversation `id`, oldest first. */
  async messages(id: string): Promise<ConversationMessage[]> {
    // Paged: a long conversation is more than one statement may return.
    const rows = await allRows(this.#store, {
      page: (after, limit) => ({
        sql: "SELECT seq, run_id, role, content, chunks, at FROM conversation_messages WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?",
        args: [id, after ?? 0, limit],
      }),
      key: (row) => row.seq as number,
    });
    const messages: ConversationMessage[] = [];
    for (const row of rows) {
      // A message larger than one chunk is stored in parts (see messageStatements).
      const content = Number(row.chunks ?? 0) === 0 ? String(row.content) : await readMessageParts(this.#store, id, Number(row.seq));
      messages.push({
        seq: Number(row.seq),
        runId: row.run_id === null || row.run_id === undefined ? null : String(row.run_id),
        role: String(row.role) as Message["role"],
        content: JSON.parse(content) as Message["content"],
        at: Number(row.at),
      });
    }
    return messages;
  }

  /** Whether run `runId`'s turn is already in conversation `id` (a run appends its turn once). */
  async hasTurnOf(id: string, runId: string): Promise<boolean> {
    const result = await this.#store.execute({ sql: "SELECT 1 FROM conversation_messages WHERE conversation_id = ? AND run_id = ? LIMIT 1", args: [id, runId] });
    return result.rows.length > 0;
  }

  /**
   * Appends a run's turn (its messages, in order) in one transaction. Given `guard` (the run's
   * lease, fence.ts), fenced: a node another took the run from appends nothing and gets
   * `run_taken_over`; the new holder appends the turn.
   */
  async append(id: string, messages: readonly Message[], options: { runId: string; guard?: IntentGuard }): Promise<void> {
    if (messages.length === 0) return;
    const now = this.#now();
    // The seq is read inside the batch (max + n), so two runs appending at once cannot collide
    // on a number: the batch is one transaction.
    try {
      await this.#store.batch(
        [
          ...(options.guard === undefined ? [] : [options.guard.statement]),
          ...messages.flatMap((message) => messageStatements(id, { runId: options.runId, role: message.role, content: JSON.stringify(message.content), at: now })),
          { sql: "UPDATE conversations SET updated_at = ? WHERE id = ?", args: [now, id] },
        ],
        { mode: "write" },
      );
    } catch (error) {
      if (options.guard?.refused(error) !== true) throw error;
      throw new ConflictError("run_taken_over", `run ${options.runId} is driven by another node now (this node's lease ran out); its turn is appended there`);
    }
  }
}

/**
 * The statements appending one message: inline when its content fits one chunk, else an empty
 * row naming its chunk count and the content's UTF-8 bytes in parts of at most `CHUNK`, one
 * statement each (no statement moves more than the store's bound). Its seq is read inside the
 * batch, as the row's own.
 */
function messageStatements(id: string, message: { runId: string; role: string; content: string; at: number }): Statement[] {
  const bytes = Buffer.from(message.content, "utf8");
  const chunks = bytes.byteLength <= CHUNK ? 0 : Math.ceil(bytes.byteLength / CHUNK);
  const row: Statement = {
    sql: `INSERT INTO conversation_messages (conversation_id, seq, run_id, role, content, chunks, at)
          VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM conversation_messages WHERE conversation_id = ?), ?, ?, ?, ?, ?)`,
    args: [id, id, message.runId, message.role, chunks === 0 ? message.content : "", chunks, message.at],
  };
  const parts: Statement[] = [];
  for (let part = 0; part < chunks; part++) {
    parts.push({
      sql: `INSERT INTO conversation_message_chunks (conversation_id, seq, part, bytes)
            VALUES (?, (SELECT max(seq) FROM conversation_messages WHERE conversation_id = ?), ?, ?)`,
      args: [id, id, part, bytes.subarray(part * CHUNK, (part + 1) * CHUNK)],
    });
  }
  return [row, ...parts];
}

/** A chunked message's content, read a part per statement. */
async function readMessageParts(store: Store, id: string, seq: number): Promise<string> {
  const rows = await allRows(store, {
    page: (after, limit) => ({
      sql: "SELECT part, bytes FROM conversation_message_chunks WHERE conversation_id = ? AND seq = ? AND part > ? ORDER BY part LIMIT ?",
      args: [id, seq, after ?? -1, limit],
    }),
    key: (row) => row.part as number,
    pageSize: 1,
  });
  return Buffer.concat(rows.map((row) => row.bytes as Uint8Array)).toString("utf8");
}
