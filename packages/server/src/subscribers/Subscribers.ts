/**
 * Email subscribers of a status page: subscribe (double opt-in), confirm, unsubscribe.
 *
 * A request answers the same whatever the address (no enumeration): the row is written or refreshed in one
 * statement that also decides, atomically, whether a confirmation mail is due (the address is not an active
 * subscriber and none was mailed in the last 10 minutes), and the mail is sent off the request's path, so neither
 * the answer nor its timing tells anything. Tokens are 256 random bits; the confirmation token is stored as a
 * hash only, the unsubscribe token hashed and sealed (every update mail carries it).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import { randomSecret, sha256 } from "../auth/Secrets.js"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../Ids.js"
import { PageGate } from "../statuspages/PageGate.js"
import { SubscriberMail } from "./SubscriberMail.js"

export const pageNotFound = ApiError.make("NOT_FOUND", "No such status page")

export class Subscribers extends Effect.Service<Subscribers>()("Signalman/Subscribers", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sealer = yield* Sealer
    const mail = yield* SubscriberMail
    const gate = yield* PageGate

    const subscribe = (slug: string, rawEmail: string, request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const [page] = yield* sql<{ id: string; name: string; published: boolean; protected: boolean }>`
          SELECT p.id::text AS id, p.name, p.published,
            COALESCE((p.access->>'protected')::boolean, false) AS protected
          FROM status_pages p JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL
          WHERE lower(p.slug) = lower(${slug})
        `.pipe(Effect.orDie)
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
        // One statement: a new address gets a row and a mail; a known one a fresh confirmation token and a mail only
        // when it is not an active subscriber and its last mail is older than the interval. Concurrent requests for
        // one address serialise on the row, so at most one of them mails.
        const due = yield* sql<{ id: string }>`
          INSERT INTO status_page_subscribers (id, page_id, email, confirm_token_hash, confirm_sent_at,
            unsubscribe_token_hash, unsubscribe_token_sealed, admitted_by, viewer_id)
          VALUES (${uuidv7()}, ${page.id}, ${email}, ${sha256(confirmToken)}, now(), ${sha256(unsubscribeToken)},
            ${sealer.seal(unsubscribeToken)}, ${admittedBy}, ${viewerId})
          ON CONFLICT (page_id, email) DO UPDATE SET
            confirm_token_hash = EXCLUDED.confirm_token_hash, confirm_sent_at = EXCLUDED.confirm_sent_at,
            admitted_by = EXCLUDED.admitted_by, viewer_id = EXCLUDED.viewer_id
          WHERE (status_page_subscribers.confirmed_at IS NULL OR status_page_subscribers.unsubscribed_at IS NOT NULL)
            AND status_page_subscribers.confirm_sent_at
              <= now() - make_interval(secs => ${PageSubscription.CONFIRMATION_INTERVAL_SECS})
          RETURNING id
        `.pipe(Effect.orDie)
        if (due.length > 0) {
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
    const confirm = (token: string) =>
      sql<{ name: string }>`
        UPDATE status_page_subscribers s SET confirmed_at = now(), unsubscribed_at = NULL, confirm_token_hash = NULL
        FROM status_pages p
        WHERE s.confirm_token_hash = ${sha256(token)} AND p.id = s.page_id
          AND s.confirm_sent_at > now() - make_interval(secs => ${PageSubscription.CONFIRMATION_TTL_SECS})
        RETURNING p.name
      `.pipe(
        Effect.map((rows) => rows[0]?.name),
        Effect.orDie
      )

    /** The page an unsubscribe link belongs to (the GET shows a button and changes nothing). */
    const unsubscribePage = (token: string) =>
      sql<{ name: string }>`
        SELECT p.name FROM status_page_subscribers s JOIN status_pages p ON p.id = s.page_id
        WHERE s.unsubscribe_token_hash = ${sha256(token)}
      `.pipe(
        Effect.map((rows) => rows[0]?.name),
        Effect.orDie
      )

    /** Unsubscribes (idempotent): the page's name, or undefined for an unknown link. */
    const unsubscribe = (token: string) =>
      sql<{ name: string }>`
        UPDATE status_page_subscribers s SET unsubscribed_at = COALESCE(s.unsubscribed_at, now())
        FROM status_pages p
        WHERE s.unsubscribe_token_hash = ${sha256(token)} AND p.id = s.page_id
        RETURNING p.name
      `.pipe(
        Effect.map((rows) => rows[0]?.name),
        Effect.orDie
      )

    return { subscribe, confirm, unsubscribePage, unsubscribe }
  }),
  dependencies: [Sealer.Default, SubscriberMail.Default]
}) {}
