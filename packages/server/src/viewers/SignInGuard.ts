/**
 * The login-CSRF defence of the private-page sign-in forms. Two checks, both needed:
 *
 * - Fetch metadata: a post a browser marks as from another site (`Sec-Fetch-Site` other than `same-origin` or
 *   `none`), or whose `Origin` is not the host it was sent to (`null` included), is refused.
 * - A double-submit token: the sign-in page sets `_sm_pv_csrf` (random, `HttpOnly; SameSite=Strict`) and writes the
 *   same value in a hidden field of every form; a post must carry both, equal. Plain forms, so no JavaScript is
 *   needed.
 *
 * Without them another site could sign a visitor's browser in to a page as the attacker (login CSRF) and read what
 * they then do there, or mail codes in their name.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { readCookie } from "../infra/Cookies.js"
import { safeEqual } from "../infra/Secrets.js"

/** The cookie holding the form token. */
export const CSRF_COOKIE = "_sm_pv_csrf"
/** The hidden field holding the form token. */
export const CSRF_FIELD = "csrf"

/** A token this service made: 32 random bytes in base64url. */
const wellFormed = (token: string | undefined): token is string =>
  token !== undefined && /^[A-Za-z0-9_-]{43}$/.test(token)

/** The browser's form token, when it holds one. */
export const tokenOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const token = readCookie(request.headers["cookie"], CSRF_COOKIE)
  return wellFormed(token) ? token : undefined
}

/** The hidden field carrying `token`. */
export const hiddenField = (token: string) => `<input type="hidden" name="${CSRF_FIELD}" value="${token}">`

/** Whether the post comes from another site by what the browser says about it. */
const crossSite = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const site = request.headers["sec-fetch-site"]
  if (site !== undefined && site !== "same-origin" && site !== "none") return true
  const origin = request.headers["origin"]
  if (origin === undefined) return false
  if (!URL.canParse(origin)) return true
  const host = request.headers["host"]
  return host === undefined || new URL(origin).host.toLowerCase() !== host.toLowerCase()
}

/** Whether a sign-in post came from the sign-in page's own form in this browser. */
export const fromOwnForm = (request: HttpServerRequest.HttpServerRequest, field: string | undefined): boolean => {
  if (crossSite(request)) return false
  const token = tokenOf(request)
  return token !== undefined && field !== undefined && safeEqual(token, field)
}
