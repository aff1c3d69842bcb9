/**
 * The account page's passkeys (auth-and-limits.md, "Passkeys"): each with its name, when it was added and last
 * used, and a way to remove it (which signs the account's other browsers out); a form to add one, named first,
 * which runs the WebAuthn ceremony in the page (client/passkeys.ts). A passkey made for another host than today's
 * is labelled retired: it no longer signs in and is listed only to be removed. With passkeys not offered the
 * section lists any left from before, without the form, and is left out when there are none.
 */
import type { Passkey } from "@signalman/core/Passkey"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import type { Passkeys } from "../../passkeys/Passkeys.js"
import { type Html, html } from "../Template.js"
import * as Fields from "./Fields.js"
import * as Format from "./Format.js"

const row = (passkey: Passkey, now: Date): Html => html`<tr>
<th scope="row">${passkey.name}${passkey.retired ? html` <span class="muted">(retired: made for ${passkey.rp_id})</span>` : ""}</th>
<td>${Format.ago(DateTime.toDate(passkey.created_at), now)}</td>
<td>${passkey.last_used_at === null ? html`<span class="muted">Never</span>` : Format.ago(DateTime.toDate(passkey.last_used_at), now)}</td>
<td><button type="button" class="danger js-only" data-action="/api/v1/me/passkeys/${passkey.id}" data-method="DELETE"
  data-confirm="Remove the passkey ${passkey.name}? Your other browsers will be signed out.">Remove<span class="visually-hidden"> the passkey ${passkey.name}</span></button></td>
</tr>`

const addForm = (count: number, limit: number, secure: boolean): Html =>
  count >= limit
    ? html`<p>You have ${limit} passkeys, the most an account can hold. Remove one to add another.</p>`
    : html`<form class="panel js-only" data-passkey-add>
<h3>Add a passkey</h3>
${Fields.input({
  id: "passkey-name",
  name: "name",
  label: "Name",
  hint: "Say which device it is on, so you know which to remove later. Your browser asks you to confirm.",
  attrs: { maxlength: 64, required: true, placeholder: "Work laptop", autocomplete: "off" }
})}
<button type="submit">Add a passkey</button>
</form>
<p id="passkey-unavailable" class="note"${secure ? html` hidden` : ""}>Passkeys need a secure connection (https, or
localhost on your own machine); this page is not one, so your browser will not make one here.</p>
<p class="note no-js-only">Adding a passkey needs JavaScript.</p>`

/** The section, or nothing when passkeys are off and none are stored. */
export const section = (passkeys: Passkeys, userId: string, now: Date) =>
  Effect.gen(function* () {
    const list = yield* passkeys.list(userId)
    if (!passkeys.enabled && list.length === 0) return html``
    return html`<section aria-labelledby="passkeys-title">
<h2 id="passkeys-title">Passkeys</h2>
<p>Sign in with your fingerprint, face or device PIN instead of an emailed link.</p>
${
  list.length === 0
    ? html`<p class="muted">No passkeys yet.</p>`
    : html`<div class="table-wrap"><table>
<caption>Your passkeys (${list.length})</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Added</th><th scope="col">Last used</th><th scope="col">Actions</th></tr></thead>
<tbody>${list.map((p) => row(p, now))}</tbody>
</table></div>`
}
${passkeys.enabled ? addForm(list.length, passkeys.maxPerUser, passkeys.secureOrigin) : html`<p class="note">Signing in with a passkey is not offered on this server.</p>`}
</section>`
  })
