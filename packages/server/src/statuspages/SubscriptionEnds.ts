/**
 * What private access does to a page's subscriptions. Blocking a viewer ends the subscriptions that viewer made;
 * changing the page password (or closing the password way in) ends those made on devices signed in with it, and
 * the password record shows beforehand how many that would be. The subscriptions live with the subscribers; this
 * port is how the private-access side reaches them, inside its own transaction.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

export class SubscriptionEnds extends Context.Tag("statuspages/SubscriptionEnds")<
  SubscriptionEnds,
  {
    /** Live (confirmed, not unsubscribed) subscriptions made with the page password. */
    readonly passwordCount: (pageId: string) => Effect.Effect<number>
    /** Ends every live subscription made with the page password. */
    readonly endPassword: (pageId: string) => Effect.Effect<void>
    /** Ends the subscriptions a viewer made (by their viewer id, or their address on this page). */
    readonly endViewer: (pageId: string, viewerId: string, email: string) => Effect.Effect<void>
  }
>() {}
