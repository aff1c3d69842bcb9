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
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import {
  type CreateMaintenanceWindow,
  MaintenanceUpdate,
  MaintenanceUpdateId,
  MaintenanceWindowId,
  MaintenanceWindowResource,
  type PatchMaintenanceWindow,
  type PostMaintenanceUpdate,
  UpdateStatus
} from "@signalman/core/api/Maintenance"
import * as MaintenanceWindow from "@signalman/core/MaintenanceWindow"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import { TargetId, WriteSource } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../infra/Ids.js"
import { QuotaEvents } from "../limits/Quota.js"
import { PageChanges } from "../statuspages/PageChanges.js"
import { PageEvents } from "../subscribers/PageEvents.js"

const WindowRow = Schema.Struct({
  id: MaintenanceWindowId,
  org_id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateFromSelf,
  ends_at: Schema.DateFromSelf,
  suppress_alerts: Schema.Boolean,
  created_by: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(Schema.DateFromSelf),
  deleted_by: Schema.NullOr(Schema.String),
  write_source: WriteSource,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  components: Schema.Array(TargetId),
  update_count: Schema.Int
})
type WindowRow = typeof WindowRow.Type

const UpdateRow = Schema.Struct({
  id: MaintenanceUpdateId,
  window_id: Schema.String,
  message: Schema.String,
  status: Schema.NullOr(UpdateStatus),
  created_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})
type UpdateRow = typeof UpdateRow.Type

