/**
 * The org's notification channels: `GET /channels` lists them (where each sends, enabled or not) with a test send,
 * enable or disable, and delete; `GET /channels/new` picks a kind and shows its form; `GET /channels/:id` changes a
 * channel's name or delivery settings. Read through the same `Channels` service as `/api/v1/channels`; every write
 * goes through that API from the browser. A test send's outcome (delivered or the service's error) is said in the
 * page's status line by the page script (`client/settings.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { type Channel, ChannelId, ChannelKind } from "@signalman/core/Channel"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { Channels, notFound } from "../../channels/Channels.js"
import type { Route } from "../../http/RouteTable.js"
import { Pages } from "../Page.js"
import { content } from "../settings/Content.js"
import * as Fields from "../settings/Fields.js"
import { everyPage } from "../settings/Paging.js"
import { type Html, html } from "../Template.js"
import { configFields, destination, kindDescriptions, kindLabels, kinds } from "./ChannelFields.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/channels", body: "none" },
  { method: "GET", path: "/channels/new", body: "none" },
  { method: "GET", path: "/channels/:id", body: "none" }
]

const state = (channel: Channel): Html =>
  channel.enabled
    ? html`<span class="state state-up">Enabled</span>`
    : html`<span class="state state-paused">Disabled</span>`

/** Test, enable or disable, delete: buttons acting through the API at once. */
const actions = (channel: Channel, after: "reload" | "list"): Html => html`<div class="button-row js-only">
<button type="button" data-action="/api/v1/channels/${channel.id}/test" data-method="POST" data-outcome="delivery"
  data-subject="${channel.name}" data-done="Test sent.">Send test<span class="visually-hidden"> to ${channel.name}</span></button>
<button type="button" data-action="/api/v1/channels/${channel.id}" data-method="PATCH"
  data-body="${JSON.stringify({ enabled: !channel.enabled })}">${channel.enabled ? "Disable" : "Enable"}<span class="visually-hidden"> ${channel.name}</span></button>
<button type="button" class="danger" data-action="/api/v1/channels/${channel.id}" data-method="DELETE"
  data-confirm="Delete the channel ${channel.name}? Monitors stop alerting through it."
  ${after === "list" ? html`data-redirect="/channels"` : ""}>Delete<span class="visually-hidden"> ${channel.name}</span></button>
</div>`

const listBody = (
  orgName: string,
  channels: ReadonlyArray<Channel>
): Html => html`<div class="page-head"><h1>Alert channels</h1>
<a class="button primary" href="/channels/new">New channel</a></div>
<p class="muted">Where the alerts of ${orgName}'s monitors go. A monitor alerts through the channels it names.</p>
${
  channels.length === 0
    ? html`<p>No alert channels yet. <a href="/channels/new">Add the first one</a>.</p>`
    : html`<div class="table-wrap"><table>
<caption>Alert channels of ${orgName} (${channels.length})</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Sends to</th><th scope="col">State</th><th scope="col">Actions</th></tr></thead>
<tbody>${channels.map(
        (channel) => html`<tr>
<th scope="row"><a href="/channels/${channel.id}">${channel.name}</a></th>
<td>${kindLabels[channel.kind]}</td>
<td class="wrap">${destination(channel)}</td>
<td>${state(channel)}</td>
<td>${actions(channel, "reload")}</td>
</tr>`
      )}</tbody>
</table></div>`
}`

const kindPicker: Html = html`<div class="page-head"><h1>New alert channel</h1></div>
<p>Choose where the alerts go.</p>
<ul class="choices">${kinds.map(
  (kind) =>
    html`<li><a href="/channels/new?kind=${kind}">${kindLabels[kind]}</a> <span class="muted">${kindDescriptions[kind]}</span></li>`
)}</ul>
<p><a href="/channels">Back to alert channels</a></p>`

