/**
 * Bindings for `clawhive:host/log@0.1.1` (wit/host/log.wit): a line into the run's log. The host
 * limits size and rate and drops a refused line (the function returns nothing, so no error can
 * reach the guest).
 */
import { Lent } from "../abi";

@external("clawhive:host/log@0.1.1", "write")
declare function writeImport(level: i32, mp: usize, ml: usize): void;

/** `level`'s cases, in WIT order. */
export const enum Level { Debug = 0, Info = 1, Warn = 2, Error = 3 }

/** `write: func(level: level, message: string)`. */
export function write(level: Level, message: string): void {
  const lent = new Lent();
  lent.string(0, message);
  writeImport(<i32>level, lent.ptr(0), lent.len(0));
  lent.free();
}

export function debug(message: string): void { write(Level.Debug, message); }
export function info(message: string): void { write(Level.Info, message); }
export function warn(message: string): void { write(Level.Warn, message); }
export function error(message: string): void { write(Level.Error, message); }
