/**
 * Email subscribers of a status page: subscribe (double opt-in), confirm, unsubscribe.
 *
 * A request answers the same whatever the address (no enumeration): the row is written or refreshed in one
 * statement that also decides, atomically, whether a confirmation mail is due (the address is not an active
 * subscriber and none was mailed in the last 10 minutes), and the mail is sent off the request's path, so neither
 * the answer nor its timing tells anything. Tokens are 256 random bits; the confirmation token is stored as a
 * hash only, the unsubscribe token hashed and sealed (every update mail carries it).
 *
 * The page's owner reads its subscribers (the dashboard's subscribers page): addresses, how each got in and where
 * each stands.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../infra/Ids.js"
import { randomSecret, sha256 } from "../infra/Secrets.js"
import { PageGate } from "../viewers/PageGate.js"
import { type SubscriberRow, SubscribersRepo } from "./Repo.js"
import { SubscriberMail } from "./SubscriberMail.js"

export const pageNotFound = ApiError.make("NOT_FOUND", "No such status page")

/** Where a subscription stands: following (confirmed), asked and not yet confirmed, or ended. */
export type SubscriberState = "confirmed" | "pending" | "unsubscribed"

/** A subscription as the page's owner reads it. */
export interface PageSubscriber {
  readonly id: string
  readonly email: string
  readonly state: SubscriberState
  /** How the subscriber got onto a private page ("public" on a public one). */
  readonly admittedBy: "public" | "password" | "viewer"
  readonly subscribedAt: Date
  readonly confirmedAt: Date | null
  readonly unsubscribedAt: Date | null
}

/** A page of a status page's subscribers, with how many stand where across all of them. */
export interface SubscriberPage {
  readonly data: ReadonlyArray<PageSubscriber>
  readonly counts: { readonly [K in SubscriberState]: number }
  readonly limit: number
  readonly offset: number
}

/** Ended wins over confirmed: an unsubscribed address asking again stays ended until it confirms anew. */
export const stateOf = (row: {
  readonly confirmed_at: Date | null
  readonly unsubscribed_at: Date | null
}): SubscriberState =>
  row.unsubscribed_at !== null ? "unsubscribed" : row.confirmed_at !== null ? "confirmed" : "pending"

const toSubscriber = (row: typeof SubscriberRow.Type): PageSubscriber => ({
  id: row.id,
  email: row.email,
  state: stateOf(row),
  admittedBy: row.admitted_by,
  subscribedAt: row.created_at,
  confirmedAt: row.confirmed_at,
  unsubscribedAt: row.unsubscribed_at
})

export class Subscribers extends Effect.Service<Subscribers>()("Signalman/Subscribers", {
  effect: Effect.gen(function* () {
    const repo = yield* SubscribersRepo
    const sealer = yield* Sealer
    const mail = yield* SubscriberMail
    const gate = yield* PageGate

    const subscribe = (slug: string, rawEmail: string, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const page = yield* repo.pageBySlug(slug)
        if (page === undefined || !page.published) return yield* Effect.fail(pageNotFound)
        const admission = yield* gate.admit({ id: page.id, isProtected: page.protected }, request, { feed: false })
        // On a private page the subscription lasts as long as the way in that admitted it (SubscriptionEnds).
        const viewerId = admission._tag === "Viewer" ? admission.viewerId : null
        const admittedBy = admission._tag === "Public" ? "public" : viewerId === null ? "password" : "viewer"
        const email = PageSubscription.normalizeEmail(rawEmail)
        if (!PageSubscription.isPlausibleEmail(email)) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "email: not an email address", { field: "email" })
          )
        }
        const confirmToken = randomSecret(32)
        const unsubscribeToken = randomSecret(32)
        // A new address gets a row and a mail; a known one a fresh confirmation token and a mail only when it is not
        // an active subscriber and its last mail is older than the interval (one statement: at most one racer mails).
        const due = yield* repo.upsert({
          id: uuidv7(),
          page_id: page.id,
          email,
          confirm_token_hash: sha256(confirmToken),
          unsubscribe_token_hash: sha256(unsubscribeToken),
          unsubscribe_token_sealed: sealer.seal(unsubscribeToken),
          admitted_by: admittedBy,
          viewer_id: viewerId
        })
        if (due) {
          yield* Effect.forkDaemon(
            mail
              .confirmation(email, page.name, confirmToken)
              .pipe(
                Effect.catchAll((error) =>
                  Effect.logWarning("Subscription confirmation mail failed", error.cause).pipe(
                    Effect.annotateLogs({ page_id: page.id })
                  )
                )
              )
          )
        }
      })

    /** Follows a confirmation link: the page's name, or undefined for an unknown, used or expired link. */
    const confirm = (token: string) => repo.confirm(sha256(token))

    /** The page an unsubscribe link belongs to (the GET shows a button and changes nothing). */
    const unsubscribePage = (token: string) => repo.unsubscribePage(sha256(token))

    /** Unsubscribes (idempotent): the page's name, or undefined for an unknown link. */
    const unsubscribe = (token: string) => repo.unsubscribe(sha256(token))

    /**
     * The subscribers of one of the org's pages, newest first. A page of another org lists nothing (its org is in
     * the query); callers answer 404 for it by reading the page first, as every page read does.
     */
    const ofPage = (org: ActiveOrg, pageId: string, query: { readonly limit: number; readonly offset: number }) =>
      Effect.gen(function* () {
        const rows = yield* repo.ofPage({ org_id: org.id, page_id: pageId, limit: query.limit, offset: query.offset })
        const counts = yield* repo.countsOfPage(org.id, pageId)
        const page: SubscriberPage = { data: rows.map(toSubscriber), counts, limit: query.limit, offset: query.offset }
        return page
      })

    return { subscribe, confirm, unsubscribePage, unsubscribe, ofPage }
  }),
  dependencies: [SubscribersRepo.Default, Sealer.Default, SubscriberMail.Default]
}) {}
