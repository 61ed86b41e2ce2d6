import { toSample, type Sample } from "./peers/index.js";

export type Unit = "us" | "ms" | "s" | "MB" | "per_s" | "ratio" | "count";
export type Metric = { p50: number; p95: number; unit: Unit } | { value: number; unit: Unit };
export type Metrics = Record<string, Metric>;

/** A latency metric from samples in µs, converted to `unit`. */
export function latency(sample: Sample | number[], unit: "us" | "ms" = "us"): Metric {
  const s = Array.isArray(sample) ? toSample(sample) : sample;
  const k = unit === "ms" ? 1 / 1000 : 1;
  return { p50: round(s.p50 * k), p95: round(s.p95 * k), unit };
}

export function value(v: number, unit: Unit): Metric {
  return { value: round(v), unit };
}

export function round(n: number): number {
  return Math.abs(n) >= 100 ? Math.round(n) : Math.round(n * 100) / 100;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
