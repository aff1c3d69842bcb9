/**
 * Notification channels' SQL. A row is core's `Channel` (timestamps arrive as `Date`s, hence the `FromDate` fields)
 * with its sealed secrets beside it and `managed_by` as its two columns; the account's channel count is taken under
 * the account's lock. A write taking a `managed_by` another channel holds is a `UniqueViolation`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Channel from "@signalman/core/Channel"
import { AccountId, OrgId } from "@signalman/core/Identity"
import * as ManagedBy from "@signalman/core/ManagedBy"
import { WriteSource } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import * as AccountLock from "../database/AccountLock.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import * as ReferenceLock from "../database/ReferenceLock.js"
import * as Transaction from "../database/Transaction.js"
import { refusable } from "../database/UniqueViolation.js"

/** A stored channel: the channel as answered, and the sealed map of its secret values (null when it has none). */
export const ChannelRow = Schema.Struct({
  ...Struct.omit(Channel.Channel.fields, "managed_by"),
  ...ManagedColumns.fields,
  secrets: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtcFromDate,
  updated_at: Schema.DateTimeUtcFromDate
})
export type ChannelRow = typeof ChannelRow.Type

const Config = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })

/** A new channel's row. */
export const NewChannel = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  account_id: AccountId,
  name: Schema.String,
  kind: Channel.ChannelKind,
  config: Config,
  secrets: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  write_source: WriteSource,
  ...ManagedColumns.fields
})

/** A changed channel: every column a PATCH may touch, merged with the stored values by the service. */
export const ChannelChange = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  name: Schema.String,
  enabled: Schema.Boolean,
  config: Config,
  secrets: Schema.NullOr(Schema.String),
  write_source: WriteSource,
  /** Stamped when given; left as stored otherwise. */
  managed_by: Schema.UndefinedOr(ManagedBy.ManagedBy)
})

const Page = Schema.Struct({
  org_id: OrgId,
  kind: Schema.UndefinedOr(Channel.ChannelKind),
  managed_by: Schema.UndefinedOr(Schema.String),
  limit: Schema.Int,
  offset: Schema.Int
})

