import { read, stat } from "clawhive:host/fs@0.1.0";
import { decodeText, defineTool, fail, hostError } from "../../sdk/index.js";
import { baseName, resolvePath } from "../../sdk/fs.js";
import { compileGlob, compileRegExp } from "./patterns.js";
import { NOISY_DIRECTORIES, TreeWalk } from "./walk.js";
import type { WalkedFile } from "./walk.js";

const DEFAULT_MAX_MATCHES = 100;
const MAX_MATCHES = 1000;
/** Larger files are skipped: each read crosses the host bridge whole. */
const MAX_FILE_BYTES = 4n * 1024n * 1024n;
/** A matching line longer than this is cut to a window around the match. */
const MAX_LINE_CHARS = 300;
const MAX_NAMED_UNREADABLE = 20;

interface Match {
  file: string;
  line: number;
  text: string;
}

function clipLine(line: string, re: RegExp): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const at = Math.max(0, (line.search(re) || 0) - 100);
  const head = at > 0 ? "…" : "";
  const tail = at + MAX_LINE_CHARS < line.length ? "…" : "";
  return head + line.slice(at, at + MAX_LINE_CHARS) + tail;
}

class Search {
  readonly matches: Match[] = [];
  truncated = false;
  filesSearched = 0;
  binary = 0;
  tooLarge = 0;
  unreadableCount = 0;
  readonly unreadable: string[] = [];
  readonly #re: RegExp;
  readonly #maxMatches: number;

  constructor(re: RegExp, maxMatches: number) {
    this.#re = re;
    this.#maxMatches = maxMatches;
  }

  /** Searches one file; false once the match cap is reached. */
  file(file: WalkedFile): boolean {
    if (file.size > MAX_FILE_BYTES) {
      this.tooLarge += 1;
      return true;
    }
    const text = this.#read(file.path);
    if (text === undefined) return true;
    this.filesSearched += 1;
    const lines = text.split(/\r?\n/);
    // A final line terminator ends the last line; it does not start an empty one.
    if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i] ?? "";
      if (!this.#re.test(line)) continue;
      if (this.matches.length === this.#maxMatches) {
        this.truncated = true;
        return false;
      }
      this.matches.push({ file: file.path, line: i + 1, text: clipLine(line, this.#re) });
    }
    return true;
  }

  #read(path: string): string | undefined {
    let bytes: Uint8Array;
    try {
      bytes = read(path);
    } catch (e) {
      const failure = hostError(e);
      if (failure === undefined) throw e;
      // One unreadable file (denied, gone since the listing) does not spoil the search.
      this.unreadableCount += 1;
      if (this.unreadable.length < MAX_NAMED_UNREADABLE) {
        this.unreadable.push(`${path} (${failure.tag === "denied" ? `denied: ${failure.val.reason}` : failure.tag})`);
      }
      return undefined;
    }
    const text = decodeText(bytes);
    if (text === undefined) this.binary += 1;
    return text;
  }
}

export const grep = defineTool({
  description:
    "Search text files for a regular expression (JavaScript syntax), line by line. `path` is a file or a " +
    "directory searched recursively (default: the first mount); `glob` filters file names (`*.ts`) or, with a " +
    "`/`, paths below `path` (`src/**/*.ts`). Returns file, line number and line text per match, at most " +
    `\`max_matches\` (default ${DEFAULT_MAX_MATCHES}), with \`truncated\` set when there were more. Binary files ` +
    "and files over 4 MiB are skipped and counted; .git and node_modules are skipped unless named.",
  inputSchema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression, e.g. `function\\s+main`" },
      path: { type: "string", description: "File or directory to search (default: the first mount)" },
      glob: { type: "string", description: "Only search files matching this glob" },
      case_insensitive: { type: "boolean", description: "Ignore case (default false)" },
      max_matches: { type: "integer", minimum: 1, maximum: MAX_MATCHES, description: "Most matches to return" },
    },
    required: ["pattern"],
    additionalProperties: false,
  },
  capabilities: ["fs.read"],
  risk: "safe",
  run({ pattern, path = ".", glob, case_insensitive: caseInsensitive = false, max_matches: maxMatches = DEFAULT_MAX_MATCHES }) {
    if (maxMatches < 1 || maxMatches > MAX_MATCHES) {
      throw fail.invalidInput(`input field "max_matches": must be between 1 and ${MAX_MATCHES}, got ${maxMatches}`);
    }
    const re = compileRegExp(pattern, { field: "pattern", caseInsensitive });
    const filter = glob === undefined ? undefined : compileGlob(glob, "glob");
    const root = resolvePath(path);
    const info = stat(root);
    const search = new Search(re, maxMatches);
    let walkTruncated = false;
    if (info.kind !== "directory") {
      search.file({ path: root, relative: baseName(root), size: info.size });
    } else {
      const walk = new TreeWalk(root, {
        skipDirectories: NOISY_DIRECTORIES.filter((name) => !path.includes(name) && !(glob ?? "").includes(name)),
      });
      for (const file of walk.files()) {
        const name = glob !== undefined && glob.includes("/") ? file.relative : baseName(file.relative);
        if (filter !== undefined && !filter.test(name)) continue;
        if (!search.file(file)) break;
      }
      walkTruncated = walk.truncated;
      search.unreadableCount += walk.unreadableCount;
      search.unreadable.push(...walk.unreadable);
    }
    return {
      pattern,
      path: root,
      matches: search.matches,
      truncated: search.truncated || walkTruncated,
      files_searched: search.filesSearched,
      skipped: { binary: search.binary, too_large: search.tooLarge, unreadable: search.unreadableCount },
      ...(search.unreadable.length > 0 ? { unreadable: search.unreadable.slice(0, MAX_NAMED_UNREADABLE) } : {}),
    };
  },
});
