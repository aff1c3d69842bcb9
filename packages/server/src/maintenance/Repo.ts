/**
 * Maintenance windows' SQL: windows with their components (in the order given) and update count, their updates,
 * the account's live windows under its lock, which windows cover some monitors, and which hold a `managed_by`.
 * Timestamps arrive as `Date`s. A write taking a `managed_by` another live window holds is a `UniqueViolation`; the
 * database failing otherwise, or our own rows failing their schema, are defects at this boundary.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { MaintenanceUpdateId, MaintenanceWindowId, UpdateStatus } from "@signalman/core/api/Maintenance"
import * as MaintenanceWindow from "@signalman/core/MaintenanceWindow"
import * as ManagedBy from "@signalman/core/ManagedBy"
import { TargetId, WriteSource } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import * as Transaction from "../database/Transaction.js"
import { refusable } from "../database/UniqueViolation.js"

/** A stored window with its components, in order, and its number of updates (for the cap). */
export const WindowRow = Schema.Struct({
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
  ...ManagedColumns.fields,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf,
  components: Schema.Array(TargetId),
  update_count: Schema.Int
})
export type WindowRow = typeof WindowRow.Type

/** A posted update of a window. */
export const UpdateRow = Schema.Struct({
  id: MaintenanceUpdateId,
  window_id: Schema.String,
  message: Schema.String,
  status: Schema.NullOr(UpdateStatus),
  created_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateFromSelf
})
export type UpdateRow = typeof UpdateRow.Type

/** A new window's row. */
export const NewWindow = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  account_id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateFromSelf,
  ends_at: Schema.DateFromSelf,
  suppress_alerts: Schema.Boolean,
  created_by: Schema.String,
  write_source: WriteSource,
  ...ManagedColumns.fields
})

/** An edited window: the fields an edit may change, as the pure transition answered them. */
export const WindowChange = Schema.Struct({
  id: Schema.String,
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateFromSelf,
  ends_at: Schema.DateFromSelf,
  suppress_alerts: Schema.Boolean,
  write_source: WriteSource,
  /** Stamped when given; left as stored otherwise. */
  managed_by: Schema.UndefinedOr(ManagedBy.ManagedBy)
})

/** A cancelled window. */
export const Cancellation = Schema.Struct({
  id: Schema.String,
  deleted_at: Schema.NullOr(Schema.DateFromSelf),
  deleted_by: Schema.NullOr(Schema.String),
  write_source: WriteSource
})

/** A new update of a window. */
export const NewUpdate = Schema.Struct({
  id: Schema.String,
  window_id: Schema.String,
  message: Schema.String,
  status: Schema.NullOr(UpdateStatus),
  created_by: Schema.String
})

const Listing = Schema.Struct({
  org_id: Schema.String,
  status: MaintenanceWindow.StatusFilter,
  now: Schema.DateFromSelf,
  managed_by: Schema.UndefinedOr(Schema.String)
})
const Claim = Schema.Struct({ ...ManagedColumns.Claim.fields, now: Schema.DateFromSelf })
const Ref = Schema.Struct({ org_id: Schema.String, id: Schema.String })
const Id = Schema.Struct({ id: Schema.String })

/** A stretch in which a window keeps a monitor's alerts quiet. */
export const SuppressionSpan = Schema.Struct({
  id: Schema.String,
  starts_at: Schema.DateFromSelf,
  ends_at: Schema.DateFromSelf
})
export type SuppressionSpan = typeof SuppressionSpan.Type
const Count = Schema.Struct({ n: Schema.Int })
const Ids = Schema.Array(Schema.String)

