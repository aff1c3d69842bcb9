/**
 * How the notifier delivers a page notice to a status-page subscriber. The outbox, its claims, backoff and
 * dead-lettering are the notifier's; what the mail says and where its unsubscribe link points are the subscribers'
 * (`subscribers/SubscriberMail.ts`, `delivery`), bound to this port where the process is composed, so the notifier
 * never reaches into the features that use it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Transport from "./Transport.js"

/** What a subscriber delivery knows of its subscriber. */
export interface Recipient {
  readonly email: string
  readonly unsubscribeSealed: string
  /** Unsubscribed (or never confirmed) since the notice fanned out: nothing is sent. */
  readonly inactive: boolean
}

export class SubscriberDelivery extends Context.Tag("Signalman/SubscriberDelivery")<
  SubscriberDelivery,
  {
    /**
     * Sends one page notice to one subscriber. `final` marks an outcome not worth retrying (the person left, the
     * payload or the seal cannot be read).
     */
    readonly deliver: (
      recipient: Recipient,
      payload: unknown
    ) => Effect.Effect<{ readonly outcome: Transport.Outcome; readonly final: boolean }>
  }
>() {}
