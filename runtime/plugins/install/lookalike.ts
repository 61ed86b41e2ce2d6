/**
 * Lookalike plugin names, in the spirit of Unicode UTS #39's confusable "skeleton": two names
 * whose skeletons are equal read the same to a person skimming a list or an approval, so an
 * agent's `plugins: [fi1es]` could pass for `files`. Manifest names are already lowercase ASCII
 * (`[a-z][a-z0-9-]*`), which rules out case and Unicode homoglyphs at the schema; what is left is
 * the small ASCII part of the confusables table, listed here explicitly.
 */

/** Characters that read as another, after lowercasing (UTS #39 confusables within ASCII, plus `i`/`l`). */
const CHARACTERS: Readonly<Record<string, string>> = {
  "0": "o",
  "1": "l",
  i: "l",
  "|": "l",
  "5": "s",
};

/** Letter pairs that read as one letter (applied after single characters, longest first). */
const SEQUENCES: ReadonlyArray<readonly [string, string]> = [
  ["rn", "m"],
  ["nn", "m"],
  ["vv", "w"],
  ["cl", "d"],
];

/** Separators are invisible to a reader skimming a name: `my-tool`, `my_tool`, `mytool`, `my.tool`. */
const SEPARATORS = /[-_.\s]+/g;

/**
 * The skeleton of a plugin name: equal skeletons mean confusable names. Case-folded, NFKC
 * normalised (so a fullwidth or compatibility form of a letter becomes the letter), separators
 * dropped, confusable characters and sequences mapped to one representative.
 */
export function nameSkeleton(name: string): string {
  let text = name.normalize("NFKC").toLowerCase().replace(SEPARATORS, "");
  text = [...text].map((c) => CHARACTERS[c] ?? c).join("");
  // Repeat until stable: `rnn` → `mn` → … would otherwise depend on the order of the pairs.
  for (let previous = ""; previous !== text; ) {
    previous = text;
    for (const [from, to] of SEQUENCES) text = text.split(from).join(to);
  }
  return text;
}

/** The installed names `name` is confusable with (never `name` itself, case-insensitively). */
export function similarNames(name: string, installed: readonly string[]): string[] {
  const skeleton = nameSkeleton(name);
  return installed.filter((other) => other.toLowerCase() !== name.toLowerCase() && nameSkeleton(other) === skeleton);
}
