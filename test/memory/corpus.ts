/** The labelled memory corpus under test/fixtures/memory (see its README for provenance). */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../runtime/plugins/locations.js";
import type { MemoryHit } from "../../runtime/memory/index.js";

export const FIXTURES = join(PROJECT_ROOT, "test", "fixtures", "memory");

export interface CorpusDoc {
  id: string;
  text: string;
}

export interface LabelledQuery {
  query: string;
  episode: string;
  heading: string;
}

export async function loadCorpus(): Promise<CorpusDoc[]> {
  const dir = join(FIXTURES, "corpus");
  const names = (await readdir(dir)).filter((n) => n.endsWith(".md")).sort();
  return Promise.all(names.map(async (n) => ({ id: n.slice(0, -3), text: await readFile(join(dir, n), "utf8") })));
}

export async function loadQueries(): Promise<LabelledQuery[]> {
  const json = JSON.parse(await readFile(join(FIXTURES, "queries.json"), "utf8")) as { queries: LabelledQuery[] };
  return json.queries;
}

/** Whether a hit answers the query: from its episode (ids may carry a `#n` copy suffix), under its heading. */
export function answers(hit: MemoryHit, q: LabelledQuery): boolean {
  return hit.episodeId.split("#")[0] === q.episode && hit.headingPath.includes(q.heading);
}

/** The share of queries with an answering hit among their top `k`. */
export async function recallAt(queries: readonly LabelledQuery[], search: (q: string) => Promise<MemoryHit[]>): Promise<{ recall: number; missed: string[] }> {
  const missed: string[] = [];
  for (const q of queries) if (!(await search(q.query)).some((hit) => answers(hit, q))) missed.push(q.query);
  return { recall: (queries.length - missed.length) / queries.length, missed };
}