const utc = (date: Date) => DateTime.unsafeFromDate(date)

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
    const sql = yield* SqlClient.SqlClient
    const quotaEvents = yield* QuotaEvents
    const pageEvents = yield* PageEvents
    const pageChanges = yield* PageChanges
    const decodeWindows = Schema.decodeUnknown(Schema.Array(WindowRow))
    const decodeUpdates = Schema.decodeUnknown(Schema.Array(UpdateRow))

    // Components in the order they were given; the update count for the 50 cap.
    const selectWindows = sql`
      SELECT w.*,
        array(SELECT c.target_id::text FROM maintenance_components c WHERE c.window_id = w.id ORDER BY c.position)
          AS components,
        (SELECT count(*) FROM maintenance_updates u WHERE u.window_id = w.id)::int AS update_count
      FROM maintenance_windows w
    `

    const updatesOf = (windowIds: ReadonlyArray<string>) =>
      windowIds.length === 0
        ? Effect.succeed(new Map<string, Array<UpdateRow>>())
        : sql`
            SELECT * FROM maintenance_updates WHERE window_id = ANY(${windowIds}::uuid[]) ORDER BY created_at, id
          `.pipe(
            Effect.flatMap(decodeUpdates),
            Effect.map((rows) => {
              const byWindow = new Map<string, Array<UpdateRow>>()
              for (const row of rows) {
                const list = byWindow.get(row.window_id)
                if (list === undefined) byWindow.set(row.window_id, [row])
                else list.push(row)
              }
              return byWindow
            })
          )

    const resources = (rows: ReadonlyArray<WindowRow>, now: DateTime.Utc) =>
      Effect.map(updatesOf(rows.map((row) => row.id)), (updates) =>
        rows.map((row) => toResource(row, updates.get(row.id) ?? [], now))
      )

    /**
     * The window of the org (no matter its status), locked for the transaction when `lock`. The lock is its own
     * statement: a statement that waited for a lock still reads its subqueries (components, update count) from the
     * snapshot it started with, so the read after it must be a fresh one to see what the previous holder wrote.
     */
    const row = (org: ActiveOrg, id: string, lock: boolean) =>
      Effect.gen(function* () {
        if (lock) {
          const held = yield* sql`SELECT id FROM maintenance_windows WHERE id = ${id} AND org_id = ${org.id} FOR UPDATE`
          if (held.length === 0) return undefined
        }
        const rows = yield* sql`${selectWindows} WHERE w.id = ${id} AND w.org_id = ${org.id}`.pipe(
          Effect.flatMap(decodeWindows)
        )
        return rows[0]
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
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    /** The filters of `MaintenanceWindow.matches`, as SQL over the same half-open range. */
    const filterSql = (filter: MaintenanceWindow.StatusFilter, now: Date) => {
      switch (filter) {
        case "active":
          return sql`w.deleted_at IS NULL AND w.starts_at <= ${now} AND w.ends_at > ${now}`
        case "upcoming":
          return sql`w.deleted_at IS NULL AND w.starts_at > ${now}`
        case "past":
          return sql`(w.deleted_at IS NOT NULL OR w.ends_at <= ${now})`
        case "all":
          return sql`true`
      }
    }

    const list = (org: ActiveOrg, query: ListQuery) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const where = sql`w.org_id = ${org.id} AND ${filterSql(query.status, DateTime.toDateUtc(now))}`
        const order =
          query.status === "upcoming" ? sql`ORDER BY w.starts_at, w.id` : sql`ORDER BY w.starts_at DESC, w.id DESC`
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM maintenance_windows w WHERE ${where}`
        const rows = yield* sql`
          ${selectWindows} WHERE ${where} ${order} LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decodeWindows))
        return { data: yield* resources(rows, now), total: count?.n ?? 0 }
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    /**
     * Every component must be a monitor of the org (400 VALIDATION_FAILED on `components[i]`). Unknown and foreign
     * ids answer alike, so a window cannot probe other orgs.
     */
    const checkComponents = (org: ActiveOrg, components: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        if (components.length === 0) return
        const ids = components.map(lower)
        const known = yield* sql<{ id: string }>`
          SELECT id::text AS id FROM targets WHERE org_id = ${org.id} AND id = ANY(${ids}::uuid[])
        `
        const found = new Set(known.map((target) => target.id))
        const unknown = ids.findIndex((id) => !found.has(id))
        if (unknown !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "No such monitor in this org", { field: `components[${unknown}]` })
          )
        }
      })

    const writeComponents = (windowId: string, components: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        yield* sql`DELETE FROM maintenance_components WHERE window_id = ${windowId}`
        if (components.length === 0) return
        yield* sql`
          INSERT INTO maintenance_components (window_id, target_id, position)
          SELECT ${windowId}, t.id, t.n - 1
          FROM unnest(${components}::uuid[]) WITH ORDINALITY AS t(id, n)
        `
      })

    /**
     * Windows that count toward `max_maintenance_windows`: not ended and not cancelled, across the account's live
     * orgs. History (completed or cancelled windows) is free, so a long record never blocks the next schedule.
     */
    const countLive = (accountId: string, now: Date) =>
      sql<{ n: number }>`
        SELECT count(*)::int AS n FROM maintenance_windows w JOIN orgs o ON o.id = w.org_id
        WHERE w.account_id = ${accountId} AND o.deleted_at IS NULL AND w.deleted_at IS NULL AND w.ends_at > ${now}
      `.pipe(Effect.map(([count]) => count?.n ?? 0))

    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      input: CreateMaintenanceWindow,
      writeSource: WriteSource
    ) =>
      Effect.gen(function* () {
        const now = yield* DateTime.now
        const window = yield* fromEither(
          MaintenanceWindow.schedule({ ...input, components: input.components.map(lower) }, now)
        )
        const id = uuidv7()
        const outcome = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* checkComponents(org, window.components)
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
            const current = yield* countLive(org.accountId, DateTime.toDateUtc(now))
            if (!PlanLimits.fits(plan, "max_maintenance_windows", current)) return { _tag: "Full", current } as const
            yield* sql`
              INSERT INTO maintenance_windows (id, org_id, account_id, title, description, starts_at, ends_at,
                suppress_alerts, created_by, write_source)
              VALUES (${id}, ${org.id}, ${org.accountId}, ${window.title}, ${window.description},
                ${DateTime.toDateUtc(window.starts_at)}, ${DateTime.toDateUtc(window.ends_at)},
                ${window.suppress_alerts}, ${userId}, ${writeSource})
            `
            yield* writeComponents(id, window.components)
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
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    /** Runs `change` on the org's window under its row lock; 404 when the org has no such window. */
    const locked = <A, E, R>(
      org: ActiveOrg,
      id: string,
      change: (row: WindowRow, now: DateTime.Utc) => Effect.Effect<A, E, R>
    ) =>
      Effect.gen(function* () {
        const before = yield* sql.withTransaction(
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
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const update = (org: ActiveOrg, id: string, patch: PatchMaintenanceWindow, writeSource: WriteSource) =>
      locked(org, id, (found, now) =>
        Effect.gen(function* () {
          const changes = { ...patch, components: patch.components?.map(lower) }
          const edited = yield* fromEither(MaintenanceWindow.edit(stateOf(found), changes, now))
          if (patch.components !== undefined) yield* checkComponents(org, edited.components)
          yield* sql`
            UPDATE maintenance_windows SET
              title = ${edited.title},
              description = ${edited.description},
              starts_at = ${DateTime.toDateUtc(edited.starts_at)},
              ends_at = ${DateTime.toDateUtc(edited.ends_at)},
              suppress_alerts = ${edited.suppress_alerts},
              write_source = ${writeSource},
              updated_at = now()
            WHERE id = ${found.id}
          `
          if (patch.components !== undefined) yield* writeComponents(found.id, edited.components)
        })
      )

    const cancel = (org: ActiveOrg, id: string, userId: string, writeSource: WriteSource) =>
      locked(org, id, (found, now) =>
        Effect.gen(function* () {
          const cancelled = yield* fromEither(MaintenanceWindow.cancel(stateOf(found), userId, now))
          yield* sql`
            UPDATE maintenance_windows SET
              deleted_at = ${cancelled.deleted_at === null ? null : DateTime.toDateUtc(cancelled.deleted_at)},
              deleted_by = ${cancelled.deleted_by},
              write_source = ${writeSource},
              updated_at = now()
            WHERE id = ${found.id}
          `
        })
      )

    const postUpdate = (org: ActiveOrg, id: string, userId: string, input: PostMaintenanceUpdate) =>
      locked(org, id, (found) =>
        Effect.gen(function* () {
          yield* fromEither(MaintenanceWindow.postUpdate(stateOf(found)))
          const updateId = uuidv7()
          yield* sql`
            INSERT INTO maintenance_updates (id, window_id, message, status, created_by)
            VALUES (${updateId}, ${found.id}, ${input.message}, ${input.status ?? null}, ${userId})
          `
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
        : sql<{ id: string }>`
            SELECT DISTINCT c.target_id::text AS id
            FROM maintenance_components c JOIN maintenance_windows w ON w.id = c.window_id
            WHERE c.target_id = ANY(${targetIds.map(lower)}::uuid[])
              AND w.suppress_alerts AND w.deleted_at IS NULL
              AND w.starts_at <= ${DateTime.toDateUtc(at)} AND w.ends_at > ${DateTime.toDateUtc(at)}
          `.pipe(
            Effect.map((rows): ReadonlySet<string> => new Set(rows.map((r) => r.id))),
            Effect.orDie
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
        const conditions = [
          sql`EXISTS (SELECT 1 FROM maintenance_components c
            WHERE c.window_id = w.id AND c.target_id = ANY(${targetIds.map(lower)}::uuid[]))`,
          ...(query.includeCancelled === true ? [] : [sql`w.deleted_at IS NULL`]),
          ...(query.from === undefined ? [] : [sql`w.ends_at > ${DateTime.toDateUtc(query.from)}`]),
          ...(query.to === undefined ? [] : [sql`w.starts_at < ${DateTime.toDateUtc(query.to)}`])
        ]
        const rows = yield* sql`${selectWindows} WHERE ${sql.and(conditions)} ORDER BY w.starts_at, w.id`.pipe(
          Effect.flatMap(decodeWindows)
        )
        return yield* resources(rows, now)
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    return { one, list, create, update, cancel, postUpdate, suppressing, suppressingAmong, forTargets }
  }),
  dependencies: [QuotaEvents.Default, PageEvents.Default, PageChanges.Default]
}) {}
