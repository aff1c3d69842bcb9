/**
 * Holds (docs/billing.md "Holds and account deletion"): what the account's plan holds and the owner's pick of what
 * to keep. The rule is core `Holds.held`, on the plan as the database has it now (not the cached one: a downgrade
 * shows at once) and the stored pick. The engine's upkeep applies the same rule to every account on each refresh
 * (`engine/Upkeep.ts`), so whatever changes a plan is followed; a pick is applied here at once, in the transaction
 * that stores it.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { PickHolds } from "@signalman/core/api/Holds"
import * as HoldRule from "@signalman/core/Holds"
import type * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import type { Payer } from "../billing/Payer.js"
import { Invalidation } from "../infra/Invalidation.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PageChanges from "../statuspages/PageChanges.js"
import { type HoldableRow, HoldsRepo } from "./Repo.js"

const holdable = (row: HoldableRow): HoldRule.Holdable => ({ id: row.id, createdAt: row.created_at })

/** The ids held among `rows` under `limit`, with `keep` as the pick. */
const heldOf = (rows: ReadonlyArray<HoldableRow>, keep: ReadonlySet<string>, limit: number) =>
  HoldRule.held(rows.map(holdable), keep, limit)

const keptOf = (rows: ReadonlyArray<HoldableRow>) => new Set(rows.filter((r) => r.kept).map((r) => r.id))

/** The `GET /api/v1/account/holds` document (oldest first). */
const document = (
  plan: Plan.Plan,
  monitors: ReadonlyArray<HoldableRow>,
  pages: ReadonlyArray<HoldableRow>,
  keep: { readonly monitors: ReadonlySet<string>; readonly pages: ReadonlySet<string> }
) => {
  const heldMonitors = heldOf(monitors, keep.monitors, plan.quotas.max_targets)
  const heldPages = heldOf(pages, keep.pages, plan.quotas.max_status_pages)
  const body = {
    monitors: monitors.map((m) => ({ id: m.id, name: m.name, held: heldMonitors.has(m.id) })),
    status_pages: pages.map((p) => ({ id: p.id, name: p.name, held: heldPages.has(p.id) })),
    limits: { max_targets: plan.quotas.max_targets, max_status_pages: plan.quotas.max_status_pages }
  }
  return { body, heldMonitors, heldPages }
}

const notTheAccounts = (field: string, what: string) =>
  ApiError.make("NOT_FOUND", `No such ${what} in the account`, { field })

export class Holds extends Effect.Service<Holds>()("Signalman/Holds", {
  effect: Effect.gen(function* () {
    const repo = yield* HoldsRepo
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const invalidation = yield* Invalidation

    /** What the plan holds of the account now. */
    const get = (accountId: Payer["accountId"]) =>
      Effect.gen(function* () {
        const plan = yield* plans.fresh(accountId)
        const monitors = yield* repo.monitors(accountId)
        const pages = yield* repo.pages(accountId)
        return document(plan, monitors, pages, { monitors: keptOf(monitors), pages: keptOf(pages) }).body
      })

    /**
     * The owner's pick, all or nothing: each list within its limit (else 422 QUOTA_EXCEEDED, logged like every
     * quota refusal), every id the account's (else 404 NOT_FOUND naming the first, `keep_monitors[2]`), then the
     * pick stored and the holds it decides written under the account's lock. A name given twice counts once.
     */
    const pick = (payer: Payer, body: PickHolds) =>
      Effect.gen(function* () {
        const plan = yield* plans.fresh(payer.accountId)
        const keepMonitors = [...new Set(body.keep_monitors)]
        const keepPages = [...new Set(body.keep_status_pages)]
        const over = (quota: Plan.QuotaName, count: number) =>
          quotaEvents.refuse({ plan, quota, accountId: payer.accountId, userId: payer.userId, current: count })
        if (keepMonitors.length > plan.quotas.max_targets) return yield* over("max_targets", keepMonitors.length)
        if (keepPages.length > plan.quotas.max_status_pages) {
          return yield* over("max_status_pages", keepPages.length)
        }

        const outcome = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockAccount(payer.accountId)
            const monitors = yield* repo.monitors(payer.accountId)
            const pages = yield* repo.pages(payer.accountId)
            const foreignMonitor = HoldRule.firstForeign(body.keep_monitors, monitors.map(holdable))
            if (foreignMonitor !== undefined) {
              return yield* Effect.fail(notTheAccounts(`keep_monitors[${foreignMonitor}]`, "monitor"))
            }
            const foreignPage = HoldRule.firstForeign(body.keep_status_pages, pages.map(holdable))
            if (foreignPage !== undefined) {
              return yield* Effect.fail(notTheAccounts(`keep_status_pages[${foreignPage}]`, "status page"))
            }
            const keep = { monitors: new Set(keepMonitors), pages: new Set(keepPages) }
            const answer = document(plan, monitors, pages, keep)
            yield* repo.keep(payer.accountId, keepMonitors, keepPages)
            const changedPages = yield* repo.hold(payer.accountId, [...answer.heldMonitors], [...answer.heldPages])
            return { answer, changedPages }
          })
        )
        // After the commit: a page held or released must not be served from any process's cache.
        yield* Effect.forEach(outcome.changedPages, (page) => invalidation.publish(PageChanges.tag(page.id)), {
          discard: true
        })
        return outcome.answer.body
      })

    return { get, pick }
  }),
  dependencies: [HoldsRepo.Default, Plans.Default, QuotaEvents.Default, Invalidation.Default]
}) {}
