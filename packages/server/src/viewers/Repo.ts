/**
 * Private viewers' SQL: the feed links' key, viewer sessions, mailed sign-in codes, the viewers and their visits and
 * sign-ins, and wrong page passwords. Timestamps arrive as `Date`s. The database failing, or our own rows failing
 * their schema, are defects at this boundary.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

/** A viewer as the owner's records show them. */
export const ViewerRow = Schema.Struct({
  id: StatusPage.ViewerId,
  email: Schema.String,
  blocked_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf,
  last_sign_in_at: Schema.NullOr(Schema.DateFromSelf),
  last_visit_on: Schema.NullOr(Schema.String),
  sessions: Schema.Int
})
export type ViewerRow = typeof ViewerRow.Type

/** A live session with its viewer (none for a device signed in with the page password). */
export const SessionRow = Schema.Struct({
  id: Schema.String,
  viewer_id: Schema.NullOr(Schema.String),
  password_version: Schema.NullOr(Schema.Int),
  email: Schema.NullOr(Schema.String),
  blocked_at: Schema.NullOr(Schema.DateFromSelf),
  verified_at: Schema.NullOr(Schema.DateFromSelf)
})

/** What decides whether an email viewer may still read. */
export const Standing = Schema.Struct({
  email: Schema.String,
  blocked_at: Schema.NullOr(Schema.DateFromSelf),
  verified_at: Schema.NullOr(Schema.DateFromSelf)
})

/** A new session: a viewer's, or (viewer null) a device's signed in with this version of the password. */
export const NewSession = Schema.Struct({
  id: Schema.String,
  page_id: Schema.String,
  viewer_id: Schema.NullOr(Schema.String),
  token_hash: Schema.Uint8ArrayFromSelf,
  password_version: Schema.NullOr(Schema.Int),
  secs: Schema.Number,
  ip_hash: Schema.NullOr(Schema.String),
  user_agent_hash: Schema.NullOr(Schema.String)
})

/** A new mailed code, bound to the browser that asked. */
export const NewCode = Schema.Struct({
  id: Schema.String,
  page_id: Schema.String,
  email: Schema.String,
  code_hash: Schema.Uint8ArrayFromSelf,
  browser_hash: Schema.Uint8ArrayFromSelf,
  minutes: Schema.Int
})

const Address = Schema.Struct({ page_id: Schema.String, email: Schema.String })
const OfPage = Schema.Struct({ page_id: Schema.String, viewer_id: Schema.String })
const Id = Schema.Struct({ id: Schema.String })
const Count = Schema.Struct({ n: Schema.Int })
const Exists = Schema.Struct({ found: Schema.Boolean })