/** A new channel's form; a webhook's made signing secret is shown once after (the page script reveals it). */
const createBody = (kind: ChannelKind): Html => {
  const webhook = kind === "webhook"
  return html`<div class="page-head"><h1>New ${kindLabels[kind]} channel</h1></div>
<p class="muted">${kindDescriptions[kind]} <a href="/channels/new">Choose another kind</a>.</p>
<form class="panel" data-api="/api/v1/channels" data-method="POST" method="post" action="/dashboard/js-required"
  ${
    webhook
      ? html`data-done="Channel created." data-reveal="signing_secret" data-reveal-panel="signing-secret" data-reveal-next="/channels/{id}"`
      : html`data-redirect="/channels/{id}"`
  }>
${Fields.hidden("kind", kind)}
${Fields.input({ id: "channel-name", name: "name", label: "Name", attrs: { required: true, maxlength: 200 } })}
${configFields(kind, { _tag: "create" })}
${Fields.checkbox({ id: "channel-enabled", name: "enabled", label: "Enabled", checked: true, hint: "A disabled channel keeps its settings and sends nothing (a test send still works)." })}
${Fields.status}
<button type="submit" class="primary">Create channel</button>
</form>
${
  webhook &&
  html`<section id="signing-secret" class="reveal" tabindex="-1" aria-labelledby="signing-secret-title" hidden>
<h2 id="signing-secret-title">The webhook's signing secret</h2>
<p>Signalman made this secret to sign every delivery (<code>X-Signalman-Signature</code>). Copy it now: it is shown only this once.</p>
<p><code class="secret" data-reveal-value></code> <button type="button" data-copy>Copy</button></p>
<p><a data-reveal-continue href="/channels">Continue to the channel</a></p>
</section>`
}`
}

const editBody = (channel: Channel): Html => html`<div class="page-head"><h1>${channel.name}</h1>${state(channel)}</div>
<p class="muted">${kindLabels[channel.kind]} channel · sends to ${destination(channel)}${
  channel.managed_by === null ? "" : html` · managed by ${channel.managed_by.project}/${channel.managed_by.key}`
}</p>
${actions(channel, "list")}
<section aria-labelledby="channel-name-title">
<h2 id="channel-name-title">Name</h2>
<form class="panel" data-api="/api/v1/channels/${channel.id}" data-method="PATCH" data-reload method="post" action="/dashboard/js-required">
${Fields.input({ id: "channel-name", name: "name", label: "Name", attrs: { value: channel.name, required: true, maxlength: 200 } })}
${Fields.status}
<button type="submit">Rename</button>
</form>
</section>
<section aria-labelledby="channel-config-title">
<h2 id="channel-config-title">Delivery settings</h2>
<form class="panel" data-api="/api/v1/channels/${channel.id}" data-method="PATCH" data-reload method="post" action="/dashboard/js-required">
${configFields(channel.kind, { _tag: "edit", channel })}
${Fields.status}
<button type="submit">Save delivery settings</button>
</form>
</section>
<p><a href="/channels">Back to alert channels</a></p>`

const kindOf = (url: string): ChannelKind | undefined => {
  const wanted = new URL(url, "http://dashboard.invalid").searchParams.get("kind")
  return Schema.is(ChannelKind)(wanted) ? wanted : undefined
}

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const channels = yield* Channels
    const { page } = yield* Pages

    yield* router.get(
      "/channels",
      page("channels", (viewer) =>
        Effect.gen(function* () {
          const list = yield* everyPage((limit, offset) => channels.list(viewer.active, { limit, offset }))
          return content("Alert channels", listBody(viewer.org.name, list))
        })
      )
    )

    yield* router.get(
      "/channels/new",
      page("channels", () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const kind = kindOf(request.url)
          return kind === undefined
            ? content("New alert channel", kindPicker)
            : content(`New ${kindLabels[kind]} channel`, createBody(kind))
        })
      )
    )

    yield* router.get(
      "/channels/:id",
      page("channels", (viewer) =>
        Effect.gen(function* () {
          const params = yield* HttpRouter.params
          // Not an id at all answers like an id of no channel: the same 404 as the API's.
          const id = Schema.decodeUnknownEither(ChannelId)(params["id"])
          if (Either.isLeft(id)) return yield* Effect.fail(notFound)
          const channel = yield* channels.get(viewer.active, id.right)
          return content(channel.name, editBody(channel))
        })
      )
    )
  })
).pipe(Layer.provide(Channels.Default))
