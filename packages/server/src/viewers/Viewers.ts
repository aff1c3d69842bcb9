/**
 * Private status pages: who may read one. The records an owner reads about it are `Records.ts`.
 *
 * - Email code: an address the page's rules allow gets a six-character code by mail, usable once in the browser
 *   that asked, newest only, five tries; the answer is the same for every address. A redeemed code makes (or finds)
 *   the viewer and signs the browser in.
 * - Password: the page password signs a device in; failures are recorded (failed_last_24h). A password session
 *   carries the password version, so a new password ends it; the owner can also sign every such device out.
 * - Sessions last `session_days` (null: a browser session, capped at one day on the server). An email viewer must
 *   prove the address again `recheck_days` after they last did. A way in that is turned off (or a rule removed)
 *   stops the sessions it made.
 * - Feed links: `?viewer=<id>&t=<hmac over page and viewer>` (a viewer's own) and `?t=<hmac over page and password
 *   version>` (the page-password link, which stops when the password changes), keyed by an instance secret.
 * - Blocking signs the viewer out at once (sessions deleted, live codes retired) and refuses their sign-in until
 *   unblocked.
 */
import { createHmac, randomInt } from "node:crypto"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Fingerprint } from "../auth/Fingerprint.js"
import { normalizeCode } from "../auth/MagicLinks.js"
import type { Device } from "../auth/Sessions.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Mailer } from "../infra/Mailer.js"
import { randomSecret, safeEqual, safeEqualBytes, sha256 } from "../infra/Secrets.js"
import * as PagePassword from "../statuspages/PagePassword.js"
import type { PageRow } from "../statuspages/Repo.js"
import { ViewersRepo } from "./Repo.js"

/** How long a mailed code works. */
export const CODE_MINUTES = 15
/** Wrong codes allowed before a code is retired. */
export const CODE_ATTEMPTS = 5
/** The server's cap on a browser session (`session_days: null`). */
export const BROWSER_SESSION_HOURS = 24

/** The cookie of a page's viewer session: one per page, so signing in to one page says nothing about another. */
export const cookieName = (pageId: string) => `_sm_pv_${pageId.replace(/-/g, "").toLowerCase()}`
/** The cookie binding a mailed code to the browser that asked for it. */
export const CODE_COOKIE = "_sm_pv_code"

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const newCode = () => Array.from({ length: 6 }, () => CROCKFORD[randomInt(32)]).join("")

/** A signed-in device: the cookie to set and how long it lasts (undefined: a browser session). */
export interface SignedIn {
  readonly token: string
  readonly maxAgeSecs: number | undefined
}

/** Too many wrong passwords from this client: try again in `retryAfterSecs`. */
export interface Throttled {
  readonly retryAfterSecs: number
}

export type SignInFailure = "invalid" | "malformed" | "blocked" | Throttled

/** The window of the bound on wrong page passwords per client. */
export const PASSWORD_WINDOW_MINUTES = 15

const emailWayOpen = (page: PageRow) => page.access?.protected === true && page.access.email_code.enabled
const passwordWayOpen = (page: PageRow) =>
  page.access?.protected === true && page.access.password.enabled && page.password_hash !== null