export class ViewersRepo extends Effect.Service<ViewersRepo>()("Signalman/ViewersRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // -- the feed links' key

    const makeFeedKey = SqlSchema.void({
      Request: Schema.String,
      execute: (value) => sql`
        INSERT INTO instance_secrets (name, value) VALUES ('page_feed_key', ${value}) ON CONFLICT (name) DO NOTHING
      `
    })

    const feedKey = SqlSchema.findOne({
      Request: Schema.Void,
      Result: Schema.Struct({ value: Schema.String }),
      execute: () => sql`SELECT value FROM instance_secrets WHERE name = 'page_feed_key'`
    })

    // -- sessions

    const insertSession = SqlSchema.void({
      Request: NewSession,
      execute: (row) => sql`
        INSERT INTO status_page_viewer_sessions (id, page_id, viewer_id, token_hash, password_version, expires_at,
          ip_hash, user_agent_hash)
        VALUES (${row.id}, ${row.page_id}, ${row.viewer_id}, ${row.token_hash}, ${row.password_version},
          now() + make_interval(secs => ${row.secs}), ${row.ip_hash}, ${row.user_agent_hash})
      `
    })

    const session = SqlSchema.findOne({
      Request: Schema.Struct({ token_hash: Schema.Uint8ArrayFromSelf, page_id: Schema.String, secs: Schema.Number }),
      Result: SessionRow,
      execute: ({ token_hash, page_id, secs }) => sql`
        SELECT s.id, s.viewer_id::text AS viewer_id, s.password_version, v.email, v.blocked_at, v.verified_at
        FROM status_page_viewer_sessions s LEFT JOIN status_page_viewers v ON v.id = s.viewer_id
        WHERE s.token_hash = ${token_hash} AND s.page_id = ${page_id} AND s.expires_at > now()
          AND s.created_at + make_interval(secs => ${secs}) > now()
      `
    })

    const touchSession = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE status_page_viewer_sessions SET last_seen_at = now() WHERE id = ${id}`
    })

    const recordVisit = SqlSchema.void({
      Request: Schema.String,
      execute: (viewerId) => sql`
        INSERT INTO status_page_viewer_visits (viewer_id, day) VALUES (${viewerId}, (now() AT TIME ZONE 'UTC')::date)
        ON CONFLICT DO NOTHING
      `
    })

    const signOut = SqlSchema.void({
      Request: Schema.Struct({ token_hash: Schema.Uint8ArrayFromSelf, page_id: Schema.String }),
      execute: ({ token_hash, page_id }) =>
        sql`DELETE FROM status_page_viewer_sessions WHERE token_hash = ${token_hash} AND page_id = ${page_id}`
    })

    const endViewerSessions = SqlSchema.void({
      Request: Schema.String,
      execute: (viewerId) => sql`DELETE FROM status_page_viewer_sessions WHERE viewer_id = ${viewerId}`
    })

    const endPasswordSessions = SqlSchema.void({
      Request: Schema.String,
      execute: (pageId) => sql`DELETE FROM status_page_viewer_sessions WHERE page_id = ${pageId} AND viewer_id IS NULL`
    })

    // -- mailed codes

    const standing = SqlSchema.findOne({
      Request: OfPage,
      Result: Standing,
      execute: ({ page_id, viewer_id }) => sql`
        SELECT email, blocked_at, verified_at FROM status_page_viewers WHERE id = ${viewer_id} AND page_id = ${page_id}
      `
    })

    const blockedAddress = SqlSchema.single({
      Request: Address,
      Result: Exists,
      execute: ({ page_id, email }) => sql`
        SELECT EXISTS (
          SELECT 1 FROM status_page_viewers WHERE page_id = ${page_id} AND email = ${email} AND blocked_at IS NOT NULL
        ) AS found
      `
    })

    const lockAddress = SqlSchema.void({
      Request: Address,
      execute: ({ page_id, email }) => sql`SELECT pg_advisory_xact_lock(hashtext(${`page_code:${page_id}:${email}`}))`
    })

    const recentCodes = SqlSchema.single({
      Request: Schema.Struct({ page_id: Schema.String, email: Schema.String, interval_secs: Schema.Number }),
      Result: Schema.Struct({ in_window: Schema.Int, hour: Schema.Int }),
      execute: ({ page_id, email, interval_secs }) => sql`
        SELECT count(*) FILTER (WHERE created_at > now() - make_interval(secs => ${interval_secs}))::int AS in_window,
          count(*)::int AS hour
        FROM status_page_sign_in_codes
        WHERE page_id = ${page_id} AND email = ${email} AND created_at > now() - interval '1 hour'
      `
    })

    const retireCodes = SqlSchema.void({
      Request: Address,
      execute: ({ page_id, email }) => sql`
        UPDATE status_page_sign_in_codes SET retired_at = now()
        WHERE page_id = ${page_id} AND email = ${email} AND retired_at IS NULL AND used_at IS NULL
      `
    })

    const insertCode = SqlSchema.void({
      Request: NewCode,
      execute: (row) => sql`
        INSERT INTO status_page_sign_in_codes (id, page_id, email, code_hash, browser_hash, expires_at)
        VALUES (${row.id}, ${row.page_id}, ${row.email}, ${row.code_hash}, ${row.browser_hash},
          now() + make_interval(mins => ${row.minutes}))
      `
    })

    const latestCode = SqlSchema.findOne({
      Request: Schema.Struct({ page_id: Schema.String, browser_hash: Schema.Uint8ArrayFromSelf }),
      Result: Schema.Struct({ id: Schema.String, email: Schema.String, code_hash: Schema.Uint8ArrayFromSelf }),
      execute: ({ page_id, browser_hash }) => sql`
        SELECT id::text AS id, email, code_hash FROM status_page_sign_in_codes
        WHERE page_id = ${page_id} AND browser_hash = ${browser_hash} AND used_at IS NULL AND retired_at IS NULL
          AND expires_at > now()
        ORDER BY created_at DESC, id DESC LIMIT 1
      `
    })

    const wrongCode = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, attempts: Schema.Int }),
      execute: ({ id, attempts }) => sql`
        UPDATE status_page_sign_in_codes SET attempts = attempts + 1,
          retired_at = CASE WHEN attempts + 1 >= ${attempts} THEN now() ELSE retired_at END
        WHERE id = ${id}
      `
    })

    const claimCode = SqlSchema.findOne({
      Request: Schema.String,
      Result: Id,
      execute: (id) => sql`
        UPDATE status_page_sign_in_codes SET used_at = now()
        WHERE id = ${id} AND used_at IS NULL AND retired_at IS NULL RETURNING id::text AS id
      `
    })

    // -- viewers

    const upsertViewer = SqlSchema.single({
      Request: Schema.Struct({ id: Schema.String, page_id: Schema.String, email: Schema.String }),
      Result: Schema.Struct({ id: Schema.String, blocked_at: Schema.NullOr(Schema.DateFromSelf) }),
      execute: ({ id, page_id, email }) => sql`
        INSERT INTO status_page_viewers (id, page_id, email, verified_at, last_sign_in_at)
        VALUES (${id}, ${page_id}, ${email}, now(), now())
        ON CONFLICT (page_id, email) DO UPDATE SET verified_at = now(), last_sign_in_at = now()
        RETURNING id::text AS id, blocked_at
      `
    })

    const insertSignIn = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, viewer_id: Schema.String }),
      execute: ({ id, viewer_id }) =>
        sql`INSERT INTO status_page_viewer_sign_ins (id, viewer_id) VALUES (${id}, ${viewer_id})`
    })

    // -- wrong page passwords

    const insertFailure = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, page_id: Schema.String, ip_hash: Schema.NullOr(Schema.String) }),
      execute: ({ id, page_id, ip_hash }) =>
        sql`INSERT INTO status_page_password_failures (id, page_id, ip_hash) VALUES (${id}, ${page_id}, ${ip_hash})`
    })

    const failures = SqlSchema.single({
      Request: Schema.Struct({ page_id: Schema.String, ip_hash: Schema.NullOr(Schema.String), minutes: Schema.Int }),
      Result: Schema.Struct({ n: Schema.Int, retry: Schema.NullOr(Schema.Int) }),
      execute: ({ page_id, ip_hash, minutes }) => sql`
        SELECT count(*)::int AS n,
          ceil(extract(epoch FROM min(at) + make_interval(mins => ${minutes}) - now()))::int AS retry
        FROM status_page_password_failures
        WHERE page_id = ${page_id} AND ip_hash IS NOT DISTINCT FROM ${ip_hash}
          AND at > now() - make_interval(mins => ${minutes})
      `
    })

    const deleteFailure = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`DELETE FROM status_page_password_failures WHERE id = ${id}`
    })

    const passwordSignedIn = SqlSchema.void({
      Request: Schema.String,
      execute: (pageId) => sql`UPDATE status_pages SET password_last_sign_in_at = now() WHERE id = ${pageId}`
    })

    // -- the owner's records

    const selectViewers = sql`
      SELECT v.id::text AS id, v.email, v.blocked_at, v.created_at, v.last_sign_in_at,
        (SELECT max(day)::text FROM status_page_viewer_visits w WHERE w.viewer_id = v.id) AS last_visit_on,
        (SELECT count(*)::int FROM status_page_viewer_sessions s WHERE s.viewer_id = v.id AND s.expires_at > now())
          AS sessions
      FROM status_page_viewers v
    `

    const viewer = SqlSchema.findOne({
      Request: OfPage,
      Result: ViewerRow,
      execute: ({ page_id, viewer_id }) => sql`${selectViewers} WHERE v.id = ${viewer_id} AND v.page_id = ${page_id}`
    })

    const count = SqlSchema.single({
      Request: Schema.String,
      Result: Count,
      execute: (pageId) => sql`SELECT count(*)::int AS n FROM status_page_viewers WHERE page_id = ${pageId}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ page_id: Schema.String, limit: Schema.Int, offset: Schema.Int }),
      Result: ViewerRow,
      execute: ({ page_id, limit, offset }) => sql`
        ${selectViewers} WHERE v.page_id = ${page_id}
        ORDER BY v.last_sign_in_at DESC NULLS LAST, v.id DESC LIMIT ${limit} OFFSET ${offset}
      `
    })

    const block = SqlSchema.findOne({
      Request: Schema.Struct({ page_id: Schema.String, viewer_id: Schema.String, user_id: Schema.String }),
      Result: Schema.Struct({ email: Schema.String }),
      execute: ({ page_id, viewer_id, user_id }) => sql`
        UPDATE status_page_viewers SET blocked_at = coalesce(blocked_at, now()), blocked_by = ${user_id}
        WHERE id = ${viewer_id} AND page_id = ${page_id} RETURNING email
      `
    })

    const unblock = SqlSchema.findOne({
      Request: OfPage,
      Result: Id,
      execute: ({ page_id, viewer_id }) => sql`
        UPDATE status_page_viewers SET blocked_at = NULL, blocked_by = NULL
        WHERE id = ${viewer_id} AND page_id = ${page_id} RETURNING id::text AS id
      `
    })

    const visitDays = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ day: Schema.String }),
      execute: (viewerId) => sql`
        SELECT day::text AS day FROM status_page_viewer_visits
        WHERE viewer_id = ${viewerId} AND day > (now() - interval '1 year')::date ORDER BY day DESC
      `
    })

    const signIns = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ at: Schema.DateTimeUtcFromDate }),
      execute: (viewerId) => sql`
        SELECT at FROM status_page_viewer_sign_ins
        WHERE viewer_id = ${viewerId} AND at > now() - interval '1 year' ORDER BY at DESC, id DESC
      `
    })

    const passwordCounts = SqlSchema.single({
      Request: Schema.Struct({ page_id: Schema.String, password_version: Schema.Int }),
      Result: Schema.Struct({ sessions: Schema.Int, failed: Schema.Int }),
      execute: ({ page_id, password_version }) => sql`
        SELECT
          (SELECT count(*)::int FROM status_page_viewer_sessions
            WHERE page_id = ${page_id} AND viewer_id IS NULL AND expires_at > now()
              AND password_version = ${password_version}) AS sessions,
          (SELECT count(*)::int FROM status_page_password_failures
            WHERE page_id = ${page_id} AND at > now() - interval '24 hours') AS failed
      `
    })

    const some = (effect: Effect.Effect<Option.Option<unknown>, unknown>) =>
      Effect.map(Effect.orDie(effect), Option.isSome)
    const optional = <A>(effect: Effect.Effect<Option.Option<A>, unknown>) =>
      Effect.map(Effect.orDie(effect), Option.getOrUndefined)

    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** The feed links' key, made on first use and kept, so every process signs alike. */
      feedKey: (candidate: string) =>
        Effect.gen(function* () {
          yield* makeFeedKey(candidate)
          return Option.map(yield* feedKey(), (row) => row.value)
        }).pipe(Effect.orDie),
      insertSession: (row: typeof NewSession.Type) => Effect.orDie(insertSession(row)),
      /** The live session of this token on the page, within the page's session length. */
      session: (tokenHash: Uint8Array, pageId: string, secs: number) =>
        optional(session({ token_hash: tokenHash, page_id: pageId, secs })),
      touchSession: (id: string) => Effect.orDie(touchSession(id)),
      /** Counts today as a day the viewer opened the page. */
      recordVisit: (viewerId: string) => Effect.orDie(recordVisit(viewerId)),
      signOut: (tokenHash: Uint8Array, pageId: string) =>
        Effect.orDie(signOut({ token_hash: tokenHash, page_id: pageId })),
      endViewerSessions: (viewerId: string) => Effect.orDie(endViewerSessions(viewerId)),
      /** Signs out every device signed in with the page password. */
      endPasswordSessions: (pageId: string) => Effect.orDie(endPasswordSessions(pageId)),
      standing: (pageId: string, viewerId: string) => optional(standing({ page_id: pageId, viewer_id: viewerId })),
      blockedAddress: (pageId: string, email: string) =>
        Effect.map(Effect.orDie(blockedAddress({ page_id: pageId, email })), (row) => row.found),
      /** Serialises the code requests of one address on one page to the end of the transaction. */
      lockAddress: (pageId: string, email: string) => Effect.orDie(lockAddress({ page_id: pageId, email })),
      /** Codes made for the address on the page: in the last `intervalSecs`, and in the last hour. */
      recentCodes: (pageId: string, email: string, intervalSecs: number) =>
        Effect.orDie(recentCodes({ page_id: pageId, email, interval_secs: intervalSecs })),
      /** Retires the address's live codes on the page: only the newest works. */
      retireCodes: (pageId: string, email: string) => Effect.orDie(retireCodes({ page_id: pageId, email })),
      insertCode: (row: typeof NewCode.Type) => Effect.orDie(insertCode(row)),
      /** The newest live code this browser asked for on the page. */
      latestCode: (pageId: string, browserHash: Uint8Array) =>
        optional(latestCode({ page_id: pageId, browser_hash: browserHash })),
      /** Counts a wrong try; the code is retired at `attempts`. */
      wrongCode: (id: string, attempts: number) => Effect.orDie(wrongCode({ id, attempts })),
      /** Uses the code once; false when another request used or retired it first. */
      claimCode: (id: string) => some(claimCode(id)),
      /** Makes (or finds) the address's viewer, proven now. */
      upsertViewer: (id: string, pageId: string, email: string) =>
        Effect.orDie(upsertViewer({ id, page_id: pageId, email })),
      insertSignIn: (id: string, viewerId: string) => Effect.orDie(insertSignIn({ id, viewer_id: viewerId })),
      insertFailure: (id: string, pageId: string, ipHash: string | null) =>
        Effect.orDie(insertFailure({ id, page_id: pageId, ip_hash: ipHash })),
      /** Wrong passwords from this client on the page in the last `minutes`, and seconds until the oldest ages out. */
      failures: (pageId: string, ipHash: string | null, minutes: number) =>
        Effect.orDie(failures({ page_id: pageId, ip_hash: ipHash, minutes })),
      deleteFailure: (id: string) => Effect.orDie(deleteFailure(id)),
      passwordSignedIn: (pageId: string) => Effect.orDie(passwordSignedIn(pageId)),
      viewer: (pageId: string, viewerId: string) => optional(viewer({ page_id: pageId, viewer_id: viewerId })),
      list: (pageId: string, query: { readonly limit: number; readonly offset: number }) =>
        Effect.orDie(
          Effect.all({
            total: Effect.map(count(pageId), (row) => row.n),
            rows: page({ page_id: pageId, ...query })
          })
        ),
      /** Blocks the viewer (the first block's time kept); their address, or undefined when there is no such viewer. */
      block: (pageId: string, viewerId: string, userId: string) =>
        Effect.map(optional(block({ page_id: pageId, viewer_id: viewerId, user_id: userId })), (row) => row?.email),
      /** False when there is no such viewer. */
      unblock: (pageId: string, viewerId: string) => some(unblock({ page_id: pageId, viewer_id: viewerId })),
      /** The days in the last year the viewer opened the page, newest first. */
      visitDays: (viewerId: string) => Effect.map(Effect.orDie(visitDays(viewerId)), (rows) => rows.map((r) => r.day)),
      /** The viewer's sign-ins in the last year, newest first. */
      signIns: (viewerId: string) => Effect.orDie(signIns(viewerId)),
      /** Live sessions of the current password, and wrong passwords in the last day. */
      passwordCounts: (pageId: string, passwordVersion: number) =>
        Effect.orDie(passwordCounts({ page_id: pageId, password_version: passwordVersion }))
    }
  })
}) {}
