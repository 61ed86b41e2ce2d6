/**
 * The project's own build inputs read once for the builds of one pass (a runtime's start checks
 * every first-party plugin's cached build; `buildAll`): the AssemblyScript SDK's sources and
 * clawhive's WIT packages are the same for every plugin, and each plugin's check read and listed
 * them again (seven plugins: ~230 reads of the same ~35 files). Only files of the project, never a
 * plugin's own folder (that is read through confine.ts, each time).
 */
import { readFile } from "node:fs/promises";

export class BuildReads {
  readonly #texts = new Map<string, Promise<string>>();
  readonly #listings = new Map<string, Promise<unknown>>();

  /** The UTF-8 text of a project file. */
  text(path: string): Promise<string> {
    let text = this.#texts.get(path);
    if (text === undefined) this.#texts.set(path, (text = readFile(path, "utf8")));
    return text;
  }

  /** What `list` makes of the folder `dir`, once per `kind` of listing. */
  listing<T>(dir: string, kind: string, list: (dir: string) => Promise<T>): Promise<T> {
    const key = `${kind}\0${dir}`;
    let listed = this.#listings.get(key) as Promise<T> | undefined;
    if (listed === undefined) this.#listings.set(key, (listed = list(dir)));
    return listed;
  }
}

/** Reads that share nothing: each call reads the disk (a single build). */
export const UNSHARED: Pick<BuildReads, "text" | "listing"> = {
  text: (path) => readFile(path, "utf8"),
  listing: (dir, _kind, list) => list(dir),
};