export class MaintenanceRepo extends Effect.Service<MaintenanceRepo>()("Signalman/MaintenanceRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Components in the order they were given; the update count for the 50 cap.
    const selectWindows = sql`
      SELECT w.*,
        array(SELECT c.target_id::text FROM maintenance_components c WHERE c.window_id = w.id ORDER BY c.position)
          AS components,
        (SELECT count(*) FROM maintenance_updates u WHERE u.window_id = w.id)::int AS update_count
      FROM maintenance_windows w
    `

    const lock = SqlSchema.findOne({
      Request: Ref,
      Result: Id,
      execute: ({ org_id, id }) =>
        sql`SELECT id::text AS id FROM maintenance_windows WHERE id = ${id} AND org_id = ${org_id} FOR UPDATE`
    })

    const window = SqlSchema.findOne({
      Request: Ref,
      Result: WindowRow,
      execute: ({ org_id, id }) => sql`${selectWindows} WHERE w.id = ${id} AND w.org_id = ${org_id}`
    })

    const updates = SqlSchema.findAll({
      Request: Ids,
      Result: UpdateRow,
      execute: (windowIds) => sql`
        SELECT * FROM maintenance_updates WHERE window_id = ANY(${windowIds}::uuid[]) ORDER BY created_at, id
      `
    })

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

    const where = (listing: typeof Listing.Encoded) =>
      sql.and([
        sql`w.org_id = ${listing.org_id}`,
        filterSql(listing.status, listing.now),
        ...(listing.managed_by === undefined ? [] : [sql`w.managed_by_project = ${listing.managed_by}`])
      ])

    const count = SqlSchema.single({
      Request: Listing,
      Result: Count,
      execute: (listing) => sql`SELECT count(*)::int AS n FROM maintenance_windows w WHERE ${where(listing)}`
    })

    const page = SqlSchema.findAll({
      Request: Schema.Struct({ ...Listing.fields, limit: Schema.Int, offset: Schema.Int }),
      Result: WindowRow,
      execute: (listing) => {
        const order =
          listing.status === "upcoming" ? sql`ORDER BY w.starts_at, w.id` : sql`ORDER BY w.starts_at DESC, w.id DESC`
        return sql`${selectWindows} WHERE ${where(listing)} ${order} LIMIT ${listing.limit} OFFSET ${listing.offset}`
      }
    })

    const knownTargets = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: Schema.String, ids: Ids }),
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM targets WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    const clearComponents = SqlSchema.void({
      Request: Schema.String,
      execute: (windowId) => sql`DELETE FROM maintenance_components WHERE window_id = ${windowId}`
    })

    const insertComponents = SqlSchema.void({
      Request: Schema.Struct({ window_id: Schema.String, components: Ids }),
      execute: ({ window_id, components }) => sql`
        INSERT INTO maintenance_components (window_id, target_id, position)
        SELECT ${window_id}, t.id, t.n - 1
        FROM unnest(${components}::uuid[]) WITH ORDINALITY AS t(id, n)
      `
    })

    const countLive = SqlSchema.single({
      Request: Schema.Struct({ account_id: Schema.String, now: Schema.DateFromSelf }),
      Result: Count,
      execute: ({ account_id, now }) => sql`
        SELECT count(*)::int AS n FROM maintenance_windows w JOIN orgs o ON o.id = w.org_id
        WHERE w.account_id = ${account_id} AND o.deleted_at IS NULL AND w.deleted_at IS NULL AND w.ends_at > ${now}
      `
    })

    const insert = SqlSchema.void({
      Request: NewWindow,
      execute: (row) => sql`
        INSERT INTO maintenance_windows (id, org_id, account_id, title, description, starts_at, ends_at,
          suppress_alerts, created_by, write_source, managed_by_project, managed_by_key)
        VALUES (${row.id}, ${row.org_id}, ${row.account_id}, ${row.title}, ${row.description}, ${row.starts_at},
          ${row.ends_at}, ${row.suppress_alerts}, ${row.created_by}, ${row.write_source}, ${row.managed_by_project},
          ${row.managed_by_key})
      `
    })

    const update = SqlSchema.void({
      Request: WindowChange,
      execute: (change) => sql`
        UPDATE maintenance_windows SET
          title = ${change.title},
          description = ${change.description},
          starts_at = ${change.starts_at},
          ends_at = ${change.ends_at},
          suppress_alerts = ${change.suppress_alerts},
          ${ManagedColumns.stamp(sql, change.managed_by)}
          write_source = ${change.write_source},
          updated_at = now()
        WHERE id = ${change.id}
      `
    })

    // A cancelled window holds nothing (the unique index leaves it out).
    const others = (c: typeof Claim.Encoded) => sql`${ManagedColumns.holding(sql, c)} AND deleted_at IS NULL`

    // An ended window keeps its key only until a write claims it: the unique index cannot follow the clock.
    const releaseEnded = SqlSchema.void({
      Request: Claim,
      execute: (c) => sql`
        UPDATE maintenance_windows SET managed_by_project = NULL, managed_by_key = NULL
        WHERE ${others(c)} AND ends_at <= ${c.now}
      `
    })

    const holder = SqlSchema.findAll({
      Request: Claim,
      Result: Id,
      execute: (c) => sql`SELECT id::text AS id FROM maintenance_windows WHERE ${others(c)}`
    })

    const cancel = SqlSchema.void({
      Request: Cancellation,
      execute: (change) => sql`
        UPDATE maintenance_windows SET
          deleted_at = ${change.deleted_at},
          deleted_by = ${change.deleted_by},
          write_source = ${change.write_source},
          updated_at = now()
        WHERE id = ${change.id}
      `
    })

    const insertUpdate = SqlSchema.void({
      Request: NewUpdate,
      execute: (row) => sql`
        INSERT INTO maintenance_updates (id, window_id, message, status, created_by)
        VALUES (${row.id}, ${row.window_id}, ${row.message}, ${row.status}, ${row.created_by})
      `
    })

    const suppressing = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Ids, at: Schema.DateFromSelf }),
      Result: Id,
      execute: ({ ids, at }) => sql`
        SELECT DISTINCT c.target_id::text AS id
        FROM maintenance_components c JOIN maintenance_windows w ON w.id = c.window_id
        WHERE c.target_id = ANY(${ids}::uuid[])
          AND w.suppress_alerts AND w.deleted_at IS NULL
          AND w.starts_at <= ${at} AND w.ends_at > ${at}
      `
    })

    // The same windows as `suppressing`, as stretches overlapping [from, to], so a batch of results at many instants
    // is judged with one query.
    const suppressionSpans = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Ids, from: Schema.DateFromSelf, to: Schema.DateFromSelf }),
      Result: SuppressionSpan,
      execute: ({ ids, from, to }) => sql`
        SELECT c.target_id::text AS id, w.starts_at, w.ends_at
        FROM maintenance_components c JOIN maintenance_windows w ON w.id = c.window_id
        WHERE c.target_id = ANY(${ids}::uuid[])
          AND w.suppress_alerts AND w.deleted_at IS NULL
          AND w.starts_at <= ${to} AND w.ends_at > ${from}
      `
    })

    const covering = SqlSchema.findAll({
      Request: Schema.Struct({
        ids: Ids,
        include_cancelled: Schema.Boolean,
        from: Schema.NullOr(Schema.DateFromSelf),
        to: Schema.NullOr(Schema.DateFromSelf)
      }),
      Result: WindowRow,
      execute: ({ ids, include_cancelled, from, to }) => {
        const conditions = [
          sql`EXISTS (SELECT 1 FROM maintenance_components c
            WHERE c.window_id = w.id AND c.target_id = ANY(${ids}::uuid[]))`,
          ...(include_cancelled ? [] : [sql`w.deleted_at IS NULL`]),
          ...(from === null ? [] : [sql`w.ends_at > ${from}`]),
          ...(to === null ? [] : [sql`w.starts_at < ${to}`])
        ]
        return sql`${selectWindows} WHERE ${sql.and(conditions)} ORDER BY w.starts_at, w.id`
      }
    })

    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** Holds the window's row lock to the end of the transaction; false when the org has no such window. */
      lock: (orgId: string, id: string) => Effect.map(Effect.orDie(lock({ org_id: orgId, id })), Option.isSome),
      window: (orgId: string, id: string) =>
        Effect.map(Effect.orDie(window({ org_id: orgId, id })), Option.getOrUndefined),
      /** The updates of these windows, oldest first. */
      updates: (windowIds: ReadonlyArray<string>) =>
        windowIds.length === 0 ? Effect.succeed([]) : Effect.orDie(updates(windowIds)),
      /** The org's windows of a status filter at `now`, upcoming ones soonest first, the others latest first. */
      list: (query: {
        readonly orgId: string
        readonly status: MaintenanceWindow.StatusFilter
        readonly now: Date
        readonly managedBy: string | undefined
        readonly limit: number
        readonly offset: number
      }) => {
        const listing = { org_id: query.orgId, status: query.status, now: query.now, managed_by: query.managedBy }
        return Effect.orDie(
          Effect.all({
            total: Effect.map(count(listing), (row) => row.n),
            rows: page({ ...listing, limit: query.limit, offset: query.offset })
          })
        )
      },
      /** Which of these monitor ids (lower case) are monitors of the org. */
      knownTargets: (orgId: string, ids: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(knownTargets({ org_id: orgId, ids })), (rows) => new Set(rows.map((row) => row.id))),
      /** Makes these monitors, in this order, the window's components. */
      setComponents: (windowId: string, components: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          yield* clearComponents(windowId)
          if (components.length > 0) yield* insertComponents({ window_id: windowId, components })
        }).pipe(Effect.orDie),
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: string) => AccountLock.lock(sql, accountId),
      /** The account's windows not ended at `now` and not cancelled, across its live orgs (history is free). */
      countLive: (accountId: string, now: Date) =>
        Effect.map(Effect.orDie(countLive({ account_id: accountId, now })), (row) => row.n),
      /** Fails with `UniqueViolation` when it takes a `managed_by` another live window holds. */
      insert: (row: typeof NewWindow.Type) => refusable(insert(row)),
      /** Fails with `UniqueViolation` when it takes a `managed_by` another live window holds. */
      update: (change: typeof WindowChange.Type) => refusable(update(change)),
      /**
       * The window of the org, not cancelled and other than `except`, that holds this (project, key), if any. One
       * that has ended by `now` gives its key up first (its `managed_by` is cleared): ended windows are history.
       */
      holder: (orgId: string, claim: ManagedBy.ManagedBy, now: Date, except: string | null = null) => {
        const request = { org_id: orgId, claim, except, now }
        return Effect.orDie(
          Effect.zipRight(
            releaseEnded(request),
            Effect.map(holder(request), (rows): string | undefined => rows[0]?.id)
          )
        )
      },
      cancel: (change: typeof Cancellation.Type) => Effect.orDie(cancel(change)),
      insertUpdate: (row: typeof NewUpdate.Type) => Effect.orDie(insertUpdate(row)),
      /** The monitors among `ids` (lower case) in a running, not cancelled window with `suppress_alerts` at `at`. */
      suppressing: (ids: ReadonlyArray<string>, at: Date) =>
        Effect.map(
          Effect.orDie(suppressing({ ids, at })),
          (rows): ReadonlySet<string> => new Set(rows.map((r) => r.id))
        ),
      /** The stretches in which a suppressing window covers any of `ids` (lower case), overlapping [from, to]. */
      suppressionSpans: (ids: ReadonlyArray<string>, from: Date, to: Date) =>
        Effect.orDie(suppressionSpans({ ids, from, to })),
      /** The windows covering any of `ids` (lower case), earliest start first. */
      covering: (query: {
        readonly ids: ReadonlyArray<string>
        readonly includeCancelled: boolean
        readonly from: Date | null
        readonly to: Date | null
      }) =>
        Effect.orDie(
          covering({ ids: query.ids, include_cancelled: query.includeCancelled, from: query.from, to: query.to })
        )
    }
  })
}) {}
