/**
 * A small, strict reading of Gmail's search syntax for the local backend: words, `"phrases"`,
 * `op:value` (value may be quoted), `-` negation, `OR` (binds tighter than the implicit AND, as
 * in Gmail: `a b OR c` is `a AND (b OR c)`), explicit `AND`, and parentheses. Anything else
 * (`{…}` groups, a dangling `OR`, an empty group) is an error: a search the local backend
 * cannot read must fail, never silently match more.
 */
import { HostProxyError } from "../types.js";

export type SearchNode =
  | { kind: "and"; items: SearchNode[] }
  | { kind: "or"; items: SearchNode[] }
  | { kind: "not"; item: SearchNode }
  | { kind: "term"; op: string | undefined; value: string };

type Token =
  | { t: "(" | ")" | "-" | "OR" | "AND" }
  | { t: "term"; op: string | undefined; value: string };

/** Parses `query`; `{kind: "and", items: []}` (matches everything) when it is blank. */
export function parseSearch(query: string): SearchNode {
  const tokens = tokenize(query);
  const state = { tokens, at: 0 };
  const node = parseAnd(state);
  if (state.at < tokens.length) throw bad(`unexpected ${describe(tokens[state.at])}`);
  return node;
}

interface State {
  tokens: Token[];
  at: number;
}

function parseAnd(state: State): SearchNode {
  const items: SearchNode[] = [];
  for (;;) {
    const next = state.tokens[state.at];
    if (next === undefined || next.t === ")") break;
    if (next.t === "AND") {
      if (items.length === 0) throw bad("AND needs a term before it");
      state.at++;
      if (atGroupEnd(state)) throw bad("AND needs a term after it");
      continue;
    }
    items.push(parseOr(state));
  }
  return items.length === 1 && items[0] !== undefined ? items[0] : { kind: "and", items };
}

function parseOr(state: State): SearchNode {
  const items = [parseUnary(state)];
  while (state.tokens[state.at]?.t === "OR") {
    state.at++;
    if (atGroupEnd(state)) throw bad("OR needs a term after it");
    items.push(parseUnary(state));
  }
  return items.length === 1 && items[0] !== undefined ? items[0] : { kind: "or", items };
}

function parseUnary(state: State): SearchNode {
  const token = state.tokens[state.at++];
  if (token === undefined) throw bad("the search ends too early");
  if (token.t === "-") {
    if (atGroupEnd(state)) throw bad("- needs a term after it");
    return { kind: "not", item: parseUnary(state) };
  }
  if (token.t === "(") {
    const inner = parseAnd(state);
    if (state.tokens[state.at++]?.t !== ")") throw bad("a ( is not closed");
    if (inner.kind === "and" && inner.items.length === 0) throw bad("empty ()");
    return inner;
  }
  if (token.t === "term") return { kind: "term", op: token.op, value: token.value };
  throw bad(`unexpected ${describe(token)}`);
}

function atGroupEnd(state: State): boolean {
  const next = state.tokens[state.at];
  return next === undefined || next.t === ")" || next.t === "OR" || next.t === "AND";
}

function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < query.length) {
    const ch = query[i] ?? "";
    if (/\s/.test(ch)) i++;
    else if (ch === "(" || ch === ")") (tokens.push({ t: ch }), i++);
    else if (ch === "{" || ch === "}") throw bad("{…} groups are not supported; use OR");
    else if (ch === "-" && i + 1 < query.length && !/[\s)]/.test(query[i + 1] ?? "")) (tokens.push({ t: "-" }), i++);
    else if (ch === '"') {
      const [value, end] = quoted(query, i);
      tokens.push({ t: "term", op: undefined, value });
      i = end;
    } else i = word(query, i, tokens);
  }
  return tokens;
}

/** A bare word, `OR`/`AND`, or `op:value` / `op:"quoted value"`; returns the index after it. */
function word(query: string, start: number, tokens: Token[]): number {
  let end = start;
  while (end < query.length && !/[\s()"{}]/.test(query[end] ?? "")) end++;
  const text = query.slice(start, end);
  if (text === "OR" || text === "AND") {
    tokens.push({ t: text });
    return end;
  }
  const op = /^([A-Za-z_][A-Za-z0-9_]*):/.exec(text);
  if (op === null) {
    tokens.push({ t: "term", op: undefined, value: text });
    return end;
  }
  let value = text.slice(op[0].length);
  if (value === "" && query[end] === '"') [value, end] = quoted(query, end);
  if (value === "") throw bad(`${op[0]} needs a value`);
  tokens.push({ t: "term", op: (op[1] ?? "").toLowerCase(), value });
  return end;
}

function quoted(query: string, start: number): [string, number] {
  const close = query.indexOf('"', start + 1);
  if (close === -1) throw bad("a quote is not closed");
  return [query.slice(start + 1, close), close + 1];
}

function describe(token: Token | undefined): string {
  if (token === undefined) return "end of search";
  return token.t === "term" ? JSON.stringify(token.op === undefined ? token.value : `${token.op}:${token.value}`) : JSON.stringify(token.t);
}

function bad(detail: string): HostProxyError {
  return HostProxyError.invalidInput(`gmail: query: ${detail}`);
}
