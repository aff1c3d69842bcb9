/**
 * Maintenance windows: scheduling one under the account's `max_maintenance_windows` quota (counted under the
 * account's lock, so concurrent creates settle exactly at the limit), reading and listing them by derived status,
 * editing, cancelling and posting updates through the pure transitions of `MaintenanceWindow`, and the questions
 * other parts of the service ask: whether a monitor's alerts are suppressed now (the incident writer) and which
 * windows cover some monitors (status pages).
 *
 * Every change of one window runs in a transaction holding the window's row lock, so a PATCH racing a DELETE, or two
 * updates racing for the 50th place, are judged one after the other against what the first one wrote. Once it
 * commits, the status pages showing the window's monitors (before and after the change) drop their snapshots
 * (`PageChanges`), so a schedule, an edit, a cancel or an update is public at once.
 *
 * A schedule or an edit may stamp `managed_by` (`ManagedClaim`). A window holds its key while it is upcoming or
 * running: a cancelled one keeps its `managed_by` as history but holds nothing, and an ended one gives the key up
 * to the first write that claims it.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import {
  type CreateMaintenanceWindow,
  MaintenanceUpdate,
  MaintenanceWindowResource,
  type PatchMaintenanceWindow,
  type PostMaintenanceUpdate
} from "@signalman/core/api/Maintenance"
import * as MaintenanceWindow from "@signalman/core/MaintenanceWindow"
import type * as ManagedBy from "@signalman/core/ManagedBy"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import type { WriteSource } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { claiming } from "../database/ManagedClaim.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import type { UniqueViolation } from "../database/UniqueViolation.js"
import { uuidv7 } from "../infra/Ids.js"
import { QuotaEvents } from "../limits/Quota.js"
import { PageChanges } from "../statuspages/PageChanges.js"
import { PageEvents } from "../subscribers/PageEvents.js"
import { MaintenanceRepo, type UpdateRow, type WindowRow } from "./Repo.js"

const utc = (date: Date) => DateTime.unsafeFromDate(date)

const KIND = "maintenance window"

// Windows have no unique index but managed_by's, which `claiming` answers: any other violation is a defect.
const onlyManaged = (violation: UniqueViolation) => Effect.die(violation)

/** The lifecycle fields of a stored window, as the pure transitions take them. */
const stateOf = (row: WindowRow): MaintenanceWindow.Window => ({
  title: row.title,
  description: row.description,
  starts_at: utc(row.starts_at),
  ends_at: utc(row.ends_at),
  components: row.components,
  suppress_alerts: row.suppress_alerts,
  deleted_at: row.deleted_at === null ? null : utc(row.deleted_at),
  deleted_by: row.deleted_by,
  update_count: row.update_count
})

const toResource = (row: WindowRow, updates: ReadonlyArray<UpdateRow>, now: DateTime.Utc) =>
  new MaintenanceWindowResource({
    id: row.id,
    title: row.title,
    description: row.description,
    starts_at: utc(row.starts_at),
    ends_at: utc(row.ends_at),
    components: row.components,
    suppress_alerts: row.suppress_alerts,
    status: MaintenanceWindow.statusAt(stateOf(row), now),
    deleted_at: row.deleted_at === null ? null : utc(row.deleted_at),
    deleted_by: row.deleted_by,
    write_source: row.write_source,
    managed_by: ManagedColumns.managedBy(row),
    created_by: row.created_by,
    created_at: utc(row.created_at),
    updated_at: utc(row.updated_at),
    updates: updates.map(
      (update) =>
        new MaintenanceUpdate({
          id: update.id,
          message: update.message,
          status: update.status,
          created_by: update.created_by,
          created_at: utc(update.created_at)
        })
    )
  })

export const notFound = ApiError.make("NOT_FOUND", "No such maintenance window")

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly status: MaintenanceWindow.StatusFilter
  readonly managed_by?: string | undefined
}

/** Which windows `forTargets` answers: those overlapping `[from, to)`, cancelled ones only when asked. */
export interface CoverQuery {
  readonly from?: DateTime.Utc | undefined
  readonly to?: DateTime.Utc | undefined
  readonly includeCancelled?: boolean | undefined
}

/** Ids are stored and compared in PostgreSQL's spelling, so `ABC...` and `abc...` are one monitor. */
const lower = (id: string) => id.toLowerCase()

const fromEither = <A>(either: Either.Either<A, ApiError.ApiError>) =>
  Either.isLeft(either) ? Effect.fail(either.left) : Effect.succeed(either.right)

