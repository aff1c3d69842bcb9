/**
 * The subscribers' side of `SubscriptionEnds`: subscriptions of a private page end with the way in that admitted
 * them. Ending one is an unsubscribe (the person may subscribe again once admitted again).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SubscriptionEnds } from "../statuspages/SubscriptionEnds.js"
import { SubscribersRepo } from "./Repo.js"

export const layer = Layer.effect(
  SubscriptionEnds,
  Effect.map(SubscribersRepo, (repo) => ({
    passwordCount: repo.passwordCount,
    endPassword: repo.endPassword,
    endViewer: (pageId, viewerId, email) => repo.endViewer(pageId, viewerId, email.toLowerCase())
  }))
).pipe(Layer.provide(SubscribersRepo.Default))
