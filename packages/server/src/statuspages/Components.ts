/**
 * A status page's curated monitors: added under the account's `max_public_components` (distinct monitors across the
 * account's pages, so a monitor already on another page costs nothing more), renamed, removed and reordered. Every
 * change publishes the page's change, so its public snapshot is dropped at once.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { Invalidation } from "../infra/Invalidation.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PageChanges from "./PageChanges.js"
import { StatusPagesRepo } from "./Repo.js"
import { StatusPages } from "./StatusPages.js"

const componentNotFound = ApiError.make("NOT_FOUND", "No such component on this page")

export class PageComponents extends Effect.Service<PageComponents>()("Signalman/PageComponents", {
  effect: Effect.gen(function* () {
    const repo = yield* StatusPagesRepo
    const pages = yield* StatusPages
    const quotaEvents = yield* QuotaEvents
    const invalidation = yield* Invalidation
    /** After a change is committed: the public caches of every process drop the page. */
    const changed =
      (id: string) =>
      <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
        Effect.tap(self, () => invalidation.publish(PageChanges.tag(id)))

    const component = (pageId: string, targetId: string) =>
      Effect.flatMap(repo.components(pageId), (all) => {
        const hit = all.find((c) => c.target_id === targetId.toLowerCase())
        return hit === undefined ? Effect.fail(componentNotFound) : Effect.succeed(hit)
      })

    const list = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        yield* pages.found(org, id)
        return { data: yield* repo.components(id) }
      })

    const add = (org: ActiveOrg, userId: string, plan: Plan.Plan, id: string, input: StatusPage.AddComponent) =>
      Effect.gen(function* () {
        const targetId = input.target_id.toLowerCase()
        const outcome = yield* repo.transaction(
          Effect.gen(function* () {
            yield* pages.found(org, id, true)
            if (!(yield* repo.targetInOrg(org.id, targetId))) {
              return yield* Effect.fail(
                ApiError.make("VALIDATION_FAILED", "No such monitor in this org", { field: "target_id" })
              )
            }
            if (yield* repo.onPage(id, targetId)) {
              return yield* Effect.fail(
                ApiError.make("COMPONENT_ALREADY_ON_PAGE", "This monitor is already on the page", {
                  field: "target_id"
                })
              )
            }
            yield* repo.lockAccount(org.accountId)
            // A monitor already published on another page of the account costs nothing more.
            const usage = yield* repo.componentUsage(org.accountId, targetId)
            if (!usage.published && !PlanLimits.fits(plan, "max_public_components", usage.n)) {
              return { _tag: "Full", current: usage.n } as const
            }
            yield* repo.insertComponent({
              page_id: id,
              target_id: targetId,
              public_name: input.public_name ?? null,
              public_description: input.public_description ?? null,
              public_group: input.public_group ?? null
            })
            yield* repo.touch(id)
            return { _tag: "Added" } as const
          })
        )
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_public_components",
            current: outcome.current
          })
        }
        return yield* component(id, targetId)
      }).pipe(changed(id))

    const update = (org: ActiveOrg, id: string, targetId: string, patch: StatusPage.PatchComponent) =>
      Effect.gen(function* () {
        yield* pages.found(org, id)
        const target = targetId.toLowerCase()
        const current = yield* component(id, target)
        const pick = <K extends "public_name" | "public_description" | "public_group">(key: K) =>
          patch[key] === undefined ? current[key] : patch[key]
        yield* repo.updateComponent({
          page_id: id,
          target_id: target,
          public_name: pick("public_name"),
          public_description: pick("public_description"),
          public_group: pick("public_group")
        })
        return yield* component(id, target)
      }).pipe(changed(id))

    const remove = (org: ActiveOrg, id: string, targetId: string) =>
      Effect.gen(function* () {
        yield* pages.found(org, id)
        if (!(yield* repo.removeComponent(id, targetId.toLowerCase()))) return yield* Effect.fail(componentNotFound)
      }).pipe(changed(id))

    const reorder = (org: ActiveOrg, id: string, input: StatusPage.ReorderComponents) =>
      Effect.gen(function* () {
        yield* repo.transaction(
          Effect.gen(function* () {
            yield* pages.found(org, id, true)
            const current = yield* repo.components(id)
            const order = StatusPage.checkReorder(
              current.map((c) => c.target_id),
              input.target_ids
            )
            if (Either.isLeft(order)) return yield* Effect.fail(order.left)
            if (order.right.length === 0) return
            yield* repo.reorder(id, order.right)
          })
        )
        return { data: yield* repo.components(id) }
      }).pipe(changed(id))

    return { list, add, update, remove, reorder }
  }),
  dependencies: [StatusPagesRepo.Default, QuotaEvents.Default, Invalidation.Default]
}) {}
