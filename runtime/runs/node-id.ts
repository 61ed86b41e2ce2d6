import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * Runtime node ids. Leases on runs name the node that holds them; a node id says which machine
 * and process it is, so a lease held by a process of this machine that has died can be taken
 * over at once rather than after it runs out.
 */

/** `node_<host>_<pid>_<random>`: unique per process, and says where the process ran. */
export function nodeId(): string {
  return `node_${safeHostname()}_${process.pid}_${randomBytes(4).toString("hex")}`;
}

export function parseNodeId(node: string): { host: string; pid: number } | undefined {
  const match = /^node_(.+)_(\d+)_[0-9a-f]{8}$/.exec(node);
  return match ? { host: match[1]!, pid: Number(match[2]) } : undefined;
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function safeHostname(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, "-");
}
