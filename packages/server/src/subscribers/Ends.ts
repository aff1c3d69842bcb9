/**
 * The subscribers' side of `SubscriptionEnds`: subscriptions of a private page end with the way in that admitted
 * them. Ending one is an unsubscribe (the person may subscribe again once admitted again).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SubscriptionEnds } from "../statuspages/SubscriptionEnds.js"

export const layer = Layer.effect(
  SubscriptionEnds,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      passwordCount: (pageId) =>
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM status_page_subscribers
          WHERE page_id = ${pageId} AND admitted_by = 'password'
            AND confirmed_at IS NOT NULL AND unsubscribed_at IS NULL
        `.pipe(
          Effect.map(([row]) => row?.n ?? 0),
          Effect.orDie
        ),
      endPassword: (pageId) =>
        sql`
          UPDATE status_page_subscribers SET unsubscribed_at = now()
          WHERE page_id = ${pageId} AND admitted_by = 'password' AND unsubscribed_at IS NULL
        `.pipe(Effect.asVoid, Effect.orDie),
      endViewer: (pageId, viewerId, email) =>
        sql`
          UPDATE status_page_subscribers SET unsubscribed_at = now()
          WHERE page_id = ${pageId} AND unsubscribed_at IS NULL
            AND (viewer_id = ${viewerId} OR email = ${email.toLowerCase()})
        `.pipe(Effect.asVoid, Effect.orDie)
    }
  })
)
