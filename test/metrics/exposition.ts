/**
 * A small reader of the Prometheus text exposition format 0.0.4, strict enough to fail on a
 * malformed line, so the tests check what a scraper would parse, not the text's exact shape.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Metric family name → type (`counter`, `gauge`, `histogram`, …). */
  types: Map<string, string>;
  help: Map<string, string>;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/y;

export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const help = new Map<string, string>();
  for (const [i, line] of text.split("\n").entries()) {
    if (line === "") continue;
    if (line.startsWith("#")) {
      const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
      if (meta?.[1] === "TYPE") types.set(meta[2]!, meta[3]!);
      if (meta?.[1] === "HELP") help.set(meta[2]!, meta[3]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${i + 1} is not a sample: ${line}`);
    samples.push({ name: match[1]!, labels: parseLabels(match[2] ?? "", i + 1), value: parseValue(match[3]!, i + 1) });
  }
  return { samples, types, help };
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const start = LABEL.lastIndex;
    const match = LABEL.exec(text);
    if (!match || match.index !== start) throw new Error(`line ${line}: bad labels: ${text}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
  }
  return labels;
}

function parseValue(text: string, line: number): number {
  if (text === "+Inf") return Infinity;
  if (text === "-Inf") return -Infinity;
  if (text === "NaN") return NaN;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`line ${line}: bad value ${text}`);
  return value;
}

/** The sum of the samples named `name` whose labels include `labels` (0 when none). */
export function sum(exposition: Exposition, name: string, labels: Record<string, string> = {}): number {
  return exposition.samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** The one sample named `name` with exactly these labels, or undefined. */
export function sample(exposition: Exposition, name: string, labels: Record<string, string> = {}): Sample | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return exposition.samples.find((s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted);
}
