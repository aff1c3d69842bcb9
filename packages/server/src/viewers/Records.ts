/**
 * The private viewers' side of `ViewerRecords`: what an owner reads about a private page's viewers and its password.
 * Blocking signs the viewer out at once (sessions deleted, live codes retired), ends what they subscribed to, and
 * refuses their sign-in until unblocked. Every record is of a page of the caller's org (404 otherwise).
 */
import * as ApiError from "@signalman/core/ApiError"
import * as StatusPage from "@signalman/core/StatusPage"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { PageRow } from "../statuspages/Repo.js"
import { StatusPages } from "../statuspages/StatusPages.js"
import { SubscriptionEnds } from "../statuspages/SubscriptionEnds.js"
import { ViewerRecords } from "../statuspages/ViewerRecords.js"
import { type ViewerRow, ViewersRepo } from "./Repo.js"

const viewerNotFound = ApiError.make("NOT_FOUND", "No such viewer")
const utc = (date: Date) => DateTime.unsafeFromDate(date)

const toViewer = (row: ViewerRow) =>
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

export const layer = Layer.effect(
  ViewerRecords,
  Effect.gen(function* () {
    const repo = yield* ViewersRepo
    const pages = yield* StatusPages
    const ends = yield* SubscriptionEnds

    const viewer = (pageId: string, viewerId: string) =>
      Effect.flatMap(repo.viewer(pageId, viewerId), (row) =>
        row === undefined ? Effect.fail(viewerNotFound) : Effect.succeed(toViewer(row))
      )

    const passwordRecordOf = (page: PageRow) =>
      Effect.gen(function* () {
        const counts = yield* repo.passwordCounts(page.id, page.password_version)
        const subscriptions = yield* ends.passwordCount(page.id)
        return {
          enabled: page.access?.password.enabled === true && page.password_hash !== null,
          set_at: page.password_set_at === null ? null : utc(page.password_set_at),
          set_by: page.password_set_by,
          sessions: counts.sessions,
          last_sign_in_at: page.password_last_sign_in_at === null ? null : utc(page.password_last_sign_in_at),
          failed_last_24h: counts.failed,
          subscriptions
        }
      })

    return {
      list: (org, pageId, query) =>
        Effect.gen(function* () {
          yield* pages.found(org, pageId)
          const { total, rows } = yield* repo.list(pageId, query)
          return { data: rows.map(toViewer), total, limit: query.limit, offset: query.offset }
        }),
      block: (org, pageId, viewerId, userId) =>
        Effect.gen(function* () {
          yield* pages.found(org, pageId)
          yield* repo.transaction(
            Effect.gen(function* () {
              const email = yield* repo.block(pageId, viewerId, userId)
              if (email === undefined) return yield* Effect.fail(viewerNotFound)
              yield* repo.endViewerSessions(viewerId)
              // Blocking also ends what the viewer subscribed to (the public-page transitions).
              yield* ends.endViewer(pageId, viewerId, email)
              yield* repo.retireCodes(pageId, email)
            })
          )
          return yield* viewer(pageId, viewerId)
        }),
      unblock: (org, pageId, viewerId) =>
        Effect.gen(function* () {
          yield* pages.found(org, pageId)
          if (!(yield* repo.unblock(pageId, viewerId))) return yield* Effect.fail(viewerNotFound)
          return yield* viewer(pageId, viewerId)
        }),
      history: (org, pageId, viewerId) =>
        Effect.gen(function* () {
          yield* pages.found(org, pageId)
          yield* viewer(pageId, viewerId)
          const days = yield* repo.visitDays(viewerId)
          const signIns = yield* repo.signIns(viewerId)
          return {
            visit_days: days,
            sign_ins: signIns.map((s) => ({ at: s.at, method: "email_code" as const }))
          }
        }),
      passwordRecord: (org, pageId) => Effect.flatMap(pages.found(org, pageId), passwordRecordOf),
      passwordSignOut: (org, pageId) =>
        Effect.gen(function* () {
          const page = yield* pages.found(org, pageId)
          yield* repo.endPasswordSessions(pageId)
          return yield* passwordRecordOf(page)
        })
    }
  })
).pipe(Layer.provide(ViewersRepo.Default))
