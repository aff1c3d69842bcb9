/**
 * The first stage of the outbox: notices, one per incident event to announce. The incident writer enqueues them
 * inside its own transaction (the insert joins whatever transaction the caller runs), so a notice exists exactly
 * when its transition does; the engine's key makes a second fold of the same event insert nothing. A worker then
 * fans each notice out into one delivery per channel bound to the monitor and enabled at that moment.
 */
import type * as Notification from "@signalman/core/Notification"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { type Bound, NotifyRepo, type PagedUser } from "./Repo.js"

/** What the incident writer hands over for one `Notify` effect. */
export interface NewNotice {
  readonly org_id: string
  readonly target_id: string
  readonly incident_id: string
  readonly kind: Notification.NoticeKind
  readonly payload: Notification.NoticePayload
  /** The effect's key (`incident/{n}/notify/{kind}`); unique per monitor. */
  readonly dedupe_key: string
}

export class Notices extends Effect.Service<Notices>()("Signalman/Notices", {
  effect: Effect.gen(function* () {
    const repo = yield* NotifyRepo

    /** Records a notice once; true when this call inserted it, false when its key was there already. */
    const enqueue = (notice: NewNotice): Effect.Effect<boolean> => repo.enqueue({ id: uuidv7(), ...notice })

    /**
     * A page notice (docs/status-pages.md, "Subscribers"): one delivery per subscriber of the page confirmed and
     * still subscribed at this moment.
     */
    const toSubscribers = (noticeId: string, pageId: string) =>
      Effect.gen(function* () {
        const subscribers = yield* repo.confirmedSubscribers(pageId)
        if (subscribers.length === 0) return
        yield* repo.toSubscribers(
          noticeId,
          subscribers.map(() => uuidv7()),
          subscribers
        )
      })

    /**
     * Turns up to `limit` new notices into deliveries, in one transaction; notices another worker holds are skipped.
     * Channels are read now, not when the incident opened: a channel deleted or disabled in between gets nothing,
     * and a binding left pointing at a deleted channel matches no row. The channel's name and kind are copied so
     * the delivery log keeps them. Answers how many notices were fanned out.
     */
    const fanOut = (limit: number): Effect.Effect<number> =>
      repo.transaction(
        Effect.gen(function* () {
          const pending = yield* repo.pending(limit)
          for (const notice of pending) {
            if (notice.page_id !== null) {
              yield* toSubscribers(notice.id, notice.page_id)
              continue
            }
            for (const channel of yield* repo.boundChannels(notice.target_id)) {
              yield* repo.toChannel(uuidv7(), notice.id, channel)
            }
          }
          if (pending.length > 0) yield* repo.fannedOut(pending.map((n) => n.id))
          return pending.length
        })
      )

    /**
     * An escalation page: its notice (deduplicated like any, by the monitor and `dedupe_key`) and at once one
     * delivery per channel and per person it names, in the caller's transaction. Answers the notice's id when
     * this call wrote it; a page whose key was there already writes nothing (undefined).
     */
    const page = (
      notice: NewNotice,
      to: {
        readonly channels: ReadonlyArray<typeof Bound.Type>
        readonly users: ReadonlyArray<typeof PagedUser.Type>
      }
    ): Effect.Effect<string | undefined> =>
      Effect.gen(function* () {
        const noticeId = yield* repo.enqueuePage({ id: uuidv7(), ...notice })
        if (noticeId === undefined) return undefined
        for (const channel of to.channels) yield* repo.toChannel(uuidv7(), noticeId, channel)
        for (const user of to.users) yield* repo.toUser(uuidv7(), noticeId, user)
        return noticeId
      })

    return { enqueue, fanOut, page }
  }),
  dependencies: [NotifyRepo.Default]
}) {}
