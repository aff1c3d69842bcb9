/**
 * `GET /account/restore`: where an account scheduled for deletion lands (sign-in sends it here, and so does every
 * dashboard page). It says what happens and when, offers cancelling the deletion (`POST /api/v1/me/restore`, with
 * the dashboard's script, which sends the CSRF header) and downloading the account's data before it is erased.
 * Outside the dashboard's frame: the account's orgs are deleted with it, so there is nothing to navigate.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import type { Route } from "../http/RouteTable.js"
import { GRACE_DAYS } from "../me/Me.js"
import { Assets } from "./Assets.js"
import * as Layout from "./Layout.js"
import { signInFirst } from "./Page.js"
import * as Format from "./settings/Format.js"
import { type Html, html } from "./Template.js"
import { Viewers } from "./Viewer.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/account/restore", body: "none" }]

const flash: Html = html`<div id="flash" class="flash" role="status" aria-live="polite" hidden></div>`

const scheduled = (
  email: string,
  purgeAfter: Date | null,
  now: Date
): Html => html`<main id="main" class="standalone" tabindex="-1">
${flash}
<h1>Your account is scheduled for deletion</h1>
<p>You are signed in as ${email}.
${
  purgeAfter === null
    ? html`At the end of its ${GRACE_DAYS}-day grace period`
    : html`On ${Format.time(purgeAfter, now)}`
}
Signalman erases for good your account and the organizations it owns, with their monitors and their history, alert
channels, status pages and variables, and your sessions, API tokens and sign-in history.</p>
<p>Until then nothing is lost. The organizations are out of use and their public status pages are dark; restoring
brings everything back as it was, as long as your plan allows that many organizations.</p>
<p class="js-only"><button type="button" class="primary" data-action="/api/v1/me/restore" data-method="POST" data-redirect="/">Restore my account</button></p>
<p class="no-js-only">Restoring needs JavaScript: turn it on for this site and reload, or send
<code>POST /api/v1/me/restore</code> with this browser's session.</p>
<p><a href="/api/v1/me/export" download>Download your data</a> (one JSON file) to keep a copy before it is erased.</p>
<p class="js-only"><button type="button" data-action="/auth/logout" data-method="POST" data-redirect="/login">Sign out</button></p>
</main>`

const active = (email: string): Html => html`<main id="main" class="standalone" tabindex="-1">
<h1>Your account is not scheduled for deletion</h1>
<p>You are signed in as ${email}, and your account is in use: there is nothing to restore.</p>
<p><a href="/">Go to your monitors</a> or <a href="/settings/account">your account</a>.</p>
</main>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const viewers = yield* Viewers
    const assets = yield* Assets
    yield* router.get(
      "/account/restore",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const viewer = yield* viewers.of(request)
        if (viewer === undefined) return signInFirst(request)
        const { user } = viewer
        const acceptEncoding = request.headers["accept-encoding"]
        return user.deleted_at === null
          ? Layout.document(assets, "Your account", active(user.email), undefined, 200, acceptEncoding)
          : Layout.document(
              assets,
              "Restore your account",
              scheduled(user.email, user.purge_after, new Date()),
              undefined,
              200,
              acceptEncoding
            )
      })
    )
  })
)
