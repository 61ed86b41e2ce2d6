/**
 * Reading a Maildir++ tree (https://cr.yp.to/proto/maildir.html, Courier's Maildir++): the root
 * is `INBOX`; each `.A.B` directory beside `cur/new/tmp` is the folder `A/B` (`.` is the
 * hierarchy separator; names are IMAP modified UTF-7, RFC 3501 §5.1.3). Messages are the
 * regular files in `new/` and `cur/`; `tmp/`, dot-files and symlinks are skipped (a symlink
 * could point a guest at any file on the host). Flags come from the `:2,` info suffix.
 *
 * Message id: `localId("maildir", label, unique name)`, the unique name being the file name
 * before `:2,`. It survives flag changes and the move from `new/` to `cur/` (both keep the
 * unique name); moving a message to another folder makes it a different message.
 */
import { constants } from "node:fs";
import { lstat, open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { LocalEntry } from "./entry.js";
import { localId } from "./entry.js";

export interface MaildirFolder {
  label: string;
  dir: string;
}

/** The root (`INBOX`) and every `.Name` subfolder that has a `cur/` directory. */
export async function maildirFolders(root: string): Promise<MaildirFolder[]> {
  const folders: MaildirFolder[] = [];
  if (await isDir(join(root, "cur"))) folders.push({ label: "INBOX", dir: root });
  for (const dirent of await readdir(root, { withFileTypes: true })) {
    if (!dirent.isDirectory() || !dirent.name.startsWith(".") || dirent.name === "." || dirent.name === "..") continue;
    const label = folderLabel(dirent.name.slice(1));
    // `.INBOX` would alias the root; undecodable names have no label to grant.
    if (label === undefined || label === "INBOX") continue;
    const dir = join(root, dirent.name);
    if (await isDir(join(dir, "cur"))) folders.push({ label, dir });
  }
  return folders;
}

/** `Work.Reports` → `Work/Reports`; undefined for an empty segment or bad modified UTF-7. */
export function folderLabel(name: string): string | undefined {
  const segments = name.split(".");
  if (segments.some((s) => s === "")) return undefined;
  const decoded = segments.map(decodeModifiedUtf7);
  return decoded.some((s) => s === undefined || s.includes("/")) ? undefined : decoded.join("/");
}

/** RFC 3501 §5.1.3: `&` … `-` is base64 (`,` for `/`) of UTF-16BE; `&-` is `&`. */
export function decodeModifiedUtf7(text: string): string | undefined {
  let bad = false;
  const out = text.replace(/&([A-Za-z0-9+,]*)-|&/g, (whole, b64: string | undefined) => {
    if (b64 === undefined) return ((bad = true), whole);
    if (b64 === "") return "&";
    const bytes = Buffer.from(b64.replace(/,/g, "/"), "base64");
    if (bytes.length % 2 !== 0) return ((bad = true), whole);
    return bytes.swap16().toString("utf16le");
  });
  return bad ? undefined : out;
}

/** The messages of one folder; `order` counts on from `firstOrder`. */
export async function maildirEntries(folder: MaildirFolder, firstOrder = 0): Promise<LocalEntry[]> {
  const entries: LocalEntry[] = [];
  for (const sub of ["new", "cur"] as const) {
    const dir = join(folder.dir, sub);
    if (!(await isDir(dir))) continue;
    const dirents = await readdir(dir, { withFileTypes: true });
    for (const dirent of dirents.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (!dirent.isFile() || dirent.name.startsWith(".")) continue;
      entries.push(await fileEntry(folder, join(dir, dirent.name), { name: dirent.name, inNew: sub === "new", order: firstOrder + entries.length }));
    }
  }
  return entries;
}

async function fileEntry(folder: MaildirFolder, path: string, file: { name: string; inNew: boolean; order: number }): Promise<LocalEntry> {
  const info = file.name.lastIndexOf(":2,");
  const unique = info === -1 ? file.name : file.name.slice(0, info);
  const flags = info === -1 || file.inNew ? "" : file.name.slice(info + 3);
  // The unique name starts with the delivery time in seconds; other namers get the mtime.
  const epoch = /^(\d{9,11})\./.exec(unique);
  const deliveredMs = epoch === null ? (await stat(path)).mtimeMs : Number(epoch[1]) * 1000;
  const { label } = folder;
  return {
    id: localId("maildir", label, unique),
    label,
    unread: !flags.includes("S"),
    starred: flags.includes("F"),
    deliveredMs,
    order: file.order,
    contentKey: `maildir\0${folder.dir}\0${unique}`,
    read: (maxBytes) => readCapped(path, maxBytes),
  };
}

/** At most `maxBytes` of a file, refusing to follow a symlink swapped in after the listing. */
export async function readCapped(path: string, maxBytes: number): Promise<{ bytes: Buffer; truncated: boolean }> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const size = (await handle.stat()).size;
    const length = Math.min(size, maxBytes);
    const bytes = Buffer.alloc(length);
    let read = 0;
    while (read < length) {
      const { bytesRead } = await handle.read(bytes, read, length - read, read);
      if (bytesRead === 0) break;
      read += bytesRead;
    }
    return { bytes: bytes.subarray(0, read), truncated: size > maxBytes };
  } finally {
    await handle.close();
  }
}

/** A real directory: a symlinked `cur/` could list any directory on the host as mail. */
async function isDir(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isDirectory();
  } catch {
    return false;
  }
}