export class Viewers extends Effect.Service<Viewers>()("Signalman/Viewers", {
  effect: Effect.gen(function* () {
    const repo = yield* ViewersRepo
    const mailer = yield* Mailer
    const fingerprint = yield* Fingerprint
    const base = yield* publicBaseUrl
    const config = yield* AppConfig
    const codeIntervalSecs = config["status_page.code_interval_secs"]
    const codesPerHour = config["status_page.codes_per_hour"]
    const passwordFailures = config["status_page.password_failures"]

    const key = yield* repo.feedKey(randomSecret(32))
    if (Option.isNone(key)) return yield* Effect.dieMessage("no page feed key")
    const feedKey = key.value
    const sign = (message: string) => createHmac("sha256", feedKey).update(message).digest("base64url")
    const viewerToken = (pageId: string, viewerId: string) => sign(`viewer:${pageId}:${viewerId.toLowerCase()}`)
    const passwordToken = (pageId: string, version: number) => sign(`password:${pageId}:${version}`)

    // -- sessions

    const sessionLength = (page: PageRow) => {
      const days = page.access?.session_days ?? null
      return days === null
        ? { secs: BROWSER_SESSION_HOURS * 3600, cookie: undefined }
        : { secs: days * 86400, cookie: days * 86400 }
    }

    const startSession = (page: PageRow, viewerId: string | null, device: Device) =>
      Effect.gen(function* () {
        const token = randomSecret(32)
        const length = sessionLength(page)
        yield* repo.insertSession({
          id: uuidv7(),
          page_id: page.id,
          viewer_id: viewerId,
          token_hash: sha256(token),
          password_version: viewerId === null ? page.password_version : null,
          secs: length.secs,
          ip_hash: fingerprint.hash(device.ip),
          user_agent_hash: fingerprint.hash(device.userAgent)
        })
        return { token, maxAgeSecs: length.cookie } satisfies SignedIn
      })

    /** Whether an email viewer may still read: the way in open, the address allowed, not blocked, not due a recheck. */
    const viewerStillAdmitted = (
      page: PageRow,
      viewer: { readonly email: string; readonly blocked_at: Date | null; readonly verified_at: Date | null },
      now: number
    ) => {
      if (!emailWayOpen(page) || page.access === null) return false
      if (viewer.blocked_at !== null || !StatusPage.allows(page.access.email_code.allow, viewer.email)) return false
      const recheck = page.access.recheck_days
      if (recheck === null) return true
      return viewer.verified_at !== null && viewer.verified_at.getTime() + recheck * 86400_000 > now
    }

    /** The viewer a session cookie signs in (null: a password device), or none. */
    const session = (page: PageRow, token: string) =>
      Effect.gen(function* () {
        const row = yield* repo.session(sha256(token), page.id, sessionLength(page).secs)
        if (row === undefined) return Option.none<string | null>()
        if (row.viewer_id === null) {
          if (!passwordWayOpen(page) || row.password_version !== page.password_version) return Option.none()
          yield* repo.touchSession(row.id)
          return Option.some(null)
        }
        const admitted =
          row.email !== null &&
          viewerStillAdmitted(
            page,
            { email: row.email, blocked_at: row.blocked_at, verified_at: row.verified_at },
            Date.now()
          )
        if (!admitted) return Option.none()
        yield* repo.touchSession(row.id)
        yield* repo.recordVisit(row.viewer_id)
        return Option.some(row.viewer_id)
      })

    /** A feed link's viewer (null for the page-password link), or none. */
    const feedLink = (page: PageRow, viewerId: string | undefined, token: string) =>
      Effect.gen(function* () {
        if (viewerId === undefined) {
          return passwordWayOpen(page) && safeEqual(token, passwordToken(page.id, page.password_version))
            ? Option.some(null)
            : Option.none<string | null>()
        }
        if (!/^[0-9a-f-]{36}$/i.test(viewerId) || !safeEqual(token, viewerToken(page.id, viewerId))) {
          return Option.none()
        }
        const viewer = yield* repo.standing(page.id, viewerId)
        return viewer !== undefined && viewerStillAdmitted(page, viewer, Date.now())
          ? Option.some(viewerId.toLowerCase())
          : Option.none()
      })

    /** Both feed links of a page for a viewer: their own, and the page-password link while the password is on. */
    const feedLinks = (page: PageRow, viewerId: string | null) => {
      const feed = `${base}/api/public/v1/incidents.rss?page=${encodeURIComponent(page.slug)}`
      return {
        viewer: viewerId === null ? null : `${feed}&viewer=${viewerId}&t=${viewerToken(page.id, viewerId)}`,
        password: passwordWayOpen(page) ? `${feed}&t=${passwordToken(page.id, page.password_version)}` : null
      }
    }

    // -- sign-in

    const requestCode = (page: PageRow, typedEmail: string, browser: string) =>
      Effect.gen(function* () {
        const email = StatusPage.normalizeRule(typedEmail)
        if (page.access === null || !emailWayOpen(page) || email === undefined || email.startsWith("@")) return
        if (!StatusPage.allows(page.access.email_code.allow, email)) return
        if (yield* repo.blockedAddress(page.id, email)) return
        const code = newCode()
        const made = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockAddress(page.id, email)
            // The mail throttle: one code per address and page per interval, a few an hour, counted on the codes
            // made (used, retired or not). A throttled request makes nothing and keeps the last code working.
            const recent = yield* repo.recentCodes(page.id, email, codeIntervalSecs)
            if (codeIntervalSecs > 0 && recent.in_window > 0) return false
            if (codesPerHour > 0 && recent.hour >= codesPerHour) return false
            yield* repo.retireCodes(page.id, email)
            yield* repo.insertCode({
              id: uuidv7(),
              page_id: page.id,
              email,
              code_hash: sha256(code),
              browser_hash: sha256(browser),
              minutes: CODE_MINUTES
            })
            return true
          })
        )
        if (!made) return
        yield* mailer
          .send({
            to: email,
            subject: `Your code for ${page.name}: ${code}`,
            text: [
              `Type this code on the sign-in page of ${page.name} (${base}/p/${page.slug}):`,
              "",
              `Your page code: ${code}`,
              "",
              `It works once, in the browser where you asked for it, for ${CODE_MINUTES} minutes. If you did not ask, ignore this mail.`
            ].join("\n")
          })
          .pipe(Effect.catchAll((error) => Effect.logError("Could not send the page sign-in mail", error.cause)))
      })

    const redeemCode = (page: PageRow, typed: string, browser: string | undefined, device: Device) =>
      Effect.gen(function* () {
        const code = normalizeCode(typed)
        if (code === undefined) return yield* Effect.fail<SignInFailure>("malformed")
        if (browser === undefined || !emailWayOpen(page) || page.access === null) {
          return yield* Effect.fail<SignInFailure>("invalid")
        }
        const row = yield* repo.latestCode(page.id, sha256(browser))
        if (row === undefined) return yield* Effect.fail<SignInFailure>("invalid")
        if (!safeEqualBytes(sha256(code), row.code_hash)) {
          yield* repo.wrongCode(row.id, CODE_ATTEMPTS)
          return yield* Effect.fail<SignInFailure>("invalid")
        }
        if (!(yield* repo.claimCode(row.id))) return yield* Effect.fail<SignInFailure>("invalid")
        if (!StatusPage.allows(page.access.email_code.allow, row.email))
          return yield* Effect.fail<SignInFailure>("invalid")
        return yield* repo.transaction(
          Effect.gen(function* () {
            const viewer = yield* repo.upsertViewer(uuidv7(), page.id, row.email)
            if (viewer.blocked_at !== null) return yield* Effect.fail<SignInFailure>("blocked")
            yield* repo.insertSignIn(uuidv7(), viewer.id)
            yield* repo.recordVisit(viewer.id)
            return yield* startSession(page, viewer.id, device)
          })
        )
      })

    const signInWithPassword = (page: PageRow, password: string, device: Device) =>
      Effect.gen(function* () {
        if (!passwordWayOpen(page) || page.password_hash === null) return yield* Effect.fail<SignInFailure>("invalid")
        // Every attempt is written as a failure before the (slow) check and taken back when it succeeds, so
        // concurrent attempts count against the bound at once; an attempt over the bound is taken back unchecked.
        const attempt = uuidv7()
        const client = fingerprint.hash(device.ip)
        yield* repo.insertFailure(attempt, page.id, client)
        if (passwordFailures > 0) {
          const counted = yield* repo.failures(page.id, client, PASSWORD_WINDOW_MINUTES)
          if (counted.n > passwordFailures) {
            yield* repo.deleteFailure(attempt)
            return yield* Effect.fail<SignInFailure>({ retryAfterSecs: Math.max(1, counted.retry ?? 1) })
          }
        }
        const ok = password.length > 0 && (yield* PagePassword.verify(page.password_hash, password))
        if (!ok) return yield* Effect.fail<SignInFailure>("invalid")
        yield* repo.deleteFailure(attempt)
        yield* repo.passwordSignedIn(page.id)
        return yield* startSession(page, null, device)
      })

    const signOut = (page: PageRow, token: string) => repo.signOut(sha256(token), page.id)

    return { session, feedLink, feedLinks, requestCode, redeemCode, signInWithPassword, signOut }
  }),
  dependencies: [ViewersRepo.Default, Fingerprint.Default]
}) {}
