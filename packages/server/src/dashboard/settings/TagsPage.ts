/**
 * `GET /tags`: the org's tags, each with how many monitors carry it and a link to the monitors filtered by it,
 * read through the same `Targets.tags` as `GET /api/v1/tags`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Route } from "../../http/RouteTable.js"
import { Targets } from "../../targets/Targets.js"
import { Pages } from "../Page.js"
import { html } from "../Template.js"
import { content } from "./Content.js"
import * as Format from "./Format.js"
import { everyPage } from "./Paging.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/tags", body: "none" }]

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const targets = yield* Targets
    const { page } = yield* Pages
    yield* router.get(
      "/tags",
      page("tags", (viewer) =>
        Effect.gen(function* () {
          const tags = yield* everyPage((limit, offset) =>
            Effect.map(targets.tags(viewer.active, { limit, offset }), (p) => ({ data: p.rows, total: p.total }))
          )
          return content(
            "Tags",
            html`<div class="page-head"><h1>Tags</h1></div>
<p class="muted">Tags group monitors. Follow a tag to see the monitors that carry it.</p>
${
  tags.length === 0
    ? html`<p>No monitor of ${viewer.org.name} carries a tag yet.</p>`
    : html`<div class="table-wrap"><table>
<caption>Tags of ${viewer.org.name} (${Format.count(tags.length, "tag")})</caption>
<thead><tr><th scope="col">Tag</th><th scope="col" class="num">Monitors</th></tr></thead>
<tbody>${tags.map(
        (t) => html`<tr><th scope="row"><a class="tag" href="/?tag=${encodeURIComponent(t.tag)}">${t.tag}</a></th>
<td class="num">${Format.count(t.targets, "monitor")}</td></tr>`
      )}</tbody>
</table></div>`
}`
          )
        })
      )
    )
  })
).pipe(Layer.provide(Targets.Default))
