/**
 * What a ToolCall's output goes through before anyone sees it: the secrets its instance (or MCP
 * server) holds are redacted in their echo forms, and, with the operator's stricter setting
 * (`secrets.refuse_transformed_outputs`, or the agent's), an output still holding one in a
 * transformed spelling is refused as the tool's error `secret_in_output` — audited as a denial,
 * counted in the run's report. Log lines are treated the same way (a refused line is withheld),
 * and the lines a ToolCall dropped over its rate are one record.
 */
import type { OutcomeInput } from "../audit/index.js";
import type { HttpResource } from "../policy/catalogue/index.js";
import type { ReportBuilder } from "./report.js";
import type { RunServices, RunSetup } from "./run-setup.js";
import { refusedIfTransformed, SECRET_IN_OUTPUT, withoutSecrets, type SecretsRead } from "./secrets-read.js";
import type { Execution } from "./tool-execution.js";

/** Whether a run refuses outputs holding a secret transformed: the operator's setting or its agent's. */
export function refusesTransformed(setup: Pick<RunSetup, "agent">, services: Pick<RunServices, "refuseTransformedSecrets">): boolean {
  return services.refuseTransformedSecrets === true || setup.agent.secrets.refuse_transformed_outputs;
}

/**
 * The names of the stored secrets an MCP server holds for every call: a stdio server's
 * environment, a streamable HTTP server's credentials (the agent's `grants.http.fetch`
 * attaches those of its host to every request).
 */
export function mcpServerSecrets(spec: { env?: Record<string, unknown>; url?: string | undefined } | undefined, httpGrant?: Pick<HttpResource, "credentials">): string[] {
  const names = Object.values(spec?.env ?? {}).flatMap((value) => (value !== null && typeof value === "object" && typeof (value as { secret?: unknown }).secret === "string" ? [(value as { secret: string }).secret] : []));
  const host = spec?.url === undefined ? undefined : hostOf(spec.url);
  if (host !== undefined && httpGrant) names.push(...httpGrant.credentials.filter((c) => c.host === host).map((c) => c.secret));
  return [...new Set(names)];
}

/** A URL's host as the http proxy matches credentials (lower case, no IPv6 brackets). */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, "$1");
  } catch {
    return undefined;
  }
}

export function reviewOutput(execution: Execution, options: { secrets: SecretsRead; refuse: boolean; tool: string; report: Pick<ReportBuilder, "denied"> }): Execution {
  if (options.secrets.empty) return execution;
  const redacted = withoutSecrets(execution, options.secrets);
  const reviewed = options.refuse ? refusedIfTransformed(redacted, options.secrets, options.tool) : redacted;
  if (!reviewed.ok && reviewed.error?.denial?.reason === SECRET_IN_OUTPUT) options.report.denied(reviewed.error.denial);
  return reviewed;
}

/** The ToolCall's audit outcome: ok with its size, a refused output as a denial, else its error. */
export function outcomeInputOf(execution: Execution): OutcomeInput {
  if (execution.ok) return { status: "ok", resultSize: JSON.stringify(execution.output ?? null).length };
  if (execution.effectApproval) return { status: "error", error: { code: "approval-required", message: `effect approval ${execution.effectApproval.id} is needed` } };
  const error = execution.error!;
  if (error.kind === SECRET_IN_OUTPUT && error.denial) return { status: "denied", denial: error.denial, error: { code: SECRET_IN_OUTPUT, message: error.message } };
  return { status: "error", error: { code: error.kind, message: error.message } };
}

/** A log line as the run shows it: secrets redacted; with the stricter setting, one holding a secret transformed is withheld. */
export function loggedLine(secrets: SecretsRead, message: string, refuse: boolean): string {
  if (secrets.empty) return message;
  const redacted = secrets.text(message);
  const found = refuse ? secrets.transformedIn(redacted) : undefined;
  return found === undefined ? redacted : `[a log line was withheld: it holds secret ${found.name} ${found.transform} (secrets.refuse_transformed_outputs)]`;
}

