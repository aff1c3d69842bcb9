/**
 * Where the incident work meets the features beside it: the notification outbox, maintenance windows and the
 * delivery log. The writer and the endpoints see these small ports, not the services behind them, so each side
 * can be tested and changed alone; `layer` binds them to the real services.
 */
import type { IncidentEscalation } from "@signalman/core/IncidentEscalation"
import type * as Notification from "@signalman/core/Notification"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Escalations, type Opened } from "../escalations/Escalations.js"
import type { StopReason } from "../escalations/Repo.js"
import { Maintenance } from "../maintenance/Maintenance.js"
import { Deliveries } from "../notify/Deliveries.js"
import { Notices } from "../notify/Notices.js"
import { PageEvents } from "../subscribers/PageEvents.js"

/** A notification the incident engine asks for (`IncidentMachine.Notify`), addressed and ready for the outbox. */
export interface Notice {
  readonly orgId: string
  readonly targetId: string
  readonly incidentId: string
  readonly kind: Notification.NoticeKind
  /** The engine's key: unique per monitor, so a second enqueue of it is a no-op (exactly once). */
  readonly dedupeKey: string
  readonly payload: Notification.NoticePayload
}

/**
 * Enqueues a notice inside the transaction that moved the incident (the outbox's insert joins the caller's
 * transaction), so the notice exists exactly when the transition does.
 */
export class IncidentNotices extends Context.Tag("Signalman/IncidentNotices")<
  IncidentNotices,
  { readonly enqueue: (notice: Notice) => Effect.Effect<void> }
>() {}

/**
 * Whether a running maintenance window with alert suppression covers the monitor at `at`: then no incident opens
 * and nothing pages (`IncidentMachine`).
 */
export class AlertSuppression extends Context.Tag("Signalman/AlertSuppression")<
  AlertSuppression,
  {
    readonly suppressed: (targetId: string, at: Date) => Effect.Effect<boolean>
    /**
     * The same answer for any of `targetIds` at any instant in [from, to], read once: a batch of results asks
     * one question instead of one per result.
     */
    readonly within: (
      targetIds: ReadonlyArray<string>,
      from: Date,
      to: Date
    ) => Effect.Effect<(targetId: string, at: Date) => boolean>
  }
>() {}

/** The notification deliveries of an incident, oldest first. */
export class DeliveryLog extends Context.Tag("Signalman/DeliveryLog")<
  DeliveryLog,
  { readonly forIncident: (incidentId: string) => Effect.Effect<ReadonlyArray<Notification.Delivery>> }
>() {}

/**
 * The incident's escalation walk (docs/on-call.md): started in the transaction that opens an incident (when its
 * monitor binds a policy), stopped in the one that acknowledges or closes it, and read for the incident's answer.
 */
export class IncidentEscalations extends Context.Tag("Signalman/IncidentEscalations")<
  IncidentEscalations,
  {
    readonly start: (opened: Opened) => Effect.Effect<void>
    readonly stop: (incidentId: string, reason: StopReason, at: DateTime.Utc) => Effect.Effect<void>
    readonly forIncident: (incidentId: string) => Effect.Effect<IncidentEscalation | null>
  }
>() {}

/** The escalation walks of the on-call feature. */
export const escalationWalks = Layer.effect(
  IncidentEscalations,
  Effect.map(Escalations, (escalations) => ({
    start: escalations.start,
    stop: escalations.stop,
    forIncident: escalations.forIncident
  }))
).pipe(Layer.provide(Escalations.Default))

/**
 * Notices into the notification outbox; an incident opening or closing is also announced to the subscribers of the
 * status pages showing its monitor (in the same transaction).
 */
export const outboxNotices = Layer.effect(
  IncidentNotices,
  Effect.gen(function* () {
    const outbox = yield* Notices
    const pageEvents = yield* PageEvents
    return {
      enqueue: (notice: Notice) =>
        Effect.gen(function* () {
          yield* outbox.enqueue({
            org_id: notice.orgId,
            target_id: notice.targetId,
            incident_id: notice.incidentId,
            kind: notice.kind,
            payload: notice.payload,
            dedupe_key: notice.dedupeKey
          })
          if (notice.kind === "opened") yield* pageEvents.incident(notice.incidentId, "opened")
          if (notice.kind === "recovered" || notice.kind === "resolved") {
            yield* pageEvents.incident(notice.incidentId, "resolved")
          }
        })
    }
  })
).pipe(Layer.provide(PageEvents.Default))

/** Suppression by maintenance windows. */
export const maintenanceSuppression = Layer.effect(
  AlertSuppression,
  Effect.map(Maintenance, (maintenance) => ({
    suppressed: (targetId: string, at: Date) =>
      maintenance.suppressing(targetId, DateTime.unsafeFromDate(at)).pipe(Effect.orDie),
    within: (targetIds: ReadonlyArray<string>, from: Date, to: Date) =>
      maintenance.suppressionWithin(targetIds, DateTime.unsafeFromDate(from), DateTime.unsafeFromDate(to)).pipe(
        Effect.orDie,
        Effect.map((judge) => (targetId: string, at: Date) => judge(targetId, DateTime.unsafeFromDate(at)))
      )
  }))
)

/** The notifier's delivery log. */
export const notifierDeliveryLog = Layer.effect(
  DeliveryLog,
  Effect.map(Deliveries, (deliveries) => ({ forIncident: deliveries.forIncident }))
)

/** The ports bound to the outbox, maintenance windows and the notifier's log. */
export const layer = Layer.mergeAll(outboxNotices, maintenanceSuppression, notifierDeliveryLog).pipe(
  Layer.provide([Notices.Default, Maintenance.Default, Deliveries.Default])
)
