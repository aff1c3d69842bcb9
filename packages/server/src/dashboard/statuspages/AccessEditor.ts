/**
 * The editor's access: who may open the page (everyone, or only people let in by the page password or an email
 * code to the addresses and domains listed), sent as the whole `access` object through
 * `PATCH /api/v1/status-pages/{id}` (the API replaces it whole; the password's value is write only and stays when
 * left empty). Fields are named by the object's paths (`access.password.value`), so a refusal such as
 * `PASSWORD_REQUIRED` or `ACCESS_INVALID` lands on its field. Below it, the password's use record (with signing its
 * devices out) and the people who signed in with the email code (with blocking and unblocking).
 */
import type * as StatusPage from "@signalman/core/StatusPage"
import * as DateTime from "effect/DateTime"
import type { ViewerPage } from "../../statuspages/ViewerRecords.js"
import { type Html, html, nothing } from "../Template.js"
import { formatInstant } from "./Describe.js"

export interface AccessInput {
  readonly page: StatusPage.StatusPage
  readonly password: StatusPage.PasswordRecord
  readonly viewers: ViewerPage
  /** The plan has private pages. */
  readonly privatePages: boolean
}

const when = (at: DateTime.Utc | null, none: string) => (at === null ? none : formatInstant(DateTime.toDateUtc(at)))

const option = (value: string, label: string, selected: boolean) =>
  html`<option value="${value}"${selected ? html` selected` : ""}>${label}</option>`

const daysOptions = (days: ReadonlyArray<number>, current: number | null, none: string) =>
  html`${option("", none, current === null)}${days.map((d) => option(String(d), `${d} days`, current === d))}`

const form = (input: AccessInput): Html => {
  const { page, password } = input
  const access = page.access
  const isProtected = access?.protected === true
  const stored = password.set_at !== null
  return html`<form data-api="/api/v1/status-pages/${page.id}" data-method="PATCH" data-reload
  method="post" action="/dashboard/js-required">
<div class="field"><label for="sp-protected">Who can open the page</label>
<select id="sp-protected" name="access.protected" data-type="boolean" aria-describedby="sp-protected-hint">
${option("false", "Everyone (public)", !isProtected)}
${option("true", "Only people let in (private)", isProtected)}
</select>
<p class="hint" id="sp-protected-hint">A private page needs at least one way in below${
    input.privatePages || isProtected ? "" : html`, and a plan with private pages (yours has none)`
  }.</p></div>
<fieldset>
<legend>Page password</legend>
<div class="field"><label class="inline"><input name="access.password.enabled" type="checkbox" data-type="boolean"${
    access?.password.enabled === true ? html` checked` : ""
  }> Let people in with the page password</label></div>
<div class="field"><label for="sp-password">${stored ? "New password" : "Password"}</label>
<input id="sp-password" name="access.password.value" type="password" maxlength="128" autocomplete="new-password"
  aria-describedby="sp-password-hint">
<p class="hint" id="sp-password-hint">${
    stored
      ? "A password is stored; leave this empty to keep it. A new one signs out every device signed in with the old."
      : "No password is stored yet: set one to turn this way in on."
  }</p></div>
</fieldset>
<fieldset>
<legend>Email code</legend>
<div class="field"><label class="inline"><input name="access.email_code.enabled" type="checkbox" data-type="boolean"${
    access?.email_code.enabled === true ? html` checked` : ""
  }> Let people in with a code mailed to an address listed below</label></div>
<div class="field"><label for="sp-allow">Addresses and domains let in</label>
<textarea id="sp-allow" name="access.email_code.allow" data-type="lines" rows="4" aria-describedby="sp-allow-hint">${(
    access?.email_code.allow ?? []
  ).join("\n")}</textarea>
<p class="hint" id="sp-allow-hint">One a line: an address (alice@example.com) or a whole domain (@example.com).</p></div>
</fieldset>
<div class="field"><label for="sp-session-days">Sign-ins last</label>
<select id="sp-session-days" name="access.session_days" data-type="number" data-empty="null">
${daysOptions([7, 30, 90], access?.session_days ?? null, "Until the browser closes")}
</select></div>
<div class="field"><label for="sp-recheck-days">Ask email viewers to prove their address again every</label>
<select id="sp-recheck-days" name="access.recheck_days" data-type="number" data-empty="null">
${daysOptions([30, 90, 365], access?.recheck_days ?? null, "Never")}
</select></div>
<p data-form-status role="status"></p>
<button type="submit" class="primary">Save access</button>
</form>`
}

const passwordRecord = (input: AccessInput): Html => {
  const { page, password } = input
  if (password.set_at === null) return nothing
  return html`<h3>Page password in use</h3>
<dl class="sp-facts">
<dt>Way in</dt><dd>${password.enabled ? "On" : "Off"}</dd>
<dt>Set</dt><dd>${when(password.set_at, "Never")}</dd>
<dt>Devices signed in</dt><dd>${password.sessions}</dd>
<dt>Last sign-in</dt><dd>${when(password.last_sign_in_at, "None yet")}</dd>
<dt>Failed attempts in the last 24 hours</dt><dd>${password.failed_last_24h}</dd>
<dt>Subscriptions a change of password would end</dt><dd>${password.subscriptions}</dd>
</dl>
${
  password.sessions > 0
    ? html`<button type="button" class="js-only" data-action="/api/v1/status-pages/${page.id}/access/password/sign-out"
  data-method="POST" data-confirm="Sign out every device signed in with the password? The password keeps working.">Sign out every device</button>`
    : ""
}`
}

const viewerRow = (pageId: string, v: StatusPage.Viewer): Html => {
  const api = `/api/v1/status-pages/${pageId}/access/viewers/${v.id}`
  return html`<tr>
<th scope="row">${v.email}</th>
<td>${v.blocked ? html`<span class="state state-down">Blocked</span>` : html`<span class="state state-up">Allowed</span>`}</td>
<td>${when(v.last_sign_in_at, "Never")}</td>
<td class="num">${v.sessions}</td>
<td>${
    v.blocked
      ? html`<button type="button" class="js-only" data-action="${api}/unblock" data-method="POST">Unblock<span class="visually-hidden"> ${v.email}</span></button>`
      : html`<button type="button" class="danger js-only" data-action="${api}/block" data-method="POST"
  data-confirm="Block ${v.email}? They are signed out everywhere and their subscription ends.">Block<span class="visually-hidden"> ${v.email}</span></button>`
  }</td>
</tr>`
}

const viewers = (input: AccessInput): Html => {
  const { page, viewers } = input
  if (viewers.total === 0) return nothing
  return html`<h3>People who signed in with the email code</h3>
<div class="table-wrap" tabindex="0" role="region" aria-label="Email-code viewers">
<table>
<caption class="visually-hidden">Email-code viewers of ${page.name}</caption>
<thead><tr><th scope="col">Email</th><th scope="col">State</th><th scope="col">Last sign-in</th>
<th scope="col" class="num">Devices</th><th scope="col">Action</th></tr></thead>
<tbody>${viewers.data.map((v) => viewerRow(page.id, v))}</tbody>
</table></div>
${viewers.total > viewers.data.length ? html`<p class="muted">The ${viewers.data.length} most recent of ${viewers.total}.</p>` : ""}`
}

export const render = (input: AccessInput): Html => html`<section aria-labelledby="h-access">
<h2 id="h-access">Access</h2>
${form(input)}
${passwordRecord(input)}
${viewers(input)}
</section>`
