import type { MessageSummary } from "clawhive:host/gmail@0.1.1";

/** A message summary as the model sees it: snake_case, as every clawhive tool's output. */
export interface SummaryOutput {
  id: string;
  thread_id: string;
  from: string;
  to: string;
  subject: string;
  date: string;
  snippet: string;
  labels: string[];
  unread: boolean;
}

export function summaryOutput(m: MessageSummary): SummaryOutput {
  return {
    id: m.id,
    thread_id: m.threadId,
    from: m.from,
    to: m.to,
    subject: m.subject,
    date: m.date,
    snippet: m.snippet,
    labels: [...m.labels],
    unread: m.unread,
  };
}
