import * as v from "valibot";
import type { Runtime } from "../../runtime.js";
import type { Compaction } from "../../runs/compactions.js";
import { mayReadRun, principalOf, type Principal } from "../auth/index.js";
import { deciderOf } from "../auth/principal.js";
import { ApiError, ID } from "../middleware/index.js";
import { CompactionBody, CompactionList, type CompactionSchema } from "../schemas/runs.js";
import { queryInt } from "./fields.js";
import { defineRoute, reply, type ApiRoute } from "./route.js";

const IdParams = v.strictObject({ id: ID });
const UndoParams = v.strictObject({ id: ID, n: queryInt(1, 1_000_000_000) });

export function compactionView(c: Compaction): v.InferInput<typeof CompactionSchema> {
  return {
    n: c.n,
    status: c.undoneAt === null ? "active" : "undone",
    from_seq: c.fromSeq,
    through_seq: c.throughSeq,
    turns: c.turns,
    summary: c.summary,
    run_id: c.runId,
    step_id: c.stepId,
    model: c.model,
    tokens_before: c.tokensBefore,
    tokens_after: c.tokensAfter,
    created_at: new Date(c.createdAt).toISOString(),
    undone_at: c.undoneAt === null ? null : new Date(c.undoneAt).toISOString(),
    undone_by: c.undoneBy,
  };
}

/** The conversation when `principal` may read it; 404 otherwise (someone else's is not shown to exist). */
async function readable(runtime: Pick<Runtime, "conversations">, id: string, principal: Principal): Promise<string> {
  const conversation = await runtime.conversations.get(id);
  if (!conversation || (principal.role !== "approver" && !mayReadRun(principal, conversation.ownerToken))) {
    throw new ApiError("not_found", `no conversation ${id}`, { status: 404 });
  }
  return conversation.id;
}

/** GET /v1/conversations/:id/compactions, POST /v1/conversations/:id/compactions/:n/undo. */
export function compactionRoutes(runtime: Pick<Runtime, "conversations">): ApiRoute[] {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/conversations/:id/compactions",
      tag: "runs",
      summary: "What of a conversation was compacted: each summary, the messages it stands for (still in GET /v1/conversations/:id), and whether it was undone",
      roles: ["client", "approver"],
      params: IdParams,
      responses: { 200: { description: "the conversation's compactions, oldest first", schema: CompactionList }, 404: { description: "no such conversation (or not the caller's)" } },
      handler: async (c, { params }) => {
        const id = await readable(runtime, params.id, principalOf(c));
        return reply(c, CompactionList, { conversation_id: id, compactions: (await runtime.conversations.compactions.list(id)).map(compactionView) });
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/conversations/:id/compactions/:n/undo",
      tag: "runs",
      summary: "Undo a compaction: from the conversation's next run on, the model sees those messages again instead of their summary (they are never compacted again)",
      roles: ["client"],
      params: UndoParams,
      responses: { 200: { description: "the compaction, undone", schema: CompactionBody }, 404: { description: "no such conversation or compaction" }, 409: { description: "compaction_undone: it was already undone" } },
      handler: async (c, { params }) => {
        const principal = principalOf(c);
        const id = await readable(runtime, params.id, principal);
        return reply(c, CompactionBody, { compaction: compactionView(await runtime.conversations.compactions.undo(id, params.n, { by: deciderOf(principal) })) });
      },
    }),
  ];
}
