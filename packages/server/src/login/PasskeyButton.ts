/**
 * The login page's passkey part (auth-and-limits.md, "Passkeys"): a button that runs the discoverable sign-in
 * (dashboard/client/login.ts, a same-origin script under the page's strict policy), carrying the invitation and
 * redirect_after the page was opened with. It is rendered hidden and shown by the script, so a browser without
 * script never sees a button that cannot work. A public base URL that is not a secure context (plain http on a name
 * other than localhost) is said on the page, since browsers refuse WebAuthn there.
 */
import { escapeHtml } from "../http/Html.js"

export interface PasskeyOffer {
  /** The login script's URL (Assets). */
  readonly script: string
  /** Whether the public base URL is a secure context (https or localhost). */
  readonly secure: boolean
}

const data = (name: string, value: string | undefined) =>
  value === undefined || value === "" ? "" : ` data-${name}="${escapeHtml(value)}"`

export const passkeyButton = (offer: PasskeyOffer, invitation?: string, redirectAfter?: string): string =>
  `<section id="passkey-sign-in" aria-labelledby="passkey-title" hidden>
<h2 id="passkey-title">Or use a passkey</h2>
<button type="button" id="passkey-button"${data("invitation", invitation)}${data("redirect-after", redirectAfter)}>Sign in with a passkey</button>
<p id="passkey-status" class="note" role="status"></p>
</section>
${
  offer.secure
    ? ""
    : `<p class="note">Passkeys need a secure connection (https, or localhost on your own machine); this address is
neither, so your browser will not offer them here.</p>`
}`
