/**
 * Evaluating a parsed search against one message, for the local backend. Matching is a
 * case-insensitive substring test (Gmail matches whole words; a substring can only match more
 * within what the label and the grant's query already allow, never outside it). An operator
 * not in the table is an `invalid-input` naming the ones that are.
 */
import { HostProxyError } from "../types.js";
import { parseSearch } from "./search-parse.js";
import type { SearchNode } from "./search-parse.js";

/** What a search can see of a message. */
export interface SearchDoc {
  from: string;
  to: string;
  subject: string;
  text: string;
  labels: readonly string[];
  unread: boolean;
  /** The message's date, epoch ms. */
  dateMs: number;
}

export interface SearchOperator {
  /** An error detail when `value` is not valid for this operator. */
  check?(value: string): string | undefined;
  match(value: string, doc: SearchDoc, now: number): boolean;
}

export type SearchMatcher = (doc: SearchDoc) => boolean;

const DAY_MS = 86_400_000;
const AGE_UNITS: Record<string, number> = { d: DAY_MS, m: 30 * DAY_MS, y: 365 * DAY_MS };
const IS_VALUES = ["unread", "read", "starred"];

function contains(haystack: string, needle: string): boolean {
  return haystack.toLocaleLowerCase().includes(needle.toLocaleLowerCase());
}

/** Gmail writes `Work/Reports` as `label:work-reports` too: compare with spaces and `/` as `-`. */
function labelKey(label: string): string {
  return label.toLocaleLowerCase().replace(/[\s/]+/g, "-");
}

function ageMs(value: string): number {
  const m = /^(\d{1,5})([dmy])$/.exec(value);
  return m === null ? Number.NaN : Number(m[1]) * (AGE_UNITS[m[2] ?? ""] ?? Number.NaN);
}

const checkAge = (v: string) => (Number.isNaN(ageMs(v)) ? "expected a number and d, m or y, e.g. 7d" : undefined);

export const LOCAL_SEARCH_OPERATORS: Readonly<Record<string, SearchOperator>> = Object.freeze({
  from: { match: (v, doc) => contains(doc.from, v) },
  to: { match: (v, doc) => contains(doc.to, v) },
  subject: { match: (v, doc) => contains(doc.subject, v) },
  label: { match: (v, doc) => doc.labels.some((l) => labelKey(l) === labelKey(v)) },
  is: {
    check: (v) => (IS_VALUES.includes(v.toLowerCase()) ? undefined : `expected one of ${IS_VALUES.join(", ")}`),
    match: (v, doc) => {
      const value = v.toLowerCase();
      if (value === "starred") return doc.labels.includes("STARRED");
      return value === "unread" ? doc.unread : !doc.unread;
    },
  },
  newer_than: { check: checkAge, match: (v, doc, now) => doc.dateMs > now - ageMs(v) },
  older_than: { check: checkAge, match: (v, doc, now) => doc.dateMs < now - ageMs(v) },
});

/**
 * Parses and checks `query` once; the matcher it returns is pure. Throws `invalid-input` for
 * syntax errors, unknown operators and bad operator values.
 */
export function compileSearch(query: string, options: { now: number; operators?: Readonly<Record<string, SearchOperator>> }): SearchMatcher {
  const operators = options.operators ?? LOCAL_SEARCH_OPERATORS;
  const root = parseSearch(query);
  validate(root, operators);
  return (doc) => evaluate(root, doc, { operators, now: options.now });
}

function validate(node: SearchNode, operators: Readonly<Record<string, SearchOperator>>): void {
  if (node.kind === "and" || node.kind === "or") return node.items.forEach((n) => validate(n, operators));
  if (node.kind === "not") return validate(node.item, operators);
  if (node.value.trim() === "") throw bad("an empty word or phrase matches nothing useful");
  if (node.op === undefined) return;
  const operator = Object.hasOwn(operators, node.op) ? operators[node.op] : undefined;
  if (operator === undefined) {
    throw bad(`operator "${node.op}:" is not supported here (supported: ${Object.keys(operators).map((k) => `${k}:`).join(" ")}, words, "phrases", -, OR, ())`);
  }
  const problem = operator.check?.(node.value);
  if (problem !== undefined) throw bad(`${node.op}:${node.value}: ${problem}`);
}

function evaluate(node: SearchNode, doc: SearchDoc, ctx: { operators: Readonly<Record<string, SearchOperator>>; now: number }): boolean {
  switch (node.kind) {
    case "and":
      return node.items.every((n) => evaluate(n, doc, ctx));
    case "or":
      return node.items.some((n) => evaluate(n, doc, ctx));
    case "not":
      return !evaluate(node.item, doc, ctx);
    case "term":
      if (node.op === undefined) return contains(doc.subject, node.value) || contains(doc.text, node.value);
      return ctx.operators[node.op]?.match(node.value, doc, ctx.now) ?? false;
  }
}

function bad(detail: string): HostProxyError {
  return HostProxyError.invalidInput(`gmail: query: ${detail}`);
}
