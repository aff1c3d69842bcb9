/**
 * Private status pages: who may read one, and the records an owner reads about it.
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
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as StatusPage from "@signalman/core/StatusPage"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Fingerprint } from "../auth/Fingerprint.js"
import { normalizeCode } from "../auth/MagicLinks.js"
import type { Device } from "../auth/Sessions.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Mailer } from "../infra/Mailer.js"
import { randomSecret, safeEqual, safeEqualBytes, sha256 } from "../infra/Secrets.js"
import { type PageRow, StatusPages, verifyPassword } from "../statuspages/StatusPages.js"
import { SubscriptionEnds } from "../statuspages/SubscriptionEnds.js"

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

const ViewerRow = Schema.Struct({
  id: StatusPage.ViewerId,
  email: Schema.String,
  blocked_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  last_sign_in_at: Schema.NullOr(Schema.DateFromSelf),
  last_visit_on: Schema.NullOr(Schema.String),
  sessions: Schema.Int
})

const SessionRow = Schema.Struct({
  id: Schema.String,
  viewer_id: Schema.NullOr(Schema.String),
  password_version: Schema.NullOr(Schema.Int),
  email: Schema.NullOr(Schema.String),
  blocked_at: Schema.NullOr(Schema.DateFromSelf),
  verified_at: Schema.NullOr(Schema.DateFromSelf)
})

const viewerNotFound = ApiError.make("NOT_FOUND", "No such viewer")
const utc = (date: Date) => DateTime.unsafeFromDate(date)
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
    const sql = yield* SqlClient.SqlClient
    const pages = yield* StatusPages
    const ends = yield* SubscriptionEnds
    const mailer = yield* Mailer
    const fingerprint = yield* Fingerprint
    const base = yield* publicBaseUrl
    const config = yield* AppConfig
    const codeIntervalSecs = config["status_page.code_interval_secs"]
    const codesPerHour = config["status_page.codes_per_hour"]
    const passwordFailures = config["status_page.password_failures"]
    const decodeViewers = Schema.decodeUnknown(Schema.Array(ViewerRow))
    const decodeSessions = Schema.decodeUnknown(Schema.Array(SessionRow))

    // The key of the feed links: made once per instance and kept, so every process signs alike.
    yield* sql`
      INSERT INTO instance_secrets (name, value) VALUES ('page_feed_key', ${randomSecret(32)})
      ON CONFLICT (name) DO NOTHING
    `
    const [keyRow] = yield* sql<{ value: string }>`SELECT value FROM instance_secrets WHERE name = 'page_feed_key'`
    if (keyRow === undefined) return yield* Effect.dieMessage("no page feed key")
    const feedKey = keyRow.value
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
        yield* sql`
          INSERT INTO status_page_viewer_sessions (id, page_id, viewer_id, token_hash, password_version, expires_at,
            ip_hash, user_agent_hash)
          VALUES (${uuidv7()}, ${page.id}, ${viewerId}, ${sha256(token)},
            ${viewerId === null ? page.password_version : null}, now() + make_interval(secs => ${length.secs}),
            ${fingerprint.hash(device.ip)}, ${fingerprint.hash(device.userAgent)})
        `
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

    const recordVisit = (viewerId: string) =>
      sql`
        INSERT INTO status_page_viewer_visits (viewer_id, day) VALUES (${viewerId}, (now() AT TIME ZONE 'UTC')::date)
        ON CONFLICT DO NOTHING
      `

    /** The viewer a session cookie signs in (null: a password device), or none. */
    const session = (page: PageRow, token: string) =>
      Effect.gen(function* () {
        const rows = yield* sql`
          SELECT s.id, s.viewer_id::text AS viewer_id, s.password_version, v.email, v.blocked_at, v.verified_at
          FROM status_page_viewer_sessions s LEFT JOIN status_page_viewers v ON v.id = s.viewer_id
          WHERE s.token_hash = ${sha256(token)} AND s.page_id = ${page.id} AND s.expires_at > now()
            AND s.created_at + make_interval(secs => ${sessionLength(page).secs}) > now()
        `.pipe(Effect.flatMap(decodeSessions))
        const row = rows[0]
        if (row === undefined) return Option.none<string | null>()
        if (row.viewer_id === null) {
          if (!passwordWayOpen(page) || row.password_version !== page.password_version) return Option.none()
          yield* sql`UPDATE status_page_viewer_sessions SET last_seen_at = now() WHERE id = ${row.id}`
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
        yield* sql`UPDATE status_page_viewer_sessions SET last_seen_at = now() WHERE id = ${row.id}`
        yield* recordVisit(row.viewer_id)
        return Option.some(row.viewer_id)
      }).pipe(Effect.orDie)

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
        const [viewer] = yield* sql<{ email: string; blocked_at: Date | null; verified_at: Date | null }>`
          SELECT email, blocked_at, verified_at FROM status_page_viewers WHERE id = ${viewerId} AND page_id = ${page.id}
        `
        return viewer !== undefined && viewerStillAdmitted(page, viewer, Date.now())
          ? Option.some(viewerId.toLowerCase())
          : Option.none()
      }).pipe(Effect.orDie)

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
        const [blocked] = yield* sql`
          SELECT 1 FROM status_page_viewers WHERE page_id = ${page.id} AND email = ${email} AND blocked_at IS NOT NULL
        `
        if (blocked !== undefined) return
        const code = newCode()
        const made = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`page_code:${page.id}:${email}`}))`
            // The mail throttle: one code per address and page per interval, a few an hour, counted on the codes
            // made (used, retired or not). A throttled request makes nothing and keeps the last code working.
            const [recent] = yield* sql<{ in_window: number; hour: number }>`
              SELECT count(*) FILTER (WHERE created_at > now() - make_interval(secs => ${codeIntervalSecs}))::int
                  AS in_window,
                count(*)::int AS hour
              FROM status_page_sign_in_codes
              WHERE page_id = ${page.id} AND email = ${email} AND created_at > now() - interval '1 hour'
            `
            if (recent !== undefined) {
              if (codeIntervalSecs > 0 && recent.in_window > 0) return false
              if (codesPerHour > 0 && recent.hour >= codesPerHour) return false
            }
            yield* sql`
              UPDATE status_page_sign_in_codes SET retired_at = now()
              WHERE page_id = ${page.id} AND email = ${email} AND retired_at IS NULL AND used_at IS NULL
            `
            yield* sql`
              INSERT INTO status_page_sign_in_codes (id, page_id, email, code_hash, browser_hash, expires_at)
              VALUES (${uuidv7()}, ${page.id}, ${email}, ${sha256(code)}, ${sha256(browser)},
                now() + make_interval(mins => ${CODE_MINUTES}))
            `
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
      }).pipe(Effect.orDie)

    const redeemCode = (page: PageRow, typed: string, browser: string | undefined, device: Device) =>
      Effect.gen(function* () {
        const code = normalizeCode(typed)
        if (code === undefined) return yield* Effect.fail<SignInFailure>("malformed")
        if (browser === undefined || !emailWayOpen(page) || page.access === null) {
          return yield* Effect.fail<SignInFailure>("invalid")
        }
        const [row] = yield* sql<{ id: string; email: string; code_hash: Uint8Array }>`
          SELECT id, email, code_hash FROM status_page_sign_in_codes
          WHERE page_id = ${page.id} AND browser_hash = ${sha256(browser)} AND used_at IS NULL AND retired_at IS NULL
            AND expires_at > now()
          ORDER BY created_at DESC, id DESC LIMIT 1
        `
        if (row === undefined) return yield* Effect.fail<SignInFailure>("invalid")
        if (!safeEqualBytes(sha256(code), row.code_hash)) {
          yield* sql`
            UPDATE status_page_sign_in_codes SET attempts = attempts + 1,
              retired_at = CASE WHEN attempts + 1 >= ${CODE_ATTEMPTS} THEN now() ELSE retired_at END
            WHERE id = ${row.id}
          `
          return yield* Effect.fail<SignInFailure>("invalid")
        }
        const claimed = yield* sql`
          UPDATE status_page_sign_in_codes SET used_at = now()
          WHERE id = ${row.id} AND used_at IS NULL AND retired_at IS NULL RETURNING id
        `
        if (claimed.length === 0) return yield* Effect.fail<SignInFailure>("invalid")
        if (!StatusPage.allows(page.access.email_code.allow, row.email))
          return yield* Effect.fail<SignInFailure>("invalid")
        return yield* sql.withTransaction(
          Effect.gen(function* () {
            const [viewer] = yield* sql<{ id: string; blocked_at: Date | null }>`
              INSERT INTO status_page_viewers (id, page_id, email, verified_at, last_sign_in_at)
              VALUES (${uuidv7()}, ${page.id}, ${row.email}, now(), now())
              ON CONFLICT (page_id, email) DO UPDATE SET verified_at = now(), last_sign_in_at = now()
              RETURNING id::text AS id, blocked_at
            `
            if (viewer === undefined) return yield* Effect.dieMessage("viewer upsert returned nothing")
            if (viewer.blocked_at !== null) return yield* Effect.fail<SignInFailure>("blocked")
            yield* sql`INSERT INTO status_page_viewer_sign_ins (id, viewer_id) VALUES (${uuidv7()}, ${viewer.id})`
            yield* recordVisit(viewer.id)
            return yield* startSession(page, viewer.id, device)
          })
        )
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const signInWithPassword = (page: PageRow, password: string, device: Device) =>
      Effect.gen(function* () {
        if (!passwordWayOpen(page) || page.password_hash === null) return yield* Effect.fail<SignInFailure>("invalid")
        // Every attempt is written as a failure before the (slow) check and taken back when it succeeds, so
        // concurrent attempts count against the bound at once; an attempt over the bound is taken back unchecked.
        const attempt = uuidv7()
        const client = fingerprint.hash(device.ip)
        yield* sql`
          INSERT INTO status_page_password_failures (id, page_id, ip_hash) VALUES (${attempt}, ${page.id}, ${client})
        `
        if (passwordFailures > 0) {
          const [counted] = yield* sql<{ n: number; retry: number | null }>`
            SELECT count(*)::int AS n,
              ceil(extract(epoch FROM min(at) + make_interval(mins => ${PASSWORD_WINDOW_MINUTES}) - now()))::int
                AS retry
            FROM status_page_password_failures
            WHERE page_id = ${page.id} AND ip_hash IS NOT DISTINCT FROM ${client}
              AND at > now() - make_interval(mins => ${PASSWORD_WINDOW_MINUTES})
          `
          if (counted !== undefined && counted.n > passwordFailures) {
            yield* sql`DELETE FROM status_page_password_failures WHERE id = ${attempt}`
            return yield* Effect.fail<SignInFailure>({ retryAfterSecs: Math.max(1, counted.retry ?? 1) })
          }
        }
        const ok = password.length > 0 && (yield* verifyPassword(page.password_hash, password))
        if (!ok) return yield* Effect.fail<SignInFailure>("invalid")
        yield* sql`DELETE FROM status_page_password_failures WHERE id = ${attempt}`
        yield* sql`UPDATE status_pages SET password_last_sign_in_at = now() WHERE id = ${page.id}`
        return yield* startSession(page, null, device)
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    const signOut = (page: PageRow, token: string) =>
      sql`DELETE FROM status_page_viewer_sessions WHERE token_hash = ${sha256(token)} AND page_id = ${page.id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    // -- the owner's records

    const selectViewers = sql`
      SELECT v.id::text AS id, v.email, v.blocked_at, v.created_at, v.last_sign_in_at,
        (SELECT max(day)::text FROM status_page_viewer_visits w WHERE w.viewer_id = v.id) AS last_visit_on,
        (SELECT count(*)::int FROM status_page_viewer_sessions s WHERE s.viewer_id = v.id AND s.expires_at > now())
          AS sessions
      FROM status_page_viewers v
    `

    const toViewer = (row: typeof ViewerRow.Type) =>
      new StatusPage.Viewer({
        id: row.id,
        email: row.email,
        blocked: row.blocked_at !== null,
        blocked_at: row.blocked_at === null ? null : utc(row.blocked_at),
        first_sign_in_at: utc(row.created_at),
        last_sign_in_at: row.last_sign_in_at === null ? null : utc(row.last_sign_in_at),
        last_visit_on: row.last_visit_on,
        sessions: row.sessions
      })

    const viewer = (pageId: string, viewerId: string) =>
      sql`${selectViewers} WHERE v.id = ${viewerId} AND v.page_id = ${pageId}`.pipe(
        Effect.flatMap(decodeViewers),
        Effect.flatMap((rows) =>
          rows[0] === undefined ? Effect.fail(viewerNotFound) : Effect.succeed(toViewer(rows[0]))
        )
      )

    const list = (org: ActiveOrg, pageId: string, query: { readonly limit: number; readonly offset: number }) =>
      Effect.gen(function* () {
        yield* pages.found(org, pageId)
        const [count] = yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM status_page_viewers WHERE page_id = ${pageId}
        `
        const rows = yield* sql`
          ${selectViewers} WHERE v.page_id = ${pageId}
          ORDER BY v.last_sign_in_at DESC NULLS LAST, v.id DESC LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decodeViewers))
        return { data: rows.map(toViewer), total: count?.n ?? 0, limit: query.limit, offset: query.offset }
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const block = (org: ActiveOrg, pageId: string, viewerId: string, userId: string) =>
      Effect.gen(function* () {
        yield* pages.found(org, pageId)
        yield* sql.withTransaction(
          Effect.gen(function* () {
            const [row] = yield* sql<{ email: string }>`
              UPDATE status_page_viewers SET blocked_at = coalesce(blocked_at, now()), blocked_by = ${userId}
              WHERE id = ${viewerId} AND page_id = ${pageId} RETURNING email
            `
            if (row === undefined) return yield* Effect.fail(viewerNotFound)
            yield* sql`DELETE FROM status_page_viewer_sessions WHERE viewer_id = ${viewerId}`
            // Blocking also ends what the viewer subscribed to (the public-page transitions).
            yield* ends.endViewer(pageId, viewerId, row.email)
            yield* sql`
              UPDATE status_page_sign_in_codes SET retired_at = now()
              WHERE page_id = ${pageId} AND email = ${row.email} AND retired_at IS NULL AND used_at IS NULL
            `
          })
        )
        return yield* viewer(pageId, viewerId)
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const unblock = (org: ActiveOrg, pageId: string, viewerId: string) =>
      Effect.gen(function* () {
        yield* pages.found(org, pageId)
        const updated = yield* sql`
          UPDATE status_page_viewers SET blocked_at = NULL, blocked_by = NULL
          WHERE id = ${viewerId} AND page_id = ${pageId} RETURNING id
        `
        if (updated.length === 0) return yield* Effect.fail(viewerNotFound)
        return yield* viewer(pageId, viewerId)
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const history = (org: ActiveOrg, pageId: string, viewerId: string) =>
      Effect.gen(function* () {
        yield* pages.found(org, pageId)
        yield* viewer(pageId, viewerId)
        const days = yield* sql<{ day: string }>`
          SELECT day::text AS day FROM status_page_viewer_visits
          WHERE viewer_id = ${viewerId} AND day > (now() - interval '1 year')::date ORDER BY day DESC
        `
        const signIns = yield* sql<{ at: Date }>`
          SELECT at FROM status_page_viewer_sign_ins
          WHERE viewer_id = ${viewerId} AND at > now() - interval '1 year' ORDER BY at DESC, id DESC
        `
        return {
          visit_days: days.map((d) => d.day),
          sign_ins: signIns.map((s) => ({ at: utc(s.at), method: "email_code" as const }))
        }
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const passwordRecordOf = (page: PageRow) =>
      Effect.gen(function* () {
        const [counts] = yield* sql<{ sessions: number; failed: number }>`
          SELECT
            (SELECT count(*)::int FROM status_page_viewer_sessions
              WHERE page_id = ${page.id} AND viewer_id IS NULL AND expires_at > now()
                AND password_version = ${page.password_version}) AS sessions,
            (SELECT count(*)::int FROM status_page_password_failures
              WHERE page_id = ${page.id} AND at > now() - interval '24 hours') AS failed
        `
        const subscriptions = yield* ends.passwordCount(page.id)
        return {
          enabled: page.access?.password.enabled === true && page.password_hash !== null,
          set_at: page.password_set_at === null ? null : utc(page.password_set_at),
          set_by: page.password_set_by,
          sessions: counts?.sessions ?? 0,
          last_sign_in_at: page.password_last_sign_in_at === null ? null : utc(page.password_last_sign_in_at),
          failed_last_24h: counts?.failed ?? 0,
          subscriptions
        }
      })

    const passwordRecord = (org: ActiveOrg, pageId: string) =>
      Effect.flatMap(pages.found(org, pageId), passwordRecordOf).pipe(
        Effect.catchTag("SqlError", "ParseError", Effect.die)
      )

    const passwordSignOut = (org: ActiveOrg, pageId: string) =>
      Effect.gen(function* () {
        const page = yield* pages.found(org, pageId)
        yield* sql`DELETE FROM status_page_viewer_sessions WHERE page_id = ${pageId} AND viewer_id IS NULL`
        return yield* passwordRecordOf(page)
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    return {
      session,
      feedLink,
      feedLinks,
      requestCode,
      redeemCode,
      signInWithPassword,
      signOut,
      list,
      block,
      unblock,
      history,
      passwordRecord,
      passwordSignOut
    }
  }).pipe(Effect.orDie),
  dependencies: [StatusPages.Default, Fingerprint.Default]
}) {}
