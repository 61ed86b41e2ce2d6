/**
 * `wasi_snapshot_preview1` of one Extism instance (a core module built for wasip1), served over
 * the same per-instance WASI 0.2 implementation as components: files are descriptors of
 * filesystem.ts (every operation a `clawhive:host/fs` call: canonicaliser, deny list, policy,
 * audit), stdout/stderr go to the run's log (capped), the environment is the plugin's grant,
 * exit traps. There are no sockets: each `sock_*` call is refused on record (sockets.ts).
 */
import type { WasiInstanceContext } from "./context.js";
import { cliImports, GuestExit } from "./cli.js";
import { Descriptor, filesystemImports } from "./filesystem.js";
import { preview1SocketFunctions } from "./sockets.js";
import type { OutputStream } from "./streams.js";

/** preview1 errno values used here. */
const E = { SUCCESS: 0, FBIG: 22, ACCES: 2, BADF: 8, EXIST: 20, INVAL: 28, IO: 29, ISDIR: 31, NOENT: 44, NOSYS: 52, NOTDIR: 54, NOTEMPTY: 55, NOTCAPABLE: 76, PERM: 63, NAMETOOLONG: 37 } as const;
const ERRNO: Record<string, number> = {
  access: E.ACCES,
  "file-too-large": E.FBIG,
  "not-permitted": E.NOTCAPABLE,
  "no-entry": E.NOENT,
  exist: E.EXIST,
  "not-directory": E.NOTDIR,
  "is-directory": E.ISDIR,
  invalid: E.INVAL,
  io: E.IO,
  "not-empty": E.NOTEMPTY,
  "name-too-long": E.NAMETOOLONG,
  unsupported: E.NOSYS,
  "bad-descriptor": E.BADF,
};
const FILETYPE: Record<string, number> = { unknown: 0, directory: 3, "regular-file": 4, "symbolic-link": 7 };

interface OpenFile {
  descriptor: Descriptor;
  /** The guest's name of a preopen, for fd_prestat_dir_name. */
  preopen?: string;
  position: bigint;
  append: boolean;
}

/** The memory of the instance, set once it exists (imports are made before instantiation). */
export interface MemoryHolder {
  memory: WebAssembly.Memory | undefined;
}

type Fn = (...args: never[]) => number | bigint | void;

