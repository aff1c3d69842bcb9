/**
 * `GET /settings/tokens`: the person's API tokens (name, prefix, scopes, the org a token is bound to, last use,
 * expiry) with a revoke for each, and the form that creates one. A new token is shown once, by the page script
 * (`client/settings.ts`) from the create's answer, and never again: the list, like the API, has its prefix only.
 * Read through the same `ApiTokens.list` and `MeService.usage` as `/api/v1/me/api-tokens` and `/api/v1/me/usage`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { ApiToken } from "@signalman/core/Identity"
import * as Scope from "@signalman/core/Scope"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MembershipRow } from "../../accounts/Repo.js"
import { ApiTokens } from "../../auth/ApiTokens.js"
import type { Route } from "../../http/RouteTable.js"
import { toApiToken } from "../../me/Http.js"
import { MeService } from "../../me/Me.js"
import { Pages } from "../Page.js"
import { type Html, html } from "../Template.js"
import { content } from "./Content.js"
import * as Fields from "./Fields.js"
import * as Format from "./Format.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/settings/tokens", body: "none" }]

const resourceLabels: Readonly<Record<Scope.Resource, string>> = {
  targets: "Monitors",
  channels: "Alert channels",
  incidents: "Incidents",
  maintenance: "Maintenance",
  status_page: "Status pages",
  variables: "Variables",
  oncall: "On-call"
}

const actions: ReadonlyArray<Scope.Action> = ["read", "write", "delete", "execute"]

const actionLabels: Readonly<Record<Scope.Action, string>> = {
  read: "Read",
  write: "Write",
  delete: "Delete",
  execute: "Execute"
}

const offers = (resource: Scope.Resource, action: Scope.Action): boolean =>
  (Scope.known[resource] as ReadonlyArray<Scope.Action>).includes(action)

/** The scope table of auth-and-limits.md as checkboxes: a row per resource, a column per action. */
const scopePicker: Html = html`<fieldset data-field="scopes">
<legend>Scopes</legend>
<div class="field"><label class="inline"><input type="checkbox" name="scopes" value="full_access" data-type="set"> Full access (every scope below, and any added later)</label></div>
<div class="table-wrap"><table class="scopes">
<caption>Scopes by resource and action. Write includes read; delete and execute are separate.</caption>
<thead><tr><th scope="col">Resource</th>${actions.map((a) => html`<th scope="col">${actionLabels[a]}</th>`)}</tr></thead>
<tbody>${Scope.resources.map(
  (resource) =>
    html`<tr><th scope="row">${resourceLabels[resource]}</th>${actions.map((action) =>
      offers(resource, action)
        ? html`<td><label class="inline"><input type="checkbox" name="scopes" value="${resource}:${action}" data-type="set"><span class="visually-hidden">${resourceLabels[resource]}: ${actionLabels[action]}</span></label></td>`
        : html`<td><span class="muted" title="Not a scope">—</span><span class="visually-hidden">not available</span></td>`
    )}</tr>`
)}</tbody>
</table></div>
</fieldset>`

const createForm = (
  memberships: ReadonlyArray<MembershipRow>,
  activeOrgId: string
): Html => html`<section aria-labelledby="new-token">
<h2 id="new-token">New token</h2>
<form id="token-form" class="panel" data-api="/api/v1/me/api-tokens" data-method="POST" data-done="Token created."
  data-reveal="token" data-reveal-panel="new-token-secret" method="post" action="/dashboard/js-required">
${Fields.input({ id: "token-name", name: "name", label: "Name", hint: "What the token is for, such as the CI job that uses it.", attrs: { required: true, maxlength: 100 } })}
${scopePicker}
${Fields.select({
  id: "token-org",
  name: "org_id",
  label: "Organization",
  hint: "A bound token acts on that organization only. An unbound token names one with the X-Signalman-Org header on every request.",
  options: [...memberships.map((m) => [m.id, m.name] as const), ["", "Not bound: any of my organizations"] as const],
  selected: activeOrgId,
  attrs: { "data-empty": "null" }
})}
${Fields.input({
  id: "token-expiry",
  name: "expires_in_days",
  label: "Expires after (days)",
  hint: "1 to 365 days. Leave it empty for a token that does not expire.",
  attrs: { type: "number", step: 1, "data-type": "number", inputmode: "numeric" }
})}
${Fields.status}
<button type="submit" class="primary">Create token</button>
</form>
<section id="new-token-secret" class="reveal" tabindex="-1" aria-labelledby="new-token-secret-title" hidden>
<h3 id="new-token-secret-title">Your new token</h3>
<p>Copy it now: it is shown only this once. Send it as <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<p><code class="secret" data-reveal-value></code> <button type="button" data-copy>Copy</button></p>
<p><a data-reveal-continue href="/settings/tokens">Done: back to my tokens</a></p>
</section>
</section>`

const scopesOf = (token: ApiToken): Html =>
  token.scopes.length === 0
    ? html`<span class="muted">None</span>`
    : html`${token.scopes.map((s) => html`<code class="scope">${s}</code> `)}`

const tokenRow = (token: ApiToken, orgName: (id: string) => string, now: Date): Html => html`<tr>
<th scope="row">${token.name}</th>
<td><code>${token.prefix}…</code></td>
<td>${scopesOf(token)}</td>
<td>${token.org_id === null ? "Not bound" : orgName(token.org_id)}</td>
<td>${token.last_used_at === null ? "Never" : Format.ago(token.last_used_at, now)}</td>
<td>${token.expires_at === null ? "Never" : Format.ago(token.expires_at, now)}</td>
<td><button type="button" class="danger js-only" data-action="/api/v1/me/api-tokens/${token.id}" data-method="DELETE"
  data-confirm="Revoke the token ${token.name}? Anything using it stops working at once.">Revoke<span class="visually-hidden"> ${token.name}</span></button></td>
</tr>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const tokens = yield* ApiTokens
    const me = yield* MeService
    const { page } = yield* Pages
    yield* router.get(
      "/settings/tokens",
      page("tokens", (viewer) =>
        Effect.gen(function* () {
          const list = (yield* tokens.list(viewer.user.id)).map(toApiToken)
          const usage = yield* me.usage(viewer.caller)
          const now = new Date()
          const orgName = (id: string) =>
            viewer.memberships.find((m) => m.id === id)?.name ?? "An organization you left"
          const full = usage.api_tokens.current >= usage.api_tokens.limit
          return content(
            "API tokens",
            html`<div class="page-head"><h1>API tokens</h1></div>
<p class="muted">Tokens let scripts and the <code>signalman</code> CLI use the API as you, limited to their scopes.
You hold ${usage.api_tokens.current} of the ${usage.api_tokens.limit} tokens your plan allows each person.</p>
${
  list.length === 0
    ? html`<p>You have no API tokens.</p>`
    : html`<div class="table-wrap"><table>
<caption>Your API tokens (${list.length})</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scopes</th><th scope="col">Organization</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map((token) => tokenRow(token, orgName, now))}</tbody>
</table></div>`
}
${full ? html`<p class="note">You are at your plan's limit: revoke a token to make another.</p>` : ""}
${createForm(viewer.memberships, viewer.active.id)}`
          )
        })
      )
    )
  })
).pipe(Layer.provide([ApiTokens.Default, MeService.Default]))
