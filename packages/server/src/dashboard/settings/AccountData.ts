/**
 * The account page's "Your data" section: the export (`GET /api/v1/me/export`, one JSON file) offered as a plain
 * link, so it downloads without JavaScript; deleting the account stays in its own section below.
 */
import { type Html, html } from "../Template.js"

export const section: Html = html`<section aria-labelledby="data-title">
<h2 id="data-title">Your data</h2>
<p>Download everything your account holds as one JSON file: your profile, the organizations you own with their
monitors, alert channels, status pages and variables, your sessions and API tokens, changes to your sign-in methods,
and your sign-in attempts of the last 90 days. Secrets are left out: channel credentials, secret variable values,
and token and session secrets.</p>
<p><a class="button" href="/api/v1/me/export" download>Download your data</a></p>
</section>`
