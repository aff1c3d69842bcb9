/**
 * `GET /status-pages/<id>/subscribers`: who follows the page by email, newest first, with where each subscription
 * stands (confirmed, awaiting confirmation, unsubscribed) and how the subscriber got in on a private page. The list
 * is read only: subscribers confirm and leave through the links in their mails, and the API has no endpoint that
 * removes one (blocking a private page's viewer ends theirs).
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import type { PageSubscriber, SubscriberPage } from "../../subscribers/Subscribers.js"
import type * as Layout from "../Layout.js"
import { type Html, html, nothing } from "../Template.js"
import { admittedLabel, formatInstant, subscriberStateLabel } from "./Describe.js"
import * as PageHead from "./PageHead.js"

export interface SubscribersInput {
  readonly page: StatusPage.StatusPage
  readonly subscribers: SubscriberPage
}

const stateClass: Readonly<Record<PageSubscriber["state"], string>> = {
  confirmed: "state-up",
  pending: "state-pending",
  unsubscribed: "state-paused"
}

const row = (s: PageSubscriber): Html => html`<tr>
<th scope="row">${s.email}</th>
<td><span class="state ${stateClass[s.state]}">${subscriberStateLabel(s.state)}</span></td>
<td>${formatInstant(s.subscribedAt)}</td>
<td>${s.confirmedAt === null ? html`<span class="muted">Not yet</span>` : formatInstant(s.confirmedAt)}</td>
<td>${admittedLabel(s.admittedBy)}</td>
</tr>`

const pager = (page: StatusPage.StatusPage, subscribers: SubscriberPage, total: number): Html => {
  const { limit, offset } = subscribers
  const base = `/status-pages/${page.id}/subscribers`
  const previous = offset > 0 ? Math.max(0, offset - limit) : undefined
  const next = offset + limit < total ? offset + limit : undefined
  if (previous === undefined && next === undefined) return nothing
  return html`<nav class="sp-pager" aria-label="Subscriber pages">
<p>Showing ${offset + 1} to ${offset + subscribers.data.length} of ${total}.</p>
${previous === undefined ? "" : html`<a href="${base}?offset=${previous}">Newer</a>`}
${next === undefined ? "" : html`<a href="${base}?offset=${next}">Older</a>`}
</nav>`
}

export const render = (input: SubscribersInput): Layout.Content => {
  const { page, subscribers } = input
  const { counts } = subscribers
  const total = counts.confirmed + counts.pending + counts.unsubscribed
  return {
    title: `Subscribers of ${page.name} · Status pages`,
    body: html`${PageHead.render(page, "subscribers", `Subscribers of ${page.name}`)}
<div class="cards">
<div class="card"><p class="figure">${counts.confirmed}</p><p>Confirmed: mailed every update</p></div>
<div class="card"><p class="figure">${counts.pending}</p><p>Awaiting confirmation</p></div>
<div class="card"><p class="figure">${counts.unsubscribed}</p><p>Unsubscribed</p></div>
</div>
<p class="muted">People subscribe on the public page and confirm by the link mailed to them; every update mail
carries a link to leave. An address is never mailed updates before it is confirmed.</p>
${
  subscribers.data.length === 0
    ? html`<p>${total === 0 ? "No one has subscribed to this page yet." : "No subscribers on this page of the list."}</p>`
    : html`<div class="table-wrap" tabindex="0" role="region" aria-label="Subscribers">
<table>
<caption class="visually-hidden">Subscribers of ${page.name}, newest first</caption>
<thead><tr><th scope="col">Email</th><th scope="col">State</th><th scope="col">Subscribed</th>
<th scope="col">Confirmed</th><th scope="col">Got in by</th></tr></thead>
<tbody>${subscribers.data.map(row)}</tbody>
</table></div>`
}
${pager(page, subscribers, total)}`
  }
}
