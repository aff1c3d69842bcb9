/**
 * `/settings/account`, the "Sign-in providers" section: the providers linked to the account (with the name the
 * provider gave, when added and last used, and a remove button) and a link button for each provider this
 * deployment offers that is not linked yet. Linking posts to `POST /auth/{provider}/link` and follows the consent
 * URL it answers; removing deletes through `/api/v1/me/sign-in-methods/{provider}` (refused with a message when it
 * is the last way in). A callback back from linking lands here with `?linked=` or `?oauth=identity_taken`.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { providerNames } from "@signalman/core/OAuth"
import * as Effect from "effect/Effect"
import { AppConfig, type Values } from "../../config/Config.js"
import * as Providers from "../../oauth/Providers.js"
import type { IdentityRow } from "../../oauth/Repo.js"
import { SignInMethods } from "../../oauth/SignInMethods.js"
import { type Html, html } from "../Template.js"
import * as Format from "./Format.js"

const row = (identity: IdentityRow, now: Date): Html => {
  const name = providerNames[identity.provider]
  const query = new URLSearchParams({ provider_user_id: identity.provider_key }).toString()
  return html`<tr>
<th scope="row">${name}</th>
<td>${identity.label}</td>
<td>${Format.ago(identity.created_at, now)}</td>
<td>${identity.last_used_at === null ? html`<span class="muted">Never</span>` : Format.ago(identity.last_used_at, now)}</td>
<td><button type="button" class="danger js-only" data-action="/api/v1/me/sign-in-methods/${identity.provider}?${query}" data-method="DELETE"
  data-confirm="Remove ${name} (${identity.label}) from your account? Your other browsers will be signed out.">Remove<span class="visually-hidden"> ${name} ${identity.label}</span></button></td>
</tr>`
}

const banner = (linked: string | undefined, problem: string | undefined): Html =>
  problem === "identity_taken"
    ? html`<p role="alert">That identity is already linked to another Signalman account, so it was not linked to this one.</p>`
    : linked !== undefined && linked in providerNames
      ? html`<p role="status">${providerNames[linked as keyof typeof providerNames]} is linked: you can sign in with it now.</p>`
      : html``

/** The section's renderer, built with the page: it answers the section for the signed-in user. */
export const make = Effect.gen(function* () {
  const methods = yield* SignInMethods
  const config = yield* AppConfig
  return (userId: string) => section(methods, config, userId)
})

const section = (methods: SignInMethods, config: Values, userId: string) =>
  Effect.gen(function* () {
    const query = yield* HttpServerRequest.ParsedSearchParams
    const text = (key: string) => (typeof query[key] === "string" ? query[key] : undefined)
    const linked = yield* methods.list(userId)
    const now = new Date()
    const linkable = Providers.ready(config).filter((setup) => !linked.some((i) => i.provider === setup.provider))
    if (linked.length === 0 && linkable.length === 0) return html``
    return html`<section aria-labelledby="providers-title">
<h2 id="providers-title">Sign-in providers</h2>
${banner(text("linked"), text("oauth"))}
${
  linked.length === 0
    ? html`<p>No provider is linked to your account yet.</p>`
    : html`<div class="table-wrap"><table>
<caption>Linked providers (${linked.length})</caption>
<thead><tr><th scope="col">Provider</th><th scope="col">Account</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody>${linked.map((identity) => row(identity, now))}</tbody>
</table></div>`
}
${
  linkable.length === 0
    ? html``
    : html`<p class="js-only">${linkable.map(
        (setup) =>
          html`<button type="button" data-action="/auth/${setup.provider}/link" data-method="POST" data-follow="redirect">Link ${providerNames[setup.provider]}</button> `
      )}</p>`
}
</section>`
  })
