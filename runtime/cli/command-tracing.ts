/**
 * Traces of a command that runs work in this process — `run`, `chat`, `call`, `mcp serve` (as an
 * MCP client such as Claude Desktop or Cursor starts it), any command on the store — exported
 * as `clawhive serve` exports its own: `telemetry.otlp_endpoint` in clawhive.yaml or
 * CLAWHIVE_OTLP_ENDPOINT. The spans are sent when the command ends. Through a server
 * (`--server`) the command runs nothing itself: the server traces the work.
 */
import type { ClawhiveConfig } from "../config/index.js";
import { activeTracer, startTracing, stopTracing } from "../telemetry/tracing.js";
import { onCommandEnd } from "./command-end.js";
import { VERSION } from "./version.js";

/** How long the end of a command waits for the collector to take its spans. */
const EXPORT_TIMEOUT_MS = 5000;

export async function startCommandTracing(telemetry: ClawhiveConfig["telemetry"]): Promise<void> {
  if (activeTracer() !== undefined || telemetry.otlpEndpoint === undefined) return;
  await startTracing({ otlpEndpoint: telemetry.otlpEndpoint, serviceName: telemetry.serviceName, serviceVersion: VERSION, exportTimeoutMs: EXPORT_TIMEOUT_MS });
  onCommandEnd(stopTracing);
}
