import type { Migration } from "../store/index.js";

export const scheduleMigrations: readonly Migration[] = [
  {
    room: "schedules",
    version: 1,
    name: "schedules and their firings",
    statements: [
      `CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        agent TEXT NOT NULL,
        kind TEXT NOT NULL,
        at INTEGER,
        cron TEXT,
        timezone TEXT,
        task TEXT NOT NULL,
        tool_calls TEXT,
        captured_grants TEXT NOT NULL,
        owner_token TEXT,
        until INTEGER,
        max_runs INTEGER,
        runs_so_far INTEGER NOT NULL DEFAULT 0,
        next_at INTEGER,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        ended_at INTEGER
      ) STRICT`,
      "CREATE INDEX schedules_due ON schedules (status, next_at)",
      "CREATE INDEX schedules_owner ON schedules (owner_token)",
      // One row a due time: the primary key is the exactly-once guard between runtime nodes.
      `CREATE TABLE schedule_firings (
        schedule_id TEXT NOT NULL,
        due_at INTEGER NOT NULL,
        status TEXT NOT NULL,
        run_id TEXT,
        error TEXT,
        node TEXT NOT NULL,
        at INTEGER NOT NULL,
        PRIMARY KEY (schedule_id, due_at)
      ) STRICT`,
    ],
  },
  {
    room: "schedules",
    version: 2,
    name: "who created a schedule: a person (through the API or CLI) or an agent's run",
    statements: [
      // Null for a person's schedule. An agent lists, counts and cancels only the schedules its
      // own runs made: these columns say which, and nothing a caller sends can change them.
      "ALTER TABLE schedules ADD COLUMN created_by_agent TEXT",
      "ALTER TABLE schedules ADD COLUMN created_by_run TEXT",
      "CREATE INDEX schedules_created_by_agent ON schedules (created_by_agent, status)",
    ],
  },
];
