/**
 * Turns a person's or model's words into an FTS5 query that can only ever mean "any of these
 * words": each word is a quoted string (FTS5 doubles `"` inside one), so `NEAR`, `*`, `^`,
 * `col:` filters, parentheses and `AND/OR/NOT` arrive as plain text
 * (https://www.sqlite.org/fts5.html#full_text_query_syntax). Words are joined with OR and
 * bm25 ranks the chunks that hold more of them higher. Returns undefined when no word is left.
 */
const WORD = /[\p{L}\p{N}_]+/gu;
// Words so common that OR-ing them in only slows the match and blurs the ranking.
const STOPWORDS = new Set(
  "a an and are as at be by can do does for from how i if in is it its of on or that the this to was what when where which who why with you your".split(" "),
);
const MAX_TERMS = 32;

export function ftsQuery(text: string): string | undefined {
  const terms = ftsTerms(text);
  return terms.length === 0 ? undefined : terms.join(" OR ");
}

/** The distinct words of `text` (stopwords dropped, at most 32), each a quoted FTS5 string. */
export function ftsTerms(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    if (STOPWORDS.has(word) || terms.includes(word)) continue;
    terms.push(word);
    if (terms.length === MAX_TERMS) break;
  }
  return terms.map((t) => `"${t.replaceAll('"', '""')}"`);
}
