import type { Context, Hono } from "hono";
import type { ApiEnv } from "../api/auth/index.js";
import type { ApiAnswer, ApiCaller } from "./api.js";
import { pluginList } from "./catalog-page.js";
import { html } from "hono/html";
import { page, type PageFrame } from "./render.js";
import type { ConsoleSession } from "./sessions.js";
import { pendingUpgradeList } from "./upgrades-page.js";

/** What a console page has of its signed-in session (routes.ts). */
export interface SignedPage {
  readonly session: ConsoleSession;
  readonly api: ApiCaller;
  frame(title: string, notice?: PageFrame["notice"]): PageFrame;
}

/** The page helpers routes.ts owns: sign-in, the CSRF + Origin check of a POST, an API failure as a page. */
export interface PageHelpers {
  signed(c: Context): Promise<SignedPage | Response>;
  posted(c: Context): Promise<{ s: SignedPage; form: Record<string, string> } | Response>;
  failed(c: Context, s: SignedPage, title: string, answer: ApiAnswer): Promise<Response>;
}

/** Plugins with their pending upgrades; an admin accepts or rejects one (the API decides roles again). */
export function addPluginPages(app: Hono<ApiEnv>, helpers: PageHelpers): void {
  const { signed, posted, failed } = helpers;
  app.get("/plugins", async (c) => {
    const s = await signed(c);
    if (s instanceof Response) return s;
    const answer = await s.api.get("/v1/plugins?limit=100");
    if (answer.status !== 200) return failed(c, s, "Plugins", answer);
    const upgrades = await s.api.get("/v1/plugins/upgrades");
    if (upgrades.status !== 200) return failed(c, s, "Plugins", upgrades);
    const done = c.req.query("done");
    const notice = done === undefined ? undefined : { kind: "ok" as const, text: done === "accept" ? "Upgrade accepted and installed." : "Pending upgrade rejected." };
    const pending = pendingUpgradeList(upgrades.body.upgrades, { csrf: s.session.csrf, canDecide: s.session.role === "admin" });
    return c.html(page(s.frame("Plugins", notice), html`<h2>Pending upgrades</h2>${pending}<h2>Installed</h2>${pluginList(answer.body.plugins)}`));
  });

  for (const decision of ["accept", "reject"] as const) {
    app.post(`/plugins/:name/upgrade/${decision}`, async (c) => {
      const p = await posted(c);
      if (p instanceof Response) return p;
      // The API validates the name (400 naming the field); it is only encoded on the way.
      const path = `/v1/plugins/${encodeURIComponent(c.req.param("name"))}/upgrade`;
      const answer = decision === "accept" ? await p.s.api.post(`${path}/accept`, undefined) : await p.s.api.delete(path);
      if (answer.status !== 200) return failed(c, p.s, "Plugins", answer);
      return c.redirect(`/plugins?done=${decision}`, 303);
    });
  }
}
