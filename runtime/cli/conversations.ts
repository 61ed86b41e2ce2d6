import * as v from "valibot";
import { InvalidInputError } from "../errors.js";
import type { CompactionList, CompactionBody, CompactionSchema } from "../api/schemas/runs.js";
import { segment } from "../client/transport.js";
import { parseCommandArgs } from "./args.js";
import { SERVER_FLAGS, SERVER_FLAGS_HELP, ServerError } from "./client.js";
import { withExistingClient } from "./command-client.js";
import { field, inert, jsonOut } from "./render.js";
import { STORE_FLAGS, STORE_FLAGS_HELP } from "./store-path.js";

export const conversationsHelp = `clawhive conversations — what of a conversation was compacted; undo a compaction

  clawhive conversations compactions ID [--json]
  clawhive conversations undo ID N

  compactions: each summary that stands in for earlier messages of conversation ID (an agent
  with model.compaction writes one when a request passes model.compaction.at_tokens): the
  messages it replaces, their tokens and the summary's, the run that wrote it, and whether it
  was undone. The messages themselves are kept: GET /v1/conversations/ID has them all.
  undo: from the conversation's next run on, the model sees compaction N's messages again
  instead of its summary; they are never compacted again.

${SERVER_FLAGS_HELP}
${STORE_FLAGS_HELP}

  Exit codes: 0 ok; 1 no such conversation or compaction, or it was already undone, or the
  store or server could not be read; 2 bad usage, or a token the server refuses.

  Example:
    clawhive conversations compactions conv_0a1b… --server http://127.0.0.1:7878`;

const usage = "usage: clawhive conversations compactions ID | undo ID N";

type CompactionView = v.InferInput<typeof CompactionSchema>;

export async function conversationsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === "compactions") return compactions(rest);
  if (sub === "undo") return undo(rest);
  throw new InvalidInputError(sub === undefined ? usage : `unknown conversations command '${sub}'; ${usage}`);
}

async function compactions(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS, json: { type: "boolean" } });
  const [id, ...extra] = positionals;
  if (id === undefined || id === "" || extra.length > 0) throw new InvalidInputError(`conversations compactions takes one conversation id; ${usage}`);
  return withExistingClient(values, async (client) =>
    answered(async () => {
      const list = await client.request<v.InferInput<typeof CompactionList>>("GET", `/v1/conversations/${segment(id)}/compactions`);
      if (values.json) console.log(jsonOut(list.compactions));
      else if (list.compactions.length === 0) console.error(`conversation ${inert(id, { newlines: false })} has no compactions`);
      else for (const c of list.compactions) console.log(compactionLines(c).join("\n"));
    }),
  );
}

async function undo(argv: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(argv, { ...STORE_FLAGS, ...SERVER_FLAGS });
  const [id, n, ...extra] = positionals;
  if (id === undefined || id === "" || n === undefined || extra.length > 0) throw new InvalidInputError(`conversations undo takes a conversation id and a compaction number; ${usage}`);
  if (!/^[1-9]\d{0,8}$/.test(n)) throw new InvalidInputError(`conversations undo: ${inert(n, { newlines: false })}: expected a compaction number (1, 2, …), as 'conversations compactions' lists them`, { field: "n" });
  return withExistingClient(values, async (client) =>
    answered(async () => {
      const { compaction: c } = await client.request<v.InferInput<typeof CompactionBody>>("POST", `/v1/conversations/${segment(id)}/compactions/${n}/undo`);
      console.log(`compaction ${c.n} undone: from the next run on the model sees messages ${c.from_seq}–${c.through_seq} (${c.tokens_before} tokens) again instead of the summary`);
    }),
  );
}

/** The answer's lines, or (a missing conversation or compaction, one already undone) its message and exit 1. */
async function answered(body: () => Promise<void>): Promise<number> {
  try {
    await body();
    return 0;
  } catch (error) {
    if (!(error instanceof ServerError && (error.status === 404 || error.status === 409))) throw error;
    console.error(`clawhive: ${error.message}`);
    return 1;
  }
}

function compactionLines(c: CompactionView): string[] {
  const head = `#${c.n}  ${c.status.padEnd(6)}  messages ${c.from_seq}–${c.through_seq} (${c.turns} turn${c.turns === 1 ? "" : "s"})  ${c.tokens_before} → ${c.tokens_after} tokens  ${inert(c.model, { newlines: false })}  ${c.run_id} ${c.step_id}  ${c.created_at}`;
  const undone = c.undone_at === null ? [] : [`    undone ${c.undone_at} by ${inert(c.undone_by ?? "?", { newlines: false })}`];
  return [head, ...undone, ...field("    summary", c.summary)];
}
