/**
 * The monitor's share links: read-only pages (`/m/<token>`) for people without an account. Listed as the API lists
 * the live ones (with their URLs, to copy), made with a label and an optional expiry, and revoked at once, all
 * through `/api/v1/targets/{id}/shares`.
 */
import type { MonitorShare } from "@signalman/core/MonitorShare"
import { type Html, html } from "../Template.js"
import * as Format from "./DetailFormat.js"

const row = (targetId: string, share: MonitorShare): Html => {
  const name = share.label ?? "Unlabelled link"
  const sourceId = `share-url-${share.id}`
  return html`<tr>
<th scope="row">${name}</th>
<td>${
    share.url === null
      ? html`<span class="muted">Cannot be shown (sealed under a key no longer configured); it still works.</span>`
      : html`<div class="copyable"><code id="${sourceId}" class="share-url">${share.url}</code><button type="button"
  class="js-only copy" data-copy="${sourceId}" data-copy-label="Share link">Copy<span class="visually-hidden"> the link ${name}</span></button></div>`
  }</td>
<td>${share.expires_at === null ? "Never" : Format.time(share.expires_at)}</td>
<td>${Format.time(share.created_at)}</td>
<td><button type="button" class="js-only danger" data-action="/api/v1/targets/${targetId}/shares/${share.id}"
  data-method="DELETE" data-confirm="${`Revoke “${name}”? Its page stops working at once.`}">Revoke<span
  class="visually-hidden"> ${name}</span></button></td>
</tr>`
}

export const section = (targetId: string, shares: ReadonlyArray<MonitorShare>): Html =>
  html`<section aria-labelledby="shares" class="detail-section">
<h2 id="shares">Share links</h2>
<p>A share link opens a read-only page of this monitor (its state, uptime, response times and incidents) to anyone
holding it, without an account. It never shows what is checked or how.</p>
${
  shares.length === 0
    ? html`<p>No live share links.</p>`
    : html`<div class="table-wrap"><table class="shares-table">
<caption>Live share links, oldest first</caption>
<thead><tr><th scope="col">Label</th><th scope="col">Link</th><th scope="col">Expires</th><th scope="col">Made</th>
<th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${shares.map((share) => row(targetId, share))}</tbody>
</table></div>`
}
<form class="share-form" data-api="/api/v1/targets/${targetId}/shares" data-method="POST" data-reload
  method="post" action="/dashboard/js-required">
<h3 id="new-share">New share link</h3>
<div class="field"><label for="share-label">Label</label>
<input id="share-label" name="label" type="text" maxlength="80" aria-describedby="share-label-hint">
<p class="hint" id="share-label-hint">Who the link is for, up to 80 characters; optional.</p></div>
<div class="field"><label for="share-expires">Expires</label>
<input id="share-expires" name="expires_at" type="datetime-local" data-type="instant" aria-describedby="share-expires-hint">
<p class="hint" id="share-expires-hint">In your own time zone; leave empty for a link that never expires.</p></div>
<p data-form-status role="status"></p>
<button type="submit" class="primary">Make a share link</button>
</form>
</section>`
