/**
 * An incident's escalation walk, from the incident's side (docs/on-call.md, "Escalation"): started in the
 * transaction that opens the incident when its monitor binds a policy, stopped in the transaction that acknowledges
 * or closes it, and read for the incident's API answer. The pages themselves are sent by `EscalationWalker`.
 *
 * The policy is copied into the walk when it starts, so the pages and their due times are those of the policy as it
 * stood when the incident opened; an edit or a deletion later changes the next incidents' walks, not this one.
 */
import { type EscalationPage, IncidentEscalation, type PagePosition } from "@signalman/core/IncidentEscalation"
import * as EscalationWalk from "@signalman/core/oncall/EscalationWalk"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Plans } from "../limits/Plans.js"
import { EscalationRepo, type StopReason } from "./Repo.js"

/** The incident a walk starts for. */
export interface Opened {
  readonly incidentId: string
  readonly orgId: string
  readonly targetId: string
  /** When the incident opened: the first step's delay counts from here. */
  readonly openedAt: DateTime.Utc
}

const stopWords: Record<StopReason, string> = {
  acknowledged: "the incident was acknowledged",
  resolved: "the incident was resolved",
  recovered: "the monitor recovered",
  exhausted: "every step was paged"
}

/** The walk's position of core's page `n` (counted from 0), counted from 1 as the API shows it. */
export const positionOf = (page: { readonly n: number; readonly round: number; readonly step: number }) =>
  ({ page: page.n + 1, round: page.round + 1, step: page.step + 1 }) satisfies typeof PagePosition.Type

export class Escalations extends Effect.Service<Escalations>()("Signalman/Escalations", {
  effect: Effect.gen(function* () {
    const repo = yield* EscalationRepo
    const plans = yield* Plans

    /** Starts the incident's walk when its monitor binds a policy now; nothing otherwise. */
    const start = (opened: Opened): Effect.Effect<void> =>
      Effect.gen(function* () {
        const bound = yield* repo.boundPolicy(opened.targetId)
        if (bound === undefined) return
        const { account_id, ...policy } = bound
        // Binding a policy needs on-call in the plan; an account that has since lost it (a downgrade) keeps its
        // policies bound but its incidents do not walk them, and the timeline says why.
        if (!(yield* plans.forAccount(account_id)).flags.on_call_enabled) {
          yield* repo.note(
            uuidv7(),
            opened.incidentId,
            "Escalation not started: on-call is not in the account's plan",
            opened.openedAt
          )
          return
        }
        const first = EscalationWalk.pageAt(policy, DateTime.toDate(opened.openedAt), 0)
        if (first === null) return
        yield* repo.start({
          incident_id: opened.incidentId,
          org_id: opened.orgId,
          target_id: opened.targetId,
          policy,
          opened_at: opened.openedAt,
          next_page: 0,
          next_due_at: DateTime.unsafeFromDate(first.due_at)
        })
      })

    /**
     * Stops the walk, if it still goes, and says so on the timeline. Runs in the transaction that moves the
     * incident: the walker claims walks with `SKIP LOCKED`, so a page being sent right now finishes (it was due)
     * and none follows.
     */
    const stop = (incidentId: string, reason: StopReason, at: DateTime.Utc): Effect.Effect<void> =>
      Effect.gen(function* () {
        if (!(yield* repo.stop(incidentId, reason, at))) return
        yield* repo.note(uuidv7(), incidentId, `Escalation stopped: ${stopWords[reason]}`, at)
      })

    /** The incident's walk as the API shows it; null when it has none. */
    const forIncident = (incidentId: string): Effect.Effect<IncidentEscalation | null> =>
      Effect.gen(function* () {
        const walk = yield* repo.walkOf(incidentId)
        if (walk === undefined) return null
        const pages: ReadonlyArray<EscalationPage> = (yield* repo.pagesOf(incidentId)).map((page) => ({
          page: page.n,
          round: page.round,
          step: page.step,
          due_at: page.due_at,
          paged_at: page.paged_at,
          recipients: page.recipients
        }))
        const last = pages[pages.length - 1]
        const next =
          walk.next_due_at === null
            ? null
            : EscalationWalk.pageAt(walk, DateTime.toDate(walk.opened_at), walk.next_page)
        return new IncidentEscalation({
          policy_id: walk.policy_id,
          policy_name: walk.policy_name,
          status: walk.stop_reason ?? "active",
          stopped_at: walk.stopped_at,
          current: last === undefined ? null : { page: last.page, round: last.round, step: last.step },
          next: next === null || walk.next_due_at === null ? null : { ...positionOf(next), due_at: walk.next_due_at },
          pages
        })
      })

    return { start, stop, forIncident }
  }),
  dependencies: [EscalationRepo.Default, Plans.Default]
}) {}
