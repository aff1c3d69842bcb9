/**
 * The account page's recent activity: the newest 20 sign-in attempts of the person (from the attempts log), each
 * with its method, whether it worked or why not in words, when, and whether it came from this browser.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import type { Activity, ActivityEntry, Device } from "../../accountdata/Activity.js"
import type { FailureReason } from "../../auth/Attempts.js"
import { type Html, html } from "../Template.js"
import * as Format from "./Format.js"

export const SHOWN = 20

const providers: Readonly<Record<string, string>> = {
  github: "GitHub",
  google: "Google",
  microsoft: "Microsoft",
  gitlab: "GitLab"
}

/** The method as people call it; a provider's `<id>_oauth` by the provider's name. */
export const methodWords = (method: string): string => {
  switch (method) {
    case "magic_link":
      return "Email link or code"
    case "passkey":
      return "Passkey"
    case "api_token":
      return "API token"
    case "session":
      return "Browser session"
  }
  const provider = method.endsWith("_oauth") ? providers[method.slice(0, -"_oauth".length)] : undefined
  return provider ?? method.replace(/_/g, " ")
}

// The attempts log's failure reasons (auth-and-limits.md, "Security model"), said to the person who tried. Typed by
// the log's own list, so a new reason does not compile until it has its words here.
const reasons: Readonly<Record<FailureReason, string>> = {
  invalid_token: "the link or token was not valid",
  token_expired: "the link had expired",
  token_used: "the link had already been used",
  token_retired: "a newer link had been sent",
  invalid_code: "the code was wrong",
  signup_closed: "sign-up is closed",
  invalid_state: "the sign-in took too long or was started in another browser",
  no_verified_email: "the provider did not confirm an email address",
  oauth_denied: "permission was not given at the provider",
  missing_code: "the provider sent nothing to sign in with",
  oauth_upstream_failed: "the provider could not be reached",
  account_deleted: "the account is scheduled for deletion"
}

const isKnown = (reason: string): reason is FailureReason => Object.hasOwn(reasons, reason)

/** "Signed in", or "Failed: the link had expired"; a reason this page does not know is shown as it is logged. */
export const outcomeWords = (success: boolean, reason: string | null): string =>
  success
    ? "Signed in"
    : `Failed: ${reason === null ? "no reason recorded" : isKnown(reason) ? reasons[reason] : reason.replace(/_/g, " ")}`

const deviceWords = (device: Device): string => {
  switch (device) {
    case "this_browser":
      return "This browser"
    case "other":
      return "Another browser or device"
    case "unknown":
      return "Not recorded"
  }
}

const row = (entry: ActivityEntry, now: Date): Html => html`<tr>
<th scope="row">${methodWords(entry.method)}</th>
<td>${entry.success ? outcomeWords(true, null) : html`<strong>${outcomeWords(false, entry.failureReason)}</strong>`}</td>
<td>${Format.ago(entry.at, now)}</td>
<td>${deviceWords(entry.device)}</td>
</tr>`

/** The section for the person signed in on this request. */
export const section = (activity: Activity, userId: string, now: Date) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const entries = yield* activity.recent(userId, request.headers["user-agent"], SHOWN)
    return html`<section aria-labelledby="activity-title">
<h2 id="activity-title">Recent activity</h2>
${
  entries.length === 0
    ? html`<p class="muted">No sign-in attempts in the last 90 days.</p>`
    : html`<div class="table-wrap"><table>
<caption>Your newest sign-in attempts (${entries.length})</caption>
<thead><tr><th scope="col">Method</th><th scope="col">Outcome</th><th scope="col">When</th><th scope="col">From</th></tr></thead>
<tbody>${entries.map((e) => row(e, now))}</tbody>
</table></div>`
}
<p class="muted">Something you do not recognise? Use "Sign out everywhere" and check your sign-in methods.</p>
</section>`
  })
