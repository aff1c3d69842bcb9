/**
 * The `/login` page's part for OAuth: one link per offered provider (a plain link, so it works without
 * JavaScript), carrying the invitation and redirect_after, and the notice a callback sent the browser back with.
 */
import { providerNames } from "@signalman/core/OAuth"
import type { Values } from "../config/Config.js"
import { escapeHtml } from "../http/Html.js"
import * as Providers from "./Providers.js"

/** What `/login?oauth=<reason>` says, for the reasons a callback redirects with. */
const notices: Record<string, string> = {
  denied: "Sign-in was cancelled at the provider. Nothing was changed.",
  missing_code: "The provider sent you back without a sign-in code. Please try again.",
  no_verified_email:
    "The provider could not vouch for your email address, so no account was opened or linked. Verify your address with the provider (or make it your primary one) and try again, or use another way to sign in.",
  signup_closed: "New accounts are opened by invitation only here. Ask someone in your team to invite you.",
  link_mismatch: "That link was started from another session. Sign in, then link the provider again."
}

/** Whether the login page has anything OAuth to offer. */
export const offered = (config: Values): boolean => Providers.ready(config).length > 0

/** The notice for `?oauth=`, or nothing. */
export const notice = (reason: string | undefined): string => {
  const text = reason === undefined ? undefined : notices[reason]
  return text === undefined ? "" : `<p role="alert">${escapeHtml(text)}</p>`
}

/** The providers' links. */
export const buttons = (config: Values, invitation?: string, redirectAfter?: string): string => {
  const ready = Providers.ready(config)
  if (ready.length === 0) return ""
  const query = new URLSearchParams()
  if (invitation !== undefined && invitation !== "") query.set("invitation", invitation)
  if (redirectAfter !== undefined && redirectAfter !== "") query.set("redirect_after", redirectAfter)
  const suffix = query.size === 0 ? "" : `?${query.toString()}`
  const links = ready
    .map(
      ({ provider }) =>
        `<li><a class="provider" href="/auth/${provider}/login${escapeHtml(suffix)}">Sign in with ${escapeHtml(providerNames[provider])}</a></li>`
    )
    .join("\n")
  return `<nav aria-label="Sign in with a provider"><ul class="providers">\n${links}\n</ul></nav>`
}