export class ChannelsRepo extends Effect.Service<ChannelsRepo>()("Signalman/ChannelsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const one = SqlSchema.findOne({
      Request: Schema.Struct({ org_id: OrgId, id: Schema.String }),
      Result: ChannelRow,
      execute: ({ org_id, id }) => sql`SELECT * FROM channels WHERE id = ${id} AND org_id = ${org_id}`
    })

    const where = (page: typeof Page.Encoded) =>
      sql.and([
        sql`org_id = ${page.org_id}`,
        ...(page.kind === undefined ? [] : [sql`kind = ${page.kind}`]),
        ...(page.managed_by === undefined ? [] : [sql`managed_by_project = ${page.managed_by}`])
      ])

    const count = SqlSchema.single({
      Request: Page,
      Result: Count,
      execute: (page) => sql`SELECT count(*)::int AS n FROM channels WHERE ${where(page)}`
    })

    const page = SqlSchema.findAll({
      Request: Page,
      Result: ChannelRow,
      execute: (page) => sql`
        SELECT * FROM channels WHERE ${where(page)} ORDER BY lower(name), id LIMIT ${page.limit} OFFSET ${page.offset}
      `
    })

    const countOfAccount = SqlSchema.single({
      Request: AccountId,
      Result: Count,
      execute: (accountId) => sql`
        SELECT count(*)::int AS n FROM channels c JOIN orgs o ON o.id = c.org_id
        WHERE c.account_id = ${accountId} AND o.deleted_at IS NULL
      `
    })

    const insert = SqlSchema.single({
      Request: NewChannel,
      Result: ChannelRow,
      execute: (row) => sql`
        INSERT INTO channels (id, org_id, account_id, name, kind, config, secrets, enabled, write_source,
          managed_by_project, managed_by_key)
        VALUES (${row.id}, ${row.org_id}, ${row.account_id}, ${row.name}, ${row.kind}, ${row.config}::jsonb,
          ${row.secrets}, ${row.enabled}, ${row.write_source}, ${row.managed_by_project}, ${row.managed_by_key})
        RETURNING *
      `
    })

    const update = SqlSchema.findOne({
      Request: ChannelChange,
      Result: ChannelRow,
      execute: (change) => sql`
        UPDATE channels SET
          name = ${change.name},
          enabled = ${change.enabled},
          config = ${change.config}::jsonb,
          secrets = ${change.secrets},
          ${ManagedColumns.stamp(sql, change.managed_by)}
          write_source = ${change.write_source},
          updated_at = now()
        WHERE id = ${change.id} AND org_id = ${change.org_id}
        RETURNING *
      `
    })

    const holder = SqlSchema.findOne({
      Request: ManagedColumns.Claim,
      Result: Id,
      execute: (c) => sql`SELECT id::text AS id FROM channels WHERE ${ManagedColumns.holding(sql, c)}`
    })

    const transaction = Transaction.make(sql)

    const lockReferences = (orgId: OrgId) =>
      Effect.orDie(Effect.provideService(ReferenceLock.lock(orgId), SqlClient.SqlClient, sql))

    const deleteOne = SqlSchema.findOne({
      Request: Schema.Struct({ org_id: OrgId, id: Schema.String }),
      Result: Id,
      execute: ({ org_id, id }) => sql`
        DELETE FROM channels WHERE id = ${id} AND org_id = ${org_id} RETURNING id::text AS id
      `
    })

    const unbind = SqlSchema.void({
      Request: Schema.Struct({ org_id: OrgId, channel_id: Schema.String }),
      execute: ({ org_id, channel_id }) => sql`
        UPDATE targets t SET
          alerts = (
            SELECT coalesce(jsonb_agg(e.binding ORDER BY e.n), '[]'::jsonb)
            FROM jsonb_array_elements(t.alerts) WITH ORDINALITY AS e(binding, n)
            WHERE lower(e.binding->>'channel_id') <> ${channel_id}
          ),
          updated_at = now()
        WHERE t.org_id = ${org_id}
          AND EXISTS (
            SELECT 1 FROM jsonb_array_elements(t.alerts) AS b(binding) WHERE lower(b.binding->>'channel_id') = ${channel_id}
          )
      `
    })

    /**
     * Deletes the channel and, in the same transaction, every binding to it on the org's monitors (their other
     * bindings keep their order), so no monitor is left pointing at nothing; true when there was one to delete.
     */
    const remove = (orgId: OrgId, id: string) =>
      transaction(
        Effect.gen(function* () {
          // Under the org's reference lock, so no monitor saved meanwhile can bind the channel being deleted.
          yield* lockReferences(orgId)
          const gone = yield* Effect.orDie(deleteOne({ org_id: orgId, id }))
          if (Option.isNone(gone)) return false
          yield* Effect.orDie(unbind({ org_id: orgId, channel_id: gone.value.id }))
          return true
        })
      )

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      one: (orgId: OrgId, id: string) => Effect.map(Effect.orDie(one({ org_id: orgId, id })), Option.getOrUndefined),
      list: (query: typeof Page.Type) =>
        Effect.orDie(Effect.all({ total: Effect.map(count(query), (row) => row.n), rows: page(query) })),
      /** Runs `self` in a transaction. */
      transaction,
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: AccountId) => AccountLock.lock(sql, accountId),
      countOfAccount: (accountId: AccountId) => Effect.map(Effect.orDie(countOfAccount(accountId)), (row) => row.n),
      /** Fails with `UniqueViolation` when it takes a `managed_by` another channel holds. */
      insert: (row: typeof NewChannel.Type) => refusable(insert(row)),
      /** Fails with `UniqueViolation` when it takes a `managed_by` another channel holds. */
      update: (change: typeof ChannelChange.Type) => Effect.map(refusable(update(change)), Option.getOrUndefined),
      /** The channel of the org, other than `except`, that holds this (project, key), if any. */
      holder: (orgId: OrgId, claim: ManagedBy.ManagedBy, except: string | null = null) =>
        Effect.map(Effect.orDie(holder({ org_id: orgId, claim, except })), (row) =>
          Option.getOrUndefined(Option.map(row, (r) => r.id))
        ),
      remove
    }
  })
}) {}
