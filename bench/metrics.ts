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

/** Whole from 100, two decimals from 1, three significant digits below 1 (a ratio of 0.004 is not 0). */
export function round(n: number): number {
  const size = Math.abs(n);
  if (size >= 100) return Math.round(n);
  if (size >= 1 || size === 0) return Math.round(n * 100) / 100;
  return Number(n.toPrecision(3));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