export class Maintenance extends Effect.Service<Maintenance>()("Signalman/Maintenance", {
  effect: Effect.gen(function* () {
    const repo = yield* MaintenanceRepo
    const quotaEvents = yield* QuotaEvents
    const pageEvents = yield* PageEvents
    const pageChanges = yield* PageChanges

    const resources = (rows: ReadonlyArray<WindowRow>, now: DateTime.Utc) =>
      Effect.map(repo.updates(rows.map((row) => row.id)), (updates) => {
        const byWindow = new Map<string, Array<UpdateRow>>()
        for (const update of updates) {
          const list = byWindow.get(update.window_id)
          if (list === undefined) byWindow.set(update.window_id, [update])
          else list.push(update)
        }
        return rows.map((row) => toResource(row, byWindow.get(row.id) ?? [], now))
      })

    /**
     * The window of the org (no matter its status), locked for the transaction when `lock`. The lock is its own
     * statement: a statement that waited for a lock still reads its subqueries (components, update count) from the
     * snapshot it started with, so the read after it must be a fresh one to see what the previous holder wrote.
     */
    const row = (org: ActiveOrg, id: string, lock: boolean) =>
      Effect.gen(function* () {
        if (lock && !(yield* repo.lock(org.id, id))) return undefined
        return yield* repo.window(org.id, id)
      })

    const answer = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const found = yield* row(org, id, false)
        if (found === undefined) return yield* Effect.dieMessage("maintenance window vanished after a write")
        const [resource] = yield* resources([found], yield* DateTime.now)
        if (resource === undefined) return yield* Effect.dieMessage("maintenance window vanished after a write")
        return resource
      })

    const one = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const found = yield* row(org, id, false)
        if (found === undefined) return yield* Effect.fail(notFound)
        const [resource] = yield* resources([found], yield* DateTime.now)
        return resource ?? (yield* Effect.fail(notFound))
      })

    const list = (org: ActiveOrg, query: ListQuery) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const { total, rows } = yield* repo.list({
          orgId: org.id,
          status: query.status,
          now: DateTime.toDateUtc(now),
          managedBy: query.managed_by,
          limit: query.limit,
          offset: query.offset
        })
        return { data: yield* resources(rows, now), total }
      })

    /**
     * Every component must be a monitor of the org (400 VALIDATION_FAILED on `components[i]`). Unknown and foreign
     * ids answer alike, so a window cannot probe other orgs.
     */
    const checkComponents = (org: ActiveOrg, components: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        if (components.length === 0) return
        const ids = components.map(lower)
        const found = yield* repo.knownTargets(org.id, ids)
        const unknown = ids.findIndex((id) => !found.has(id))
        if (unknown !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "No such monitor in this org", { field: `components[${unknown}]` })
          )
        }
      })

    // Windows that count toward `max_maintenance_windows` are those not ended and not cancelled (`countLive`):
    // history is free, so a long record never blocks the next schedule.
    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      input: CreateMaintenanceWindow,
      writeSource: WriteSource,
      managedBy?: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const window = yield* fromEither(
          MaintenanceWindow.schedule({ ...input, components: input.components.map(lower) }, now)
        )
        const id = uuidv7()
        const outcome = yield* repo.transaction(
          Effect.gen(function* () {
            yield* checkComponents(org, window.components)
            yield* repo.lockAccount(org.accountId)
            const current = yield* repo.countLive(org.accountId, DateTime.toDateUtc(now))
            if (!PlanLimits.fits(plan, "max_maintenance_windows", current)) return { _tag: "Full", current } as const
            yield* claiming(
              KIND,
              managedBy,
              (claim) => repo.holder(org.id, claim, DateTime.toDateUtc(now)),
              repo.insert({
                id,
                org_id: org.id,
                account_id: org.accountId,
                title: window.title,
                description: window.description,
                starts_at: DateTime.toDateUtc(window.starts_at),
                ends_at: DateTime.toDateUtc(window.ends_at),
                suppress_alerts: window.suppress_alerts,
                created_by: userId,
                write_source: writeSource,
                ...ManagedColumns.columns(managedBy)
              })
            ).pipe(Effect.catchTag("UniqueViolation", onlyManaged))
            yield* repo.setComponents(id, window.components)
            // A window already running is announced when the sweep sees it start, not as scheduled.
            if (MaintenanceWindow.statusAt(window, now) === "upcoming") yield* pageEvents.maintenance(id, "scheduled")
            return { _tag: "Created" } as const
          })
        )
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_maintenance_windows",
            current: outcome.current
          })
        }
        yield* pageChanges.monitors(org.id, window.components)
        return yield* answer(org, id)
      })

    /** Runs `change` on the org's window under its row lock; 404 when the org has no such window. */
    const locked = <A, E, R>(
      org: ActiveOrg,
      id: string,
      change: (row: WindowRow, now: DateTime.Utc) => Effect.Effect<A, E, R>
    ) =>
      Effect.gen(function* () {
        const before = yield* repo.transaction(
          Effect.gen(function* () {
            const found = yield* row(org, id, true)
            if (found === undefined) return yield* Effect.fail(notFound)
            yield* change(found, yield* DateTime.now)
            return found.components
          })
        )
        const after = yield* answer(org, id)
        // A monitor the edit took off the window must lose it on its pages too.
        yield* pageChanges.monitors(org.id, [...new Set([...before, ...after.components])])
        return after
      })

    const update = (
      org: ActiveOrg,
      id: string,
      patch: PatchMaintenanceWindow,
      writeSource: WriteSource,
      managedBy?: ManagedBy.ManagedBy | undefined
    ) =>
      locked(org, id, (found, now) =>
        Effect.gen(function* () {
          const changes = { ...patch, components: patch.components?.map(lower) }
          const edited = yield* fromEither(MaintenanceWindow.edit(stateOf(found), changes, now))
          if (patch.components !== undefined) yield* checkComponents(org, edited.components)
          yield* claiming(
            KIND,
            managedBy,
            (claim) => repo.holder(org.id, claim, DateTime.toDateUtc(now), found.id),
            repo.update({
              id: found.id,
              title: edited.title,
              description: edited.description,
              starts_at: DateTime.toDateUtc(edited.starts_at),
              ends_at: DateTime.toDateUtc(edited.ends_at),
              suppress_alerts: edited.suppress_alerts,
              write_source: writeSource,
              managed_by: managedBy
            })
          ).pipe(Effect.catchTag("UniqueViolation", onlyManaged))
          if (patch.components !== undefined) yield* repo.setComponents(found.id, edited.components)
        })
      )

    const cancel = (org: ActiveOrg, id: string, userId: string, writeSource: WriteSource) =>
      locked(org, id, (found, now) =>
        Effect.gen(function* () {
          const cancelled = yield* fromEither(MaintenanceWindow.cancel(stateOf(found), userId, now))
          yield* repo.cancel({
            id: found.id,
            deleted_at: cancelled.deleted_at === null ? null : DateTime.toDateUtc(cancelled.deleted_at),
            deleted_by: cancelled.deleted_by,
            write_source: writeSource
          })
        })
      )

    const postUpdate = (org: ActiveOrg, id: string, userId: string, input: PostMaintenanceUpdate) =>
      locked(org, id, (found) =>
        Effect.gen(function* () {
          yield* fromEither(MaintenanceWindow.postUpdate(stateOf(found)))
          const updateId = uuidv7()
          yield* repo.insertUpdate({
            id: updateId,
            window_id: found.id,
            message: input.message,
            status: input.status ?? null,
            created_by: userId
          })
          yield* pageEvents.maintenance(found.id, "update", { id: updateId, message: input.message })
        })
      )

    /**
     * The monitors among `targetIds` whose alerts a running, not cancelled window with `suppress_alerts` keeps
     * quiet at `at`. One query for any number of monitors (the incident writer asks per batch of results).
     */
    const suppressingAmong = (targetIds: ReadonlyArray<string>, at: DateTime.Utc) =>
      targetIds.length === 0
        ? Effect.succeed<ReadonlySet<string>>(new Set())
        : repo.suppressing(targetIds.map(lower), DateTime.toDateUtc(at))

    /**
     * Whether a monitor's alerts are suppressed at an instant, for any of `targetIds` at any instant in
     * [from, to]: one query for a whole batch of results, then judged in memory exactly as `suppressing` would.
     */
    const suppressionWithin = (targetIds: ReadonlyArray<string>, from: DateTime.Utc, to: DateTime.Utc) =>
      Effect.map(
        targetIds.length === 0
          ? Effect.succeed([])
          : repo.suppressionSpans(targetIds.map(lower), DateTime.toDateUtc(from), DateTime.toDateUtc(to)),
        (spans) => {
          const byTarget = new Map<string, Array<{ readonly from: number; readonly to: number }>>()
          for (const span of spans) {
            const list = byTarget.get(span.id) ?? []
            list.push({ from: span.starts_at.getTime(), to: span.ends_at.getTime() })
            byTarget.set(span.id, list)
          }
          return (targetId: string, at: DateTime.Utc): boolean => {
            const ms = DateTime.toEpochMillis(at)
            return (byTarget.get(lower(targetId)) ?? []).some((span) => span.from <= ms && ms < span.to)
          }
        }
      )

    /** Whether one monitor's alerts are suppressed at `at`. */
    const suppressing = (targetId: string, at: DateTime.Utc) =>
      Effect.map(suppressingAmong([targetId], at), (ids) => ids.has(lower(targetId)))

    /**
     * The windows covering any of `targetIds` (for status pages), with their updates, earliest start first; by
     * default those not cancelled, overlapping `[from, to)` when given.
     */
    const forTargets = (targetIds: ReadonlyArray<string>, query: CoverQuery = {}) =>
      Effect.gen(function* () {
        if (targetIds.length === 0) return []
        const now = yield* DateTime.now
        const rows = yield* repo.covering({
          ids: targetIds.map(lower),
          includeCancelled: query.includeCancelled === true,
          from: query.from === undefined ? null : DateTime.toDateUtc(query.from),
          to: query.to === undefined ? null : DateTime.toDateUtc(query.to)
        })
        return yield* resources(rows, now)
      })

    return {
      one,
      list,
      create,
      update,
      cancel,
      postUpdate,
      suppressing,
      suppressingAmong,
      suppressionWithin,
      forTargets
    }
  }),
  dependencies: [MaintenanceRepo.Default, QuotaEvents.Default, PageEvents.Default, PageChanges.Default]
}) {}
