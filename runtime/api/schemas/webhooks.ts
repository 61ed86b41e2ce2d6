import * as v from "valibot";
import { ISO_TIME, JSON_OBJECT, NEXT_CURSOR } from "./common.js";

export const DeadLetterSchema = v.strictObject({
  id: v.string(),
  target: v.pipe(v.string(), v.description("the receiver's origin (scheme, host, port)")),
  event: v.picklist(["approval.requested", "approval.decided", "run.ended"]),
  payload: v.pipe(JSON_OBJECT, v.description("the event as it would have been delivered: {id, type, created_at, data}")),
  attempts: v.number(),
  last_error: v.string(),
  failed_at: ISO_TIME,
});

export const DeadLetterPage = v.strictObject({ dead_letters: v.array(DeadLetterSchema), next_cursor: NEXT_CURSOR });
