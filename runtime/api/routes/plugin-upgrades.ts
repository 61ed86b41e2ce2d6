/** Pending widening upgrades: list, read, accept (verified again), reject. Admin only, audited like installs. */
import * as v from "valibot";
import { NotFoundError } from "../../errors.js";
import type { Runtime } from "../../runtime.js";
import { principalOf } from "../auth/index.js";
import type { Principal } from "../auth/principal.js";
import * as S from "../schemas/resources.js";
import { NAME } from "./fields.js";
import { installAnswer, pendingView } from "./plugin-views.js";
import { defineRoute, reply } from "./route.js";
import type { ApiRoute } from "./route.js";

const Params = v.strictObject({ name: NAME });

/**
 * The routes of pending upgrades. `GET /v1/plugins/upgrades` is registered before
 * `GET /v1/plugins/:name`, so it is the list whatever plugins are installed.
 */
export function pendingUpgradeRoutes(runtime: Runtime): ApiRoute[] {
  const pending = runtime.installer.registry.pending;
  return [
    defineRoute({
      method: "GET",
      path: "/v1/plugins/upgrades",
      tag: "plugins",
      summary: "Pending upgrades: widening upgrades refused for want of acceptance, with their permission diffs",
      description: `A widening upgrade sent without accept is kept here (one per plugin, the newest replacing an older one; at most 16, each for 7 days) until a person accepts or rejects it.`,
      roles: ["admin"],
      responses: { 200: { description: "the pending upgrades, by name", schema: S.PendingUpgradePage } },
      handler: async (c) => reply(c, S.PendingUpgradePage, { upgrades: (await pending.list()).map(pendingView) }),
    }),
    defineRoute({
      method: "GET",
      path: "/v1/plugins/:name/upgrade",
      tag: "plugins",
      summary: "The pending upgrade of one plugin, with its permission diff",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "the pending upgrade", schema: S.PendingUpgradeBody }, 404: { description: "no pending upgrade of that plugin" } },
      handler: async (c, { params }) => {
        const found = await pending.get(params.name);
        if (found === undefined) throw new NotFoundError(`no pending upgrade of plugin ${params.name}`);
        return reply(c, S.PendingUpgradeBody, { upgrade: pendingView(found) });
      },
    }),
    defineRoute({
      method: "POST",
      path: "/v1/plugins/:name/upgrade/accept",
      tag: "plugins",
      summary: "Accept a pending upgrade: its package is verified again and installed",
      description:
        "Refused with 409 upgrade_base_changed (naming the version installed now) when the plugin was upgraded, reinstalled or removed since the diff was made, and 409 upgrade_diff_changed when the diff made again is not the one shown. The upgrade is a `plugin` audit record as any other.",
      roles: ["admin"],
      params: Params,
      responses: {
        200: { description: "upgraded, with the permission diff", schema: S.PluginInstalled },
        404: { description: "no pending upgrade of that plugin" },
        409: { description: "upgrade_base_changed or upgrade_diff_changed" },
        422: { description: "the kept package failed verification again" },
      },
      handler: async (c, { params }) => {
        const result = await runtime.installer.acceptUpgrade(params.name, { by: principalName(c) });
        await runtime.refreshPlugins();
        return reply(c, S.PluginInstalled, installAnswer(result), 200);
      },
    }),
    defineRoute({
      method: "DELETE",
      path: "/v1/plugins/:name/upgrade",
      tag: "plugins",
      summary: "Reject a pending upgrade: it is dropped, the installed plugin stays",
      roles: ["admin"],
      params: Params,
      responses: { 200: { description: "rejected", schema: S.PendingUpgradeRejected }, 404: { description: "no pending upgrade of that plugin" } },
      handler: async (c, { params }) => reply(c, S.PendingUpgradeRejected, { rejected: pendingView(await runtime.installer.rejectUpgrade(params.name, { by: principalName(c) })) }),
    }),
  ];
}

/** Who a request's changes are audited as: the person acting in this process (`actor`), else its token. */
export function principalName(c: Parameters<typeof principalOf>[0]): string {
  return changerOf(principalOf(c));
}

/** As `deciderOf`, with a token named as such in the plugin audit (`token:tok_…`). */
function changerOf(principal: Principal): string {
  return principal.actor ?? `token:${principal.tokenId}`;
}