/** The import namespace; every function takes the SDK's call context first (ignored here). */
export function preview1Imports(context: WasiInstanceContext, holder: MemoryHolder): Record<string, Fn> {
  const cli = cliImports(context);
  const fs = filesystemImports(context);
  const stdout = () => (cli["wasi:cli/stdout"]!.getStdout as () => OutputStream)();
  const stderr = () => (cli["wasi:cli/stderr"]!.getStderr as () => OutputStream)();
  const env = Object.entries(context.grant.env).map(([k, v]) => `${k}=${v}`);
  const args = [...context.grant.args];
  const files = new Map<number, OpenFile>();
  let nextFd = 3;
  let preopened = false;
  const openPreopens = () => {
    if (preopened) return;
    const dirs = (fs["wasi:filesystem/preopens"]!.getDirectories as () => Array<[Descriptor, string]>)();
    // None (no mounts, or asked before the instance was bound): asked again on the next use.
    preopened = dirs.length > 0;
    for (const [descriptor, name] of dirs) files.set(nextFd++, { descriptor, preopen: name, position: 0n, append: false });
  };
  const view = () => new DataView(holder.memory!.buffer);
  const bytes = (ptr: number, len: number) => new Uint8Array(holder.memory!.buffer, ptr, len);
  const text = (ptr: number, len: number) => Buffer.from(bytes(ptr, len)).toString("utf8");
  const guard = (body: () => number): number => {
    try {
      return body();
    } catch (error) {
      if (error instanceof GuestExit || error instanceof Error) throw error;
      return typeof error === "string" ? (ERRNO[error] ?? E.IO) : E.IO;
    }
  };
  const file = (fd: number): OpenFile => {
    openPreopens();
    const open = files.get(fd);
    if (!open) throw "bad-descriptor";
    return open;
  };
  const iovecs = (ptr: number, count: number): Uint8Array[] => {
    const out: Uint8Array[] = [];
    for (let i = 0; i < count; i++) out.push(bytes(view().getUint32(ptr + i * 8, true), view().getUint32(ptr + i * 8 + 4, true)));
    return out;
  };
  const strings = (list: string[], ptrs: number, buf: number) => {
    let at = buf;
    list.forEach((s, i) => {
      const encoded = Buffer.from(`${s}\0`, "utf8");
      view().setUint32(ptrs + i * 4, at, true);
      bytes(at, encoded.length).set(encoded);
      at += encoded.length;
    });
    return E.SUCCESS;
  };
  const sizes = (list: string[], countPtr: number, sizePtr: number) => {
    view().setUint32(countPtr, list.length, true);
    view().setUint32(sizePtr, list.reduce((n, s) => n + Buffer.byteLength(s) + 1, 0), true);
    return E.SUCCESS;
  };
  const writeStat = (ptr: number, stat: Record<string, unknown>) => {
    const v = view();
    for (let i = 0; i < 64; i++) v.setUint8(ptr + i, 0);
    v.setUint8(ptr + 16, FILETYPE[String(stat.type)] ?? 0);
    v.setBigUint64(ptr + 24, 1n, true);
    v.setBigUint64(ptr + 32, BigInt(stat.size as bigint), true);
    const m = stat.dataModificationTimestamp as { seconds: bigint; nanoseconds: number } | undefined;
    if (m) v.setBigUint64(ptr + 48, m.seconds * 1_000_000_000n + BigInt(m.nanoseconds), true);
  };

  const functions: Record<string, (...a: never[]) => number | bigint | void> = {
    args_get: (_c: unknown, ptrs: number, buf: number) => strings(args, ptrs, buf),
    args_sizes_get: (_c: unknown, count: number, size: number) => sizes(args, count, size),
    environ_get: (_c: unknown, ptrs: number, buf: number) => strings(env, ptrs, buf),
    environ_sizes_get: (_c: unknown, count: number, size: number) => sizes(env, count, size),
    clock_res_get: (_c: unknown, _id: number, out: number) => (view().setBigUint64(out, 1000n, true), E.SUCCESS),
    clock_time_get: (_c: unknown, id: number, _precision: bigint, out: number) => {
      const now = id === 0 ? BigInt(Date.now()) * 1_000_000n : process.hrtime.bigint();
      view().setBigUint64(out, now, true);
      return E.SUCCESS;
    },
    random_get: (_c: unknown, buf: number, len: number) => {
      const random = cli["wasi:random/random"]!.getRandomBytes as (n: bigint) => Uint8Array;
      for (let at = 0; at < len; at += 65536) bytes(buf + at, Math.min(65536, len - at)).set(random(BigInt(Math.min(65536, len - at))));
      return E.SUCCESS;
    },
    proc_exit: (_c: unknown, code: number) => {
      throw new GuestExit(code);
    },
    sched_yield: () => E.SUCCESS,
    fd_write: (_c: unknown, fd: number, iovs: number, count: number, written: number) =>
      guard(() => {
        const chunks = iovecs(iovs, count);
        let n = 0;
        if (fd === 1 || fd === 2) {
          const stream = fd === 1 ? stdout() : stderr();
          for (const chunk of chunks) for (let at = 0; at < chunk.byteLength; at += 4096) stream.blockingWriteAndFlush(chunk.slice(at, at + 4096));
          n = chunks.reduce((s, c) => s + c.byteLength, 0);
        } else {
          const open = file(fd);
          const data = Buffer.concat(chunks);
          const offset = open.append ? (open.descriptor.stat().size as bigint) : open.position;
          n = Number(open.descriptor.write(new Uint8Array(data), offset));
          open.position = offset + BigInt(n);
        }
        view().setUint32(written, n, true);
        return E.SUCCESS;
      }),
    fd_read: (_c: unknown, fd: number, iovs: number, count: number, read: number) =>
      guard(() => {
        let n = 0;
        if (fd !== 0) {
          const open = file(fd);
          for (const target of iovecs(iovs, count)) {
            const [chunk] = open.descriptor.read(BigInt(target.byteLength), open.position);
            target.set(chunk);
            open.position += BigInt(chunk.byteLength);
            n += chunk.byteLength;
            if (chunk.byteLength < target.byteLength) break;
          }
        }
        view().setUint32(read, n, true);
        return E.SUCCESS;
      }),
    fd_pread: (_c: unknown, fd: number, iovs: number, count: number, offset: bigint, read: number) =>
      guard(() => {
        const open = file(fd);
        let n = 0;
        for (const target of iovecs(iovs, count)) {
          const [chunk] = open.descriptor.read(BigInt(target.byteLength), offset + BigInt(n));
          target.set(chunk);
          n += chunk.byteLength;
          if (chunk.byteLength < target.byteLength) break;
        }
        view().setUint32(read, n, true);
        return E.SUCCESS;
      }),
    fd_seek: (_c: unknown, fd: number, offset: bigint, whence: number, out: number) =>
      guard(() => {
        const open = file(fd);
        const base = whence === 0 ? 0n : whence === 1 ? open.position : (open.descriptor.stat().size as bigint);
        const next = base + offset;
        if (next < 0n) return E.INVAL;
        open.position = next;
        view().setBigUint64(out, next, true);
        return E.SUCCESS;
      }),
    fd_tell: (_c: unknown, fd: number, out: number) => guard(() => (view().setBigUint64(out, file(fd).position, true), E.SUCCESS)),
    fd_close: (_c: unknown, fd: number) =>
      guard(() => {
        const open = file(fd);
        if (open.preopen !== undefined) return E.BADF;
        files.delete(fd);
        return E.SUCCESS;
      }),
    fd_sync: (_c: unknown, fd: number) => guard(() => (file(fd).descriptor.sync(), E.SUCCESS)),
    fd_datasync: (_c: unknown, fd: number) => guard(() => (file(fd).descriptor.sync(), E.SUCCESS)),
    fd_fdstat_get: (_c: unknown, fd: number, out: number) =>
      guard(() => {
        const type = fd <= 2 ? 2 : (FILETYPE[file(fd).descriptor.getType()] ?? 0);
        const v = view();
        v.setUint8(out, type);
        v.setUint16(out + 2, 0, true);
        // Every right: the proxy decides each operation, not these bits.
        v.setBigUint64(out + 8, (1n << 30n) - 1n, true);
        v.setBigUint64(out + 16, (1n << 30n) - 1n, true);
        return E.SUCCESS;
      }),
    fd_fdstat_set_flags: () => E.SUCCESS,
    fd_prestat_get: (_c: unknown, fd: number, out: number) =>
      guard(() => {
        openPreopens();
        const open = files.get(fd);
        if (!open || open.preopen === undefined) return E.BADF;
        view().setUint8(out, 0);
        view().setUint32(out + 4, Buffer.byteLength(open.preopen), true);
        return E.SUCCESS;
      }),
    fd_prestat_dir_name: (_c: unknown, fd: number, ptr: number, len: number) =>
      guard(() => {
        const open = file(fd);
        if (open.preopen === undefined) return E.BADF;
        bytes(ptr, len).set(Buffer.from(open.preopen).subarray(0, len));
        return E.SUCCESS;
      }),
    fd_filestat_get: (_c: unknown, fd: number, out: number) => guard(() => (writeStat(out, file(fd).descriptor.stat()), E.SUCCESS)),
    fd_filestat_set_size: (_c: unknown, fd: number, size: bigint) => guard(() => (file(fd).descriptor.setSize(size), E.SUCCESS)),
    fd_readdir: (_c: unknown, fd: number, buf: number, len: number, cookie: bigint, used: number) =>
      guard(() => {
        const stream = file(fd).descriptor.readDirectory();
        const entries: Array<{ type: string; name: string }> = [];
        for (let e = stream.readDirectoryEntry(); e; e = stream.readDirectoryEntry()) entries.push(e);
        let at = 0;
        for (let i = Number(cookie); i < entries.length && at < len; i++) {
          const name = Buffer.from(entries[i]!.name);
          const header = new Uint8Array(24);
          const h = new DataView(header.buffer);
          h.setBigUint64(0, BigInt(i + 1), true);
          h.setUint32(16, name.length, true);
          h.setUint8(20, FILETYPE[entries[i]!.type] ?? 0);
          const record = Buffer.concat([header, name]);
          const take = Math.min(record.length, len - at);
          bytes(buf + at, take).set(record.subarray(0, take));
          at += take;
        }
        view().setUint32(used, at, true);
        return E.SUCCESS;
      }),
    path_open: (_c: unknown, fd: number, _dirflags: number, path: number, pathLen: number, oflags: number, rights: bigint, _inheriting: bigint, fdflags: number, out: number) =>
      guard(() => {
        const dir = file(fd).descriptor;
        const write = (rights & ((1n << 6n) | (1n << 22n))) !== 0n; // fd_write, fd_filestat_set_size
        const open = { create: (oflags & 1) !== 0, directory: (oflags & 2) !== 0, exclusive: (oflags & 4) !== 0, truncate: (oflags & 8) !== 0 };
        const descriptor = dir.openAt({}, text(path, pathLen), open, { read: true, write: write && !open.directory });
        const newFd = nextFd++;
        files.set(newFd, { descriptor, position: 0n, append: (fdflags & 1) !== 0 });
        view().setUint32(out, newFd, true);
        return E.SUCCESS;
      }),
    path_filestat_get: (_c: unknown, fd: number, _flags: number, path: number, len: number, out: number) =>
      guard(() => (writeStat(out, file(fd).descriptor.statAt({}, text(path, len))), E.SUCCESS)),
    path_create_directory: (_c: unknown, fd: number, path: number, len: number) => guard(() => (file(fd).descriptor.createDirectoryAt(text(path, len)), E.SUCCESS)),
    path_remove_directory: (_c: unknown, fd: number, path: number, len: number) => guard(() => (file(fd).descriptor.removeDirectoryAt(text(path, len)), E.SUCCESS)),
    path_unlink_file: (_c: unknown, fd: number, path: number, len: number) => guard(() => (file(fd).descriptor.unlinkFileAt(text(path, len)), E.SUCCESS)),
    path_readlink: () => E.NOTCAPABLE,
    path_symlink: () => E.NOTCAPABLE,
    path_link: () => E.NOTCAPABLE,
    path_rename: () => E.NOSYS,
    path_filestat_set_times: () => E.NOSYS,
    fd_filestat_set_times: () => E.NOSYS,
    fd_advise: () => E.SUCCESS,
    fd_allocate: () => E.NOSYS,
    fd_renumber: () => E.NOSYS,
    poll_oneoff: () => E.NOSYS,
    ...preview1SocketFunctions(context),
  };
  return functions as Record<string, Fn>;
}

/** The preview1 functions served; any other import of the module is refused at install. */
export const PREVIEW1_SERVED: ReadonlySet<string> = new Set(Object.keys(preview1Imports({ hostCall: () => ({ ok: true, value: [] }), grant: { env: {}, config: {}, args: [] } }, { memory: undefined })));

/** The preview1 functions that reach files: a module importing one must declare fs.read or fs.write. */
export const PREVIEW1_FILES: ReadonlySet<string> = new Set(["path_open", "path_filestat_get", "path_create_directory", "path_remove_directory", "path_unlink_file", "fd_readdir"]);
