/**
 * The command line: `clawhive mcp review` shows a server's definitions and exits 3 until they
 * are accepted (`--accept`); `clawhive call` then calls `<server>.<tool>` like a plugin's tool,
 * a Guarded one waiting for approval.
 */
import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { cliPlace, clawhiveIn } from "../cli/fixtures.js";
import { EVERYTHING_SERVER, NO_SANDBOX, NODE_MODULES } from "./client-fixtures.js";

test("clawhive mcp review, --accept, then clawhive call", { skip: NO_SANDBOX, timeout: 300_000 }, async () => {
  const place = await cliPlace("clawhive-mcp-cli-");
  await writeFile(
    join(place.agents, "everyone.yaml"),
    stringify({
      name: "everyone",
      description: "uses the everything server",
      model: { provider: "anthropic", id: "test-model" },
      system_prompt: "test",
      mcp_servers: { every: { command: "node", args: [EVERYTHING_SERVER, "stdio"], read_only: [NODE_MODULES], tools: ["echo", "get_sum"] } },
      approvals: { lower_risk: [{ tool: "every.echo", to: "safe", acknowledged: true }] },
    }),
  );
  const common = ["--agents", place.agents];
  const before = clawhiveIn(place, "call", "every.echo", '{"message":"hi"}', "--agent", "everyone", ...common);
  assert.equal(before.code, 2, before.stderr);
  assert.match(before.stderr, /no tool every\.echo/, "not offered before the definitions are accepted");

  const review = clawhiveIn(place, "mcp", "review", "everyone", "every", ...common);
  assert.equal(review.code, 3, review.stderr);
  assert.match(review.stderr, /nothing accepted yet/);
  assert.match(review.stderr, /\+ tool echo: Echoes back the input/);
  assert.match(review.stderr, /re-run with --accept/);

  const accepted = clawhiveIn(place, "mcp", "review", "everyone", "every", "--accept", ...common);
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stderr, /accepted: \d+ tools of every are offered to everyone's runs/);
  const again = clawhiveIn(place, "mcp", "review", "everyone", "every", ...common);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /no change/);

  const echo = clawhiveIn(place, "call", "every.echo", '{"message":"hi"}', "--agent", "everyone", ...common);
  assert.equal(echo.code, 0, echo.stderr);
  assert.equal(echo.stdout.trim(), "Echo: hi");
  const sum = clawhiveIn(place, "call", "every.get_sum", '{"a":1,"b":2}', "--agent", "everyone", ...common);
  assert.equal(sum.code, 3, sum.stderr);
  assert.match(sum.stderr, /waiting for approval .*every\.get_sum is Guarded/);

  const usage = clawhiveIn(place, "mcp", "review", "everyone", ...common);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /usage: clawhive mcp review AGENT SERVER/);
});
