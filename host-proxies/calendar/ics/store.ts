/**
 * The files of the .ics backend: `<dir>/<id>.ics`, read with a size cap, replaced atomically
 * (a temp file beside it, fsync, rename, fsync of the directory) so a reader or a crash sees the
 * old file or the new one, never half of one; and one write at a time per calendar within this
 * process, so two adds cannot both read the old file and lose one event.
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readdir, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { HostProxyError } from "../../types.js";
import { calendarIdProblem } from "../calendar-id.js";

export class CalendarFiles {
  readonly #dir: string;
  readonly #maxBytes: number;
  readonly #queues = new Map<string, Promise<unknown>>();

  constructor(dir: string, maxBytes: number) {
    this.#dir = resolve(dir);
    this.#maxBytes = maxBytes;
  }

  /** `<dir>/<id>.ics` for a checked id; refuses anything that would leave the directory. */
  pathOf(id: string): string {
    const problem = calendarIdProblem(id);
    const path = join(this.#dir, `${id}.ics`);
    if (problem !== undefined || dirname(path) !== this.#dir) throw HostProxyError.invalidInput(`calendar id ${JSON.stringify(id.slice(0, 80))} ${problem ?? "leaves the calendar directory"}`);
    return path;
  }

  /** Ids of the `.ics` files in the directory (none when it does not exist yet). */
  async ids(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.#dir);
    } catch (error) {
      if (isCode(error, "ENOENT")) return [];
      throw HostProxyError.io(`calendar directory ${this.#dir}: cannot list it`, error);
    }
    return names.filter((n) => n.endsWith(".ics")).map((n) => n.slice(0, -4)).filter((id) => calendarIdProblem(id) === undefined);
  }

  /** The file's bytes, or `undefined` when there is no such calendar. */
  async read(id: string): Promise<Buffer | undefined> {
    return this.#read(id, undefined);
  }

  /** The first `bytes` bytes of the file (to find its name without parsing it all). */
  async head(id: string, bytes: number): Promise<Buffer | undefined> {
    return this.#read(id, bytes);
  }

  async #read(id: string, limit: number | undefined): Promise<Buffer | undefined> {
    const path = this.pathOf(id);
    let handle;
    try {
      handle = await open(path, "r");
    } catch (error) {
      if (isCode(error, "ENOENT")) return undefined;
      throw HostProxyError.io(`calendar ${id}: cannot open ${basename(path)}`, error);
    }
    try {
      const { size } = await handle.stat();
      if (limit === undefined && size > this.#maxBytes) {
        throw HostProxyError.io(`calendar ${id}: ${basename(path)} is ${size} bytes, over the ${this.#maxBytes}-byte limit`);
      }
      const buffer = Buffer.alloc(Math.min(size, limit ?? size));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  }

  /** Replaces the file with `data` atomically, keeping its mode (new files: owner only). */
  async replace(id: string, data: Uint8Array): Promise<void> {
    const path = this.pathOf(id);
    const mode = await stat(path).then((s) => s.mode & 0o777, () => 0o600);
    const temp = join(this.#dir, `.${id}.ics.${randomBytes(6).toString("hex")}.tmp`);
    try {
      const handle = await open(temp, "wx", mode);
      try {
        await handle.writeFile(data);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      throw HostProxyError.io(`calendar ${id}: cannot write ${basename(path)}`, error);
    }
    await syncDirectory(this.#dir);
  }

  /** Runs `task` after every earlier task for `id` has settled. */
  async exclusive<T>(id: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const run = previous.then(task, task);
    const settled = run.then(() => undefined, () => undefined);
    this.#queues.set(id, settled);
    try {
      return await run;
    } finally {
      if (this.#queues.get(id) === settled) this.#queues.delete(id);
    }
  }

  /** Creates the directory (for the first event of `primary`). */
  async ensureDirectory(): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
  }
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some file systems cannot fsync a directory; the rename itself is still atomic.
  }
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}
