/**
 * What a private page's public surface shows beyond the public rendering: the viewer's own feed link on their page
 * (rendered for them alone, never kept beside the snapshot), and the way to the sign-in on a 401.
 */
import type * as ApiError from "@signalman/core/ApiError"
import { signInUrlOf } from "../viewers/PageGate.js"
import type { Admitted } from "./PublicAccess.js"

/**
 * The feed link a signed-in viewer is shown in place of the page's feed: their own link, or for a device signed in
 * with the page password the page-password link (an HMAC over the password's version, nothing of the password).
 * Null for a public answer.
 */
export const viewerFeed = (admitted: Admitted): string | null =>
  admitted.admission._tag === "Viewer" ? admitted.admission.feedUrl : null

/** The path of the sign-in a 401 names, kept on the host the page was asked on. */
export const signInPath = (error: ApiError.ApiError): string | undefined => {
  const url = signInUrlOf(error)
  if (url === undefined) return undefined
  const parsed = URL.canParse(url) ? new URL(url) : undefined
  return parsed === undefined ? undefined : parsed.pathname
}
