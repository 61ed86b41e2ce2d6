/**
 * What the shipped command's tracing tests share: a data dir with the `writer` agent and a file
 * in its workspace, a local OTLP collector, and the environment that points the command at it.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { cliPlace, type CliPlace } from "../cli/fixtures.js";
import { OtlpCollector, type ReceivedSpan } from "../helpers/otlp-collector.js";

export interface TracedPlace extends CliPlace {
  readonly collector: OtlpCollector;
  /** The variables a traced command runs with: no clawhive variable of this process, the endpoint set. */
  readonly env: Record<string, string>;
}

export async function tracedPlace(prefix: string): Promise<TracedPlace> {
  const place = await cliPlace(prefix);
  await mkdir(join(place.data, "workspace"), { recursive: true });
  await writeFile(join(place.data, "workspace", "a.txt"), "alpha\n");
  const collector = await OtlpCollector.start();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && (!k.startsWith("CLAWHIVE_") || k === "CLAWHIVE_BUILD_CACHE")) env[k] = v;
  env.CLAWHIVE_OTLP_ENDPOINT = collector.endpoint;
  return { ...place, collector, env };
}

/** Waits (at most 30 s) until the collector holds a span named `name`: a process's last export may still be on its way. */
export async function received(collector: OtlpCollector, name: string): Promise<ReceivedSpan> {
  for (let i = 0; i < 300; i++) {
    const found = collector.spans.find((s) => s.name === name);
    if (found) return found;
    await sleep(100);
  }
  throw new Error(`no span named ${JSON.stringify(name)} arrived; received: ${collector.spans.map((s) => s.name).join(", ")}`);
}

/** The spans of one trace, by name. */
export function spansOf(collector: OtlpCollector, traceId: string): Map<string, ReceivedSpan[]> {
  const byName = new Map<string, ReceivedSpan[]>();
  for (const span of collector.spans.filter((s) => s.traceId === traceId)) byName.set(span.name, [...(byName.get(span.name) ?? []), span]);
  return byName;
}
