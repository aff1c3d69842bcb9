/**
 * `GET /settings/account`: the signed-in person's account, in sections that grow as sign-in methods arrive: the
 * profile, the places they are signed in (each revocable, or all at once), recent sign-in activity, their data to
 * download, and deleting the account (a grace period, then `/account/restore`). Read through the same `MeService` and `Sessions` as `/api/v1/me` and
 * `/api/v1/me/sessions`; the buttons write through those endpoints and `/auth/logout-all`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { Me, SessionInfo } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Activity } from "../../accountdata/Activity.js"
import { Sessions } from "../../auth/Sessions.js"
import type { Route } from "../../http/RouteTable.js"
import { toSessionInfo } from "../../me/Http.js"
import { GRACE_DAYS, MeService } from "../../me/Me.js"
import { SignInMethods } from "../../oauth/SignInMethods.js"
import { Passkeys } from "../../passkeys/Passkeys.js"
import { Pages } from "../Page.js"
import { type Html, html } from "../Template.js"
import * as AccountActivity from "./AccountActivity.js"
import * as AccountData from "./AccountData.js"
import * as AccountPasskeys from "./AccountPasskeys.js"
import * as AccountProviders from "./AccountProviders.js"
import { content } from "./Content.js"
import * as Format from "./Format.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/settings/account", body: "none" }]

const profile = (me: Me, now: Date): Html => html`<section aria-labelledby="profile-title">
<h2 id="profile-title">Profile</h2>
<dl class="facts">
<dt>Email</dt><dd>${me.email} ${me.email_verified ? html`<span class="muted">(verified)</span>` : html`<strong>(not verified)</strong>`}</dd>
<dt>Name</dt><dd>${me.name ?? html`<span class="muted">Not given</span>`}</dd>
<dt>Member since</dt><dd>${Format.time(me.created_at, now)}</dd>
<dt>Organizations</dt><dd>${me.orgs.map((o) => html`${o.name} <span class="muted">(${o.role})</span><br>`)}</dd>
</dl>
</section>`

const sessionRow = (session: SessionInfo, now: Date): Html => html`<tr>
<th scope="row">${session.current ? "This browser" : "Another browser"}${session.current ? html` <span class="muted">(current)</span>` : ""}</th>
<td>${Format.ago(session.created_at, now)}</td>
<td>${Format.ago(session.last_seen_at, now)}</td>
<td>${Format.ago(session.expires_at, now)}</td>
<td>${
  session.current
    ? html`<button type="button" class="js-only" data-action="/auth/logout" data-method="POST" data-redirect="/login">Sign out</button>`
    : html`<button type="button" class="danger js-only" data-action="/api/v1/me/sessions/${session.id}" data-method="DELETE"
  data-confirm="Sign that browser out?">Revoke<span class="visually-hidden"> the session signed in ${Format.utc(session.created_at)}</span></button>`
}</td>
</tr>`

const sessions = (list: ReadonlyArray<SessionInfo>, now: Date): Html => html`<section aria-labelledby="sessions-title">
<h2 id="sessions-title">Where you are signed in</h2>
<div class="table-wrap"><table>
<caption>Your sessions (${list.length})</caption>
<thead><tr><th scope="col">Browser</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Ends</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map((s) => sessionRow(s, now))}</tbody>
</table></div>
<p class="js-only"><button type="button" class="danger" data-action="/auth/logout-all" data-method="POST" data-redirect="/login"
  data-confirm="Sign out of every browser, this one included?">Sign out everywhere</button></p>
</section>`

const deletion: Html = html`<section aria-labelledby="delete-title">
<h2 id="delete-title">Delete your account</h2>
<p>Your account and the organizations it owns are set for deletion at once: their public status pages go dark, and
everything in them is erased after ${GRACE_DAYS} days. Until then, signing in lets you restore it all.</p>
<p class="js-only"><button type="button" class="danger" data-action="/api/v1/me" data-method="DELETE" data-redirect="/account/restore"
  data-confirm="Delete your account? Everything it owns is erased after ${GRACE_DAYS} days unless you restore it.">Delete my account</button></p>
</section>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const me = yield* MeService
    const sessionStore = yield* Sessions
    const activity = yield* Activity
    const passkeys = yield* Passkeys
    const { page } = yield* Pages
    const providers = yield* AccountProviders.make
    yield* router.get(
      "/settings/account",
      page("account", (viewer) =>
        Effect.gen(function* () {
          const document = yield* me.document(viewer.caller)
          const list = (yield* sessionStore.list(viewer.user.id)).map((row) => toSessionInfo(row, viewer.sessionId))
          const now = new Date()
          const providerSection = yield* providers(viewer.user.id)
          return content(
            "Account",
            html`<div class="page-head"><h1>Your account</h1></div>
${profile(document, now)}
${providerSection}
${sessions(list, now)}
${yield* AccountPasskeys.section(passkeys, viewer.user.id, now)}
${yield* AccountActivity.section(activity, viewer.user.id, now)}
${AccountData.section}
${deletion}`
          )
        })
      )
    )
  })
).pipe(Layer.provide([MeService.Default, Sessions.Default, Activity.Default, SignInMethods.Default]))
