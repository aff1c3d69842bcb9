/**
 * `GET /settings/org`: the organization the pages act on: its name and slug, its people and their roles, the
 * invitations (owners see the pending ones and revoke them; anyone may try to invite, and a member hears the API's
 * refusal), and its account's usage against the plan. Read through the same `Orgs` service as `/api/v1/orgs/*`,
 * with the owner check of its invitation handlers.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import type { Invitation } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { requireOwner } from "../../auth/Policy.js"
import type { Route } from "../../http/RouteTable.js"
import { Orgs } from "../../orgs/Orgs.js"
import type { MemberRow } from "../../orgs/Repo.js"
import { Pages, type PageViewer } from "../Page.js"
import { type Html, html } from "../Template.js"
import { content } from "./Content.js"
import * as Fields from "./Fields.js"
import * as Format from "./Format.js"
import * as Usage from "./Usage.js"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: "/settings/org", body: "none" }]

const roleLabel = (role: "owner" | "member") => (role === "owner" ? "Owner" : "Member")

const about = (viewer: PageViewer, now: Date): Html => html`<section aria-labelledby="org-title">
<h2 id="org-title">Organization</h2>
<dl class="facts">
<dt>Name</dt><dd>${viewer.org.name}</dd>
<dt>Slug</dt><dd><code>${viewer.org.slug}</code> <span class="muted">(scripts name the organization with it in <code>X-Signalman-Org</code>)</span></dd>
<dt>Your role</dt><dd>${roleLabel(viewer.org.role)}</dd>
<dt>Created</dt><dd>${Format.time(viewer.org.created_at, now)}</dd>
</dl>
</section>`

const members = (
  list: ReadonlyArray<MemberRow>,
  you: string,
  now: Date
): Html => html`<section aria-labelledby="members-title">
<h2 id="members-title">Members</h2>
<div class="table-wrap"><table>
<caption>People in this organization (${list.length})</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Name</th><th scope="col">Role</th><th scope="col">Joined</th></tr></thead>
<tbody>${list.map(
  (m) => html`<tr><th scope="row">${m.email}${m.user_id === you ? html` <span class="muted">(you)</span>` : ""}</th>
<td>${m.name ?? html`<span class="muted">Not given</span>`}</td><td>${roleLabel(m.role)}</td><td>${Format.ago(m.joined_at, now)}</td></tr>`
)}</tbody>
</table></div>
</section>`

const invitationRows = (orgId: string, list: ReadonlyArray<Invitation>, now: Date): Html =>
  list.length === 0
    ? html`<p>No invitations are waiting for an answer.</p>`
    : html`<div class="table-wrap"><table>
<caption>Invitations waiting for an answer (${list.length})</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Sent</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map(
        (
          i
        ) => html`<tr><th scope="row">${i.email}</th><td>${roleLabel(i.role)}</td><td>${Format.ago(i.created_at, now)}</td>
<td>${Format.ago(i.expires_at, now)}</td>
<td><button type="button" class="danger js-only" data-action="/api/v1/orgs/${orgId}/invitations/${i.id}" data-method="DELETE"
  data-confirm="Revoke the invitation to ${i.email}?">Revoke<span class="visually-hidden"> the invitation to ${i.email}</span></button></td></tr>`
      )}</tbody>
</table></div>`

const invitations = (
  viewer: PageViewer,
  pending: ReadonlyArray<Invitation> | undefined,
  now: Date
): Html => html`<section aria-labelledby="invitations-title">
<h2 id="invitations-title">Invitations</h2>
${pending === undefined ? html`<p class="muted">Only owners see the invitations waiting for an answer.</p>` : invitationRows(viewer.org.id, pending, now)}
<form class="panel" data-api="/api/v1/orgs/${viewer.org.id}/invitations" data-method="POST" data-reload method="post" action="/dashboard/js-required">
<h3>Invite someone</h3>
${Fields.input({
  id: "invite-email",
  name: "email",
  label: "Email",
  hint:
    viewer.org.role === "owner"
      ? "They get a mail with a link to accept, valid for 7 days."
      : "Only an owner of this organization can invite people.",
  attrs: { type: "email", required: true, autocomplete: "off" }
})}
${Fields.select({
  id: "invite-role",
  name: "role",
  label: "Role",
  options: [
    ["member", "Member"],
    ["owner", "Owner"]
  ],
  selected: "member"
})}
${Fields.status}
<button type="submit" class="primary">Send invitation</button>
</form>
</section>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const orgs = yield* Orgs
    const { page } = yield* Pages
    yield* router.get(
      "/settings/org",
      page("org", (viewer) =>
        Effect.gen(function* () {
          const people = yield* orgs.members(viewer.user.id, viewer.org.id)
          // The invitation handlers' own check: owners only; a member's page says so instead of listing them.
          const pending = yield* requireOwner(viewer.active).pipe(
            Effect.zipRight(orgs.pendingInvitations(viewer.org.id)),
            Effect.catchTag("Forbidden", () => Effect.succeed(undefined))
          )
          const usage = yield* orgs.usage(viewer.user.id, viewer.org.id)
          const now = new Date()
          return content(
            "Organization",
            html`<div class="page-head"><h1>${viewer.org.name}</h1></div>
${about(viewer, now)}
${members(people, viewer.user.id, now)}
${invitations(viewer, pending, now)}
<section aria-labelledby="usage-title">
<h2 id="usage-title">Usage</h2>
<p class="muted">The ${usage.plan.name} plan of the account that owns ${viewer.org.name}: every organization of that account draws on these figures.</p>
${Usage.quotaTable(
  `Usage against the ${usage.plan.name} plan`,
  Object.entries(usage.quotas).map(([name, figure]) => [name, figure] as const)
)}
</section>`
          )
        })
      )
    )
  })
).pipe(Layer.provide(Orgs.Default))
