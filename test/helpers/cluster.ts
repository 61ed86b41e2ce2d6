/** Runtime nodes as child processes (see cluster-node.ts): started, watched, killed with SIGKILL. */
import { spawn, type ChildProcess } from "node:child_process";
import { writeTestSecretKeySync } from "./secret-key.js";

const NODE = new URL("./cluster-node.js", import.meta.url);

export interface NodeLine {
  node: string;
  ready?: string;
  ack?: string;
  file?: string;
  asked?: number;
  submitted?: number;
}

export interface ClusterNode {
  readonly name: string;
  readonly lines: NodeLine[];
  readonly process: ChildProcess;
  /** Resolves with the first line (already printed or to come) that `match` accepts. */
  waitFor(match: (line: NodeLine) => boolean, timeoutMs?: number): Promise<NodeLine>;
  kill(): Promise<void>;
  /** Asks the node to close its runtime and exit. */
  close(): Promise<void>;
}

const children = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

export function startNode(options: { url: string; dataDir: string; name: string; mode: "load" | "hang" | "idle"; count?: number; authToken?: string; leaseMs?: number }): ClusterNode {
  // Written here, before any node starts: nodes starting together would race to make their own.
  writeTestSecretKeySync(options.dataDir);
  const env: NodeJS.ProcessEnv = { ...process.env, CLUSTER_LEASE_MS: String(options.leaseMs ?? 3000) };
  if (options.authToken !== undefined) env.CLAWHIVE_STORE_AUTH_TOKEN = options.authToken;
  const child = spawn(process.execPath, [NODE.pathname, options.url, options.dataDir, options.name, options.mode, String(options.count ?? 0)], { stdio: ["pipe", "pipe", "pipe"], env });
  children.add(child);
  const lines: NodeLine[] = [];
  const waiters: Array<{ match: (line: NodeLine) => boolean; resolve: (line: NodeLine) => void }> = [];
  let buffer = "";
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  child.stdout!.on("data", (chunk: Buffer) => {
    buffer += chunk.toString();
    for (let nl = buffer.indexOf("\n"); nl !== -1; nl = buffer.indexOf("\n")) {
      const text = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (!text.startsWith("{")) continue;
      const line = JSON.parse(text) as NodeLine;
      lines.push(line);
      for (const w of waiters.filter((w) => w.match(line))) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  exited.then(() => children.delete(child));
  return {
    name: options.name,
    lines,
    process: child,
    waitFor: (match, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const found = lines.find(match);
        if (found) return resolve(found);
        const timer = setTimeout(() => reject(new Error(`node ${options.name}: no matching line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
        waiters.push({ match, resolve: (line) => (clearTimeout(timer), resolve(line)) });
        void exited.then(() => {
          clearTimeout(timer);
          reject(new Error(`node ${options.name} exited (${child.exitCode ?? child.signalCode}); stderr: ${stderr}`));
        });
      }),
    kill: async () => {
      child.kill("SIGKILL");
      await exited;
    },
    close: async () => {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
