/**
 * `GET /variables`: the org's variables (a secret's value never shown), how many monitors reference each, and
 * forms to create one, rotate a value and delete one, all writing through `/api/v1/variables`. Read through the
 * same `Variables.list` as `GET /api/v1/variables`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { Variable } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Route } from "../../http/RouteTable.js"
import { Variables } from "../../variables/Variables.js"
import { Pages } from "../Page.js"
import { content } from "../settings/Content.js"
import * as Format from "../settings/Format.js"
import { everyPage } from "../settings/Paging.js"
import { type Html, html } from "../Template.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/variables", body: "none" }]

const createForm = html`<section aria-labelledby="new-variable">
<h2 id="new-variable">New variable</h2>
<form class="panel" data-api="/api/v1/variables" data-method="POST" data-reload method="post" action="/dashboard/js-required">
<div class="field"><label for="variable-key">Key</label>
<input id="variable-key" name="key" type="text" required autocomplete="off" spellcheck="false" aria-describedby="variable-key-hint">
<p class="hint" id="variable-key-hint">A lowercase letter, then up to 62 lowercase letters, digits or underscores. Monitors use it as <code>{{key}}</code>.</p></div>
<div class="field"><label for="variable-value">Value</label>
<input id="variable-value" name="value" type="text" data-empty="keep" autocomplete="off" spellcheck="false"></div>
<div class="field"><label class="inline"><input type="checkbox" name="is_secret" data-type="boolean"> Secret</label>
<p class="hint">A secret's value is stored encrypted and never shown again; it may be used only in a header value, a body or a flow's filled value.</p></div>
<p class="form-status" data-form-status role="status"></p>
<button type="submit" class="primary">Create variable</button>
</form>
</section>`

const row = (variable: Variable): Html => html`<tr>
<th scope="row"><code>${variable.key}</code>${
  variable.managed_by === null
    ? ""
    : html`<br><span class="muted">Managed by ${variable.managed_by.project}/${variable.managed_by.key}</span>`
}</th>
<td>${variable.is_secret ? "Secret" : "Plain"}</td>
<td>${variable.value === null ? html`<span class="muted">Hidden (secret)</span>` : html`<code class="value">${variable.value}</code>`}</td>
<td class="num">${Format.count(variable.used_by, "monitor")}</td>
<td class="row-actions">
<details class="inline-form"><summary>Rotate<span class="visually-hidden"> ${variable.key}</span></summary>
<form data-api="/api/v1/variables/${variable.id}" data-method="PATCH" data-reload method="post" action="/dashboard/js-required">
<div class="field"><label for="rotate-${variable.id}">New value of ${variable.key}</label>
<input id="rotate-${variable.id}" name="value" type="${variable.is_secret ? "password" : "text"}" required autocomplete="off" spellcheck="false"></div>
<p class="form-status" data-form-status role="status"></p>
<button type="submit">Save new value</button>
</form></details>
<button type="button" class="danger js-only" data-action="/api/v1/variables/${variable.id}" data-method="DELETE"
  data-confirm="Delete the variable ${variable.key}?">Delete<span class="visually-hidden"> ${variable.key}</span></button>
</td>
</tr>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const variables = yield* Variables
    const { page } = yield* Pages
    yield* router.get(
      "/variables",
      page("variables", (viewer) =>
        Effect.gen(function* () {
          const list = yield* everyPage((limit, offset) => variables.list(viewer.active.id, { limit, offset }))
          return content(
            "Variables",
            html`<div class="page-head"><h1>Variables</h1></div>
<p class="muted">Values monitors of ${viewer.org.name} share, written <code>{{key}}</code> in a check. A variable in use cannot be deleted.</p>
${
  list.length === 0
    ? html`<p>No variables yet.</p>`
    : html`<div class="table-wrap"><table>
<caption>Variables of ${viewer.org.name} (${list.length})</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Kind</th><th scope="col">Value</th><th scope="col" class="num">Used by</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map(row)}</tbody>
</table></div>`
}
${createForm}`
          )
        })
      )
    )
  })
).pipe(Layer.provide(Variables.Default))
