/**
 * Monitors' SQL: the stored rows (the redacted check beside its sealed full copy), their counts under the account's
 * lock, the bulk statements, the references a monitor names (variable keys, channels), the probe regions and the tag
 * inventory. Timestamps stay `Date`s (`Schema.DateFromSelf`): the services beside this one read them as such. A
 * write that would take a `managed_by` another monitor holds is a `UniqueViolation` for the service to answer.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { Region } from "@signalman/core/api/Targets"
import { CheckKind } from "@signalman/core/CheckSpec"
import { AccountId, OrgId } from "@signalman/core/Identity"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Target from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import * as ReferenceLock from "../database/ReferenceLock.js"
import * as Transaction from "../database/Transaction.js"
import { refusable, UniqueViolation } from "../database/UniqueViolation.js"

const Alerts = Schema.Array(Schema.Struct({ channel_id: Schema.UUID }))
const RegionPolicy = Schema.Union(Schema.Literal("any", "majority", "all"), Schema.Struct({ count: Schema.Number }))

/** What a monitor's row holds of its definition: the columns a write sets and a read gets back alike. */
const definition = {
  name: Schema.String,
  kind: CheckKind,
  check_spec: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  credentials: Schema.NullOr(Schema.String),
  interval_secs: Schema.Number,
  enabled: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  group_name: Schema.NullOr(Schema.String),
  alerts: Alerts,
  alert_confirmations: Schema.Number,
  notify_recovery: Schema.Boolean,
  renotify_interval_secs: Schema.Number,
  recovery_period_secs: Schema.Number,
  region_policy: RegionPolicy,
  regions: Schema.Array(Schema.String),
  escalation_policy_id: Schema.NullOr(Schema.String)
}

/** A stored monitor as the services read it. */
export const TargetRow = Schema.Struct({
  id: Target.TargetId,
  org_id: OrgId,
  ...definition,
  write_source: Target.WriteSource,
  ...ManagedColumns.fields,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type TargetRow = typeof TargetRow.Type

/** The columns a write of a monitor sets, as the service derives them from the resolved target. */
export const Columns = Schema.Struct({ ...definition, variable_keys: Schema.Array(Schema.String) })
export type Columns = typeof Columns.Type

/** A new monitor's columns with its id and who manages it. */
export const NewTarget = Schema.Struct({ id: Target.TargetId, ...Columns.fields, ...ManagedColumns.fields })
export type NewTarget = typeof NewTarget.Type

/** A page of the org's monitors, filtered. */
export const ListQuery = Schema.Struct({
  org_id: OrgId,
  limit: Schema.Int,
  offset: Schema.Int,
  tag: Schema.UndefinedOr(Schema.String),
  enabled: Schema.UndefinedOr(Schema.Boolean),
  /** A name prefix, any case; empty or absent matches every name. */
  q: Schema.UndefinedOr(Schema.String),
  /** Only the monitors this config project manages. */
  managed_by: Schema.UndefinedOr(Schema.String)
})
export type ListQuery = typeof ListQuery.Type

/** What a list of every monitor of an org needs of each (the overview's counts and filters): no check, no secrets. */
export const IndexRow = Schema.Struct({
  id: Target.TargetId,
  name: Schema.String,
  kind: CheckKind,
  enabled: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  group_name: Schema.NullOr(Schema.String)
})
export type IndexRow = typeof IndexRow.Type

/** An enabled region and whether it can run a browser flow now (an agent with a browser, seen lately). */
export const RegionCapability = Schema.Struct({ id: Schema.String, flow_capable: Schema.Boolean })

/** A tag of the inventory, with the count of all tags matching the prefix. */
export const TagCount = Schema.Struct({ tag: Schema.String, targets: Schema.Int, total: Schema.Int })

/** A case-insensitive prefix as a LIKE pattern, its wildcards taken literally. */
const likePrefix = (prefix: string) => `${prefix.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`

const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const Key = Schema.Struct({ key: Schema.String })
const Now = Schema.Struct({ now: Schema.DateFromSelf })
const OfOrg = Schema.Struct({ org_id: OrgId, id: Schema.String })
const Ids = Schema.Array(Schema.String)
/** Which monitors of the org hold some of these (project, key) pairs, other than `except`. */
const Claims = Schema.Struct({
  org_id: OrgId,
  claims: Schema.Array(ManagedBy.ManagedBy),
  except: Schema.NullOr(Schema.String)
})
const Holder = Schema.Struct({ id: Schema.String, project: Schema.String, key: Schema.String })
const Stamp = { ids: Ids, write_source: Target.WriteSource }

export class TargetsRepo extends Effect.Service<TargetsRepo>()("Signalman/TargetsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const one = SqlSchema.findOne({
      Request: OfOrg,
      Result: TargetRow,
      execute: ({ org_id, id }) => sql`SELECT * FROM targets WHERE id = ${id} AND org_id = ${org_id}`
    })

    const countOfAccount = SqlSchema.single({
      Request: AccountId,
      Result: Count,
      execute: (accountId) => sql`
        SELECT count(*)::int AS n FROM targets t JOIN orgs o ON o.id = t.org_id
        WHERE t.account_id = ${accountId} AND o.deleted_at IS NULL
      `
    })

    // One statement for any number of rows: the rows travel as one JSON parameter, so a 10,000-monitor bulk create
    // is not bound by the protocol's parameter limit nor paid for in round trips.
    const insert = SqlSchema.void({
      Request: Schema.Struct({
        org_id: OrgId,
        account_id: AccountId,
        created_by: Schema.String,
        write_source: Target.WriteSource,
        rows: Schema.parseJson(Schema.Array(NewTarget))
      }),
      execute: (w) => sql`
        INSERT INTO targets (id, org_id, account_id, created_by, name, kind, check_spec, credentials,
          interval_secs, enabled, tags, group_name, alerts, alert_confirmations, notify_recovery,
          renotify_interval_secs, recovery_period_secs, region_policy, regions, variable_keys, write_source,
          managed_by_project, managed_by_key, escalation_policy_id)
        SELECT r.id, ${w.org_id}, ${w.account_id}, ${w.created_by}, r.name, r.kind, r.check_spec, r.credentials,
          r.interval_secs, r.enabled, r.tags, r.group_name, r.alerts, r.alert_confirmations, r.notify_recovery,
          r.renotify_interval_secs, r.recovery_period_secs, r.region_policy, r.regions, r.variable_keys,
          ${w.write_source}, r.managed_by_project, r.managed_by_key, r.escalation_policy_id
        FROM jsonb_to_recordset(${w.rows}::jsonb) AS r(id uuid, name text, kind text,
          check_spec jsonb, credentials text, interval_secs integer, enabled boolean, tags text[],
          group_name text, alerts jsonb, alert_confirmations integer, notify_recovery boolean,
          renotify_interval_secs integer, recovery_period_secs integer, region_policy jsonb, regions text[],
          variable_keys text[], managed_by_project text, managed_by_key text, escalation_policy_id uuid)
      `
    })

    const insertPingTokens = SqlSchema.void({
      Request: Schema.Struct({ tokens: Schema.Array(Schema.String), target_ids: Ids }),
      execute: ({ tokens, target_ids }) => sql`
        INSERT INTO ping_tokens (token, target_id) SELECT * FROM unnest(${tokens}::text[], ${target_ids}::uuid[])
      `
    })

    const now = SqlSchema.single({ Request: Schema.Void, Result: Now, execute: () => sql`SELECT now() AS now` })

    const update = SqlSchema.findOne({
      Request: Schema.Struct({
        org_id: OrgId,
        id: Schema.String,
        write_source: Target.WriteSource,
        ...Columns.fields,
        check_spec: Schema.parseJson(Columns.fields.check_spec),
        alerts: Schema.parseJson(Alerts),
        region_policy: Schema.parseJson(RegionPolicy),
        /** Stamped when given; left as stored otherwise. */
        managed_by: Schema.UndefinedOr(ManagedBy.ManagedBy)
      }),
      Result: TargetRow,
      execute: (c) => sql`
        UPDATE targets SET name = ${c.name}, check_spec = ${c.check_spec}::jsonb,
          credentials = ${c.credentials}, interval_secs = ${c.interval_secs}, enabled = ${c.enabled},
          tags = ${c.tags}, group_name = ${c.group_name}, alerts = ${c.alerts}::jsonb,
          alert_confirmations = ${c.alert_confirmations}, notify_recovery = ${c.notify_recovery},
          renotify_interval_secs = ${c.renotify_interval_secs}, recovery_period_secs = ${c.recovery_period_secs},
          region_policy = ${c.region_policy}::jsonb, variable_keys = ${c.variable_keys},
          escalation_policy_id = ${c.escalation_policy_id},
          ${ManagedColumns.stamp(sql, c.managed_by)} write_source = ${c.write_source}, updated_at = now()
        WHERE id = ${c.id} AND org_id = ${c.org_id}
        RETURNING *
      `
    })

    const remove = SqlSchema.findOne({
      Request: OfOrg,
      Result: Id,
      execute: ({ org_id, id }) =>
        sql`DELETE FROM targets WHERE id = ${id} AND org_id = ${org_id} RETURNING id::text AS id`
    })

    const holders = SqlSchema.findAll({
      Request: Claims,
      Result: Holder,
      execute: ({ org_id, claims, except }) => sql`
        SELECT t.id::text AS id, t.managed_by_project AS project, t.managed_by_key AS key
        FROM targets t
        JOIN unnest(${claims.map((c) => c.project)}::text[], ${claims.map((c) => c.key)}::text[]) AS c(project, key)
          ON t.managed_by_project = c.project AND t.managed_by_key = c.key
        WHERE ${sql.and([sql`t.org_id = ${org_id}`, ...(except === null ? [] : [sql`t.id <> ${except}`])])}
      `
    })

    const where = (q: typeof ListQuery.Encoded) =>
      sql.and([
        sql`org_id = ${q.org_id}`,
        // Containment, not = ANY: the GIN index on tags answers it.
        ...(q.tag === undefined ? [] : [sql`tags @> ARRAY[${q.tag}]::text[]`]),
        ...(q.enabled === undefined ? [] : [sql`enabled = ${q.enabled}`]),
        ...(q.q === undefined || q.q === "" ? [] : [sql`lower(name) LIKE ${likePrefix(q.q)}`]),
        ...(q.managed_by === undefined ? [] : [sql`managed_by_project = ${q.managed_by}`])
      ])

    const count = SqlSchema.single({
      Request: ListQuery,
      Result: Count,
      execute: (q) => sql`SELECT count(*)::int AS n FROM targets WHERE ${where(q)}`
    })

    const page = SqlSchema.findAll({
      Request: ListQuery,
      Result: TargetRow,
      execute: (q) => sql`
        SELECT * FROM targets WHERE ${where(q)} ORDER BY created_at DESC, id DESC LIMIT ${q.limit} OFFSET ${q.offset}
      `
    })

    const index = SqlSchema.findAll({
      Request: OrgId,
      Result: IndexRow,
      execute: (orgId) => sql`SELECT id, name, kind, enabled, tags, group_name FROM targets WHERE org_id = ${orgId}`
    })

    const many = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, ids: Ids }),
      Result: TargetRow,
      execute: ({ org_id, ids }) => sql`SELECT * FROM targets WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    const locked = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, ids: Ids }),
      Result: TargetRow,
      execute: ({ org_id, ids }) => sql`
        SELECT * FROM targets WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[]) ORDER BY id FOR UPDATE
      `
    })

    const deleteMany = SqlSchema.void({
      Request: Ids,
      execute: (ids) => sql`DELETE FROM targets WHERE id = ANY(${ids}::uuid[])`
    })

    const stamp = (source: string) => sql`write_source = ${source}, updated_at = now()`

    const setEnabled = SqlSchema.void({
      Request: Schema.Struct({ ...Stamp, enabled: Schema.Boolean }),
      execute: (r) =>
        sql`UPDATE targets SET enabled = ${r.enabled}, ${stamp(r.write_source)} WHERE id = ANY(${r.ids}::uuid[])`
    })

    const setGroup = SqlSchema.void({
      Request: Schema.Struct({ ...Stamp, group_name: Schema.NullOr(Schema.String) }),
      execute: (r) =>
        sql`UPDATE targets SET group_name = ${r.group_name}, ${stamp(r.write_source)} WHERE id = ANY(${r.ids}::uuid[])`
    })

    const setAlerts = SqlSchema.void({
      Request: Schema.Struct({ ...Stamp, alerts: Schema.parseJson(Alerts) }),
      execute: (r) =>
        sql`UPDATE targets SET alerts = ${r.alerts}::jsonb, ${stamp(r.write_source)} WHERE id = ANY(${r.ids}::uuid[])`
    })

    const setEscalationPolicy = SqlSchema.void({
      Request: Schema.Struct({ ...Stamp, escalation_policy_id: Schema.NullOr(Schema.String) }),
      execute: (r) => sql`
        UPDATE targets SET escalation_policy_id = ${r.escalation_policy_id}, ${stamp(r.write_source)}
        WHERE id = ANY(${r.ids}::uuid[])
      `
    })

    const setTags = SqlSchema.void({
      Request: Schema.Struct({
        write_source: Target.WriteSource,
        changes: Schema.parseJson(Schema.Array(Schema.Struct({ id: Schema.String, tags: Schema.Array(Schema.String) })))
      }),
      execute: (r) => sql`
        UPDATE targets t SET tags = c.tags, ${stamp(r.write_source)}
        FROM jsonb_to_recordset(${r.changes}::jsonb) AS c(id uuid, tags text[])
        WHERE t.id = c.id
      `
    })

    const setIntervals = SqlSchema.void({
      Request: Schema.Struct({
        write_source: Target.WriteSource,
        changes: Schema.parseJson(Schema.Array(Schema.Struct({ id: Schema.String, interval_secs: Schema.Int })))
      }),
      execute: (r) => sql`
        UPDATE targets t SET interval_secs = c.interval_secs, ${stamp(r.write_source)}
        FROM jsonb_to_recordset(${r.changes}::jsonb) AS c(id uuid, interval_secs integer)
        WHERE t.id = c.id
      `
    })

    const setRegions = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, regions: Ids, write_source: Target.WriteSource }),
      execute: (r) => sql`
        UPDATE targets SET regions = ${r.regions}, write_source = ${r.write_source}, updated_at = now()
        WHERE id = ${r.id}
      `
    })

    const variableKeys = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, keys: Ids }),
      Result: Key,
      execute: ({ org_id, keys }) =>
        sql`SELECT key FROM variables WHERE org_id = ${org_id} AND key = ANY(${keys}::text[])`
    })

    const channelIds = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, ids: Ids }),
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM channels WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    const policyIds = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, ids: Ids }),
      Result: Id,
      execute: ({ org_id, ids }) =>
        sql`SELECT id::text AS id FROM escalation_policies WHERE org_id = ${org_id} AND id = ANY(${ids}::uuid[])`
    })

    const defaultPolicy = SqlSchema.findOne({
      Request: OrgId,
      Result: Schema.Struct({ id: Schema.NullOr(Schema.String) }),
      execute: (orgId) => sql`SELECT default_escalation_policy_id::text AS id FROM orgs WHERE id = ${orgId}`
    })

    const regionsNamed = SqlSchema.findAll({
      Request: Ids,
      Result: Region,
      execute: (ids) => sql`
        SELECT id, name, city, country_code, continent, latitude, longitude FROM regions WHERE id IN ${sql.in(ids)}
      `
    })

    const enabledRegions = SqlSchema.findAll({
      Request: Schema.Void,
      Result: Region,
      execute: () => sql`
        SELECT id, name, city, country_code, continent, latitude, longitude FROM regions WHERE enabled ORDER BY id
      `
    })

    const capabilities = SqlSchema.findAll({
      Request: Schema.Void,
      Result: RegionCapability,
      // Computed, not stored: region_flow_capable (migration 0018) follows the agents' reports.
      execute: () => sql`SELECT id, region_flow_capable(id) AS flow_capable FROM regions WHERE enabled`
    })

    const tags = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, q: Schema.String, limit: Schema.Int, offset: Schema.Int }),
      Result: TagCount,
      execute: (q) => sql`
        SELECT tag, count(*)::int AS targets, count(*) OVER ()::int AS total
        FROM targets, unnest(tags) AS tag
        WHERE org_id = ${q.org_id} AND lower(tag) LIKE ${likePrefix(q.q)}
        GROUP BY tag ORDER BY tag LIMIT ${q.limit} OFFSET ${q.offset}
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      one: (orgId: OrgId, id: string) => Effect.map(Effect.orDie(one({ org_id: orgId, id })), Option.getOrUndefined),
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: AccountId) => AccountLock.lock(sql, accountId),
      /** The monitors of the account's live orgs. */
      countOfAccount: (accountId: AccountId) => Effect.map(Effect.orDie(countOfAccount(accountId)), (row) => row.n),
      /** Holds the org's reference lock to the end of the transaction (`database/ReferenceLock.ts`). */
      lockReferences: (orgId: OrgId) =>
        Effect.orDie(Effect.provideService(ReferenceLock.lock(orgId), SqlClient.SqlClient, sql)),
      /** Fails with `UniqueViolation` when a row takes a `managed_by` another monitor holds. */
      insert: (request: Parameters<typeof insert>[0]) => refusable(insert(request)),
      insertPingTokens: (tokens: ReadonlyArray<string>, targetIds: ReadonlyArray<string>) =>
        Effect.orDie(insertPingTokens({ tokens, target_ids: targetIds })),
      /** The transaction's time, which `now()` defaults are stamped with. */
      now: Effect.map(Effect.orDie(now()), (row) => row.now),
      /** Fails with `UniqueViolation` when it takes a `managed_by` another monitor holds. */
      update: (request: Parameters<typeof update>[0]) => Effect.map(refusable(update(request)), Option.getOrUndefined),
      /** The monitors of the org, other than `except`, that hold any of these (project, key) pairs. */
      holders: (orgId: OrgId, claims: ReadonlyArray<ManagedBy.ManagedBy>, except: string | null = null) =>
        Effect.orDie(holders({ org_id: orgId, claims, except })),
      /** False when the org has no such monitor. */
      remove: (orgId: OrgId, id: string) => Effect.map(Effect.orDie(remove({ org_id: orgId, id })), Option.isSome),
      list: (query: ListQuery) =>
        Effect.orDie(Effect.all({ total: Effect.map(count(query), (r) => r.n), rows: page(query) })),
      /** Every monitor of the org, lean (any order). */
      index: (orgId: OrgId) => Effect.orDie(index(orgId)),
      /** The org's monitors among these ids (any order; ids of no monitor of the org are left out). */
      many: (orgId: OrgId, ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.succeed<ReadonlyArray<TargetRow>>([]) : Effect.orDie(many({ org_id: orgId, ids })),
      /** The org's monitors among these ids, locked for a change in the surrounding transaction, by id. */
      locked: (orgId: OrgId, ids: ReadonlyArray<string>) => Effect.orDie(locked({ org_id: orgId, ids })),
      deleteMany: (ids: ReadonlyArray<string>) => Effect.orDie(deleteMany(ids)),
      setEnabled: (request: Parameters<typeof setEnabled>[0]) => Effect.orDie(setEnabled(request)),
      setGroup: (request: Parameters<typeof setGroup>[0]) => Effect.orDie(setGroup(request)),
      setAlerts: (request: Parameters<typeof setAlerts>[0]) => Effect.orDie(setAlerts(request)),
      setEscalationPolicy: (request: Parameters<typeof setEscalationPolicy>[0]) =>
        Effect.orDie(setEscalationPolicy(request)),
      setTags: (request: Parameters<typeof setTags>[0]) => Effect.orDie(setTags(request)),
      setIntervals: (request: Parameters<typeof setIntervals>[0]) => Effect.orDie(setIntervals(request)),
      setRegions: (request: Parameters<typeof setRegions>[0]) => Effect.orDie(setRegions(request)),
      /** Which of these keys name a variable of the org. */
      variableKeys: (orgId: OrgId, keys: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(variableKeys({ org_id: orgId, keys })), (rows) => new Set(rows.map((r) => r.key))),
      /** Which of these ids (lowercase) name a channel of the org. */
      channelIds: (orgId: OrgId, ids: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(channelIds({ org_id: orgId, ids })), (rows) => new Set(rows.map((r) => r.id))),
      /** Which of these ids (lowercase) name an escalation policy of the org. */
      policyIds: (orgId: OrgId, ids: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(policyIds({ org_id: orgId, ids })), (rows) => new Set(rows.map((r) => r.id))),
      /** The org's default escalation policy (lower case), or null. */
      defaultPolicy: (orgId: OrgId) =>
        Effect.map(Effect.orDie(defaultPolicy(orgId)), (row) => (Option.isSome(row) ? row.value.id : null)),
      /** The regions with these ids, in the order given (unknown ids left out). */
      regionsNamed: (ids: ReadonlyArray<string>) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<Region>>([])
          : Effect.map(Effect.orDie(regionsNamed(ids)), (rows) => ids.flatMap((id) => rows.filter((r) => r.id === id))),
      /** The enabled regions, by id. */
      enabledRegions: Effect.orDie(enabledRegions()),
      /** The enabled regions' ids and browser capability. */
      capabilities: Effect.orDie(capabilities()),
      tags: (query: Parameters<typeof tags>[0]) => Effect.orDie(tags(query))
    }
  })
}) {
  /**
   * An in-memory repository for unit tests of the monitors' rules: every org's monitors in one store, with the
   * account each was made under. `orgs` names the orgs pending deletion (`deletedOrgs`, not counted toward their
   * account's quota); `variables`, `channels` and `policies` give each org's variable keys, channel ids and
   * escalation policy ids (lower case) for the reference checks, `defaultPolicies` each org's default policy; `regions` the probe regions (by default one enabled `local` region, not flow-capable);
   * `pingTokens` collects the tokens minted for heartbeats. Transactions run one at a time (what the account's and
   * the org's locks settle to), share one clock reading (the database's `now()`), and a failed one leaves the store
   * as it was. Lists order by `created_at` then id, newest first; tags by code point, not the database's collation.
   * A write taking a `managed_by` another monitor of the org holds fails as the unique index makes it.
   */
  static readonly Test = (
    options: {
      readonly deletedOrgs?: ReadonlyArray<string>
      readonly variables?: Readonly<Record<string, ReadonlyArray<string>>>
      readonly channels?: Readonly<Record<string, ReadonlyArray<string>>>
      readonly policies?: Readonly<Record<string, ReadonlyArray<string>>>
      readonly defaultPolicies?: Readonly<Record<string, string>>
      readonly regions?: ReadonlyArray<
        typeof Region.Encoded & { readonly enabled?: boolean; readonly flow_capable?: boolean }
      >
      readonly pingTokens?: Array<{ readonly token: string; readonly target_id: string }>
    } = {}
  ): Layer.Layer<TargetsRepo> =>
    Layer.effect(
      TargetsRepo,
      Effect.gen(function* () {
        type Stored = TargetRow & { readonly account_id: string; readonly variable_keys: ReadonlyArray<string> }
        // Every write replaces the map, so a transaction's snapshot is the map as it was.
        const store: { rows: ReadonlyMap<string, Stored> } = { rows: new Map() }
        const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
        const serial = yield* Effect.makeSemaphore(1)
        const inTransaction = FiberRef.unsafeMake<Date | undefined>(undefined)
        const regions = (
          options.regions ?? [
            {
              id: "local",
              name: "Local",
              city: null,
              country_code: null,
              continent: null,
              latitude: null,
              longitude: null
            }
          ]
        ).map(({ enabled, flow_capable, ...region }) => ({
          region: new Region(region),
          enabled: enabled ?? true,
          flowCapable: flow_capable ?? false
        }))
        const enabled = regions.filter((r) => r.enabled).sort((a, b) => compare(a.region.id, b.region.id))

        const clock = Effect.map(FiberRef.get(inTransaction), (at) => at ?? new Date())
        const rows = () => [...store.rows.values()]
        const visible = ({ account_id: _, variable_keys: __, ...row }: Stored): TargetRow => row
        const ofOrg = (orgId: string, id: string) => {
          const row = store.rows.get(id.toLowerCase())
          return row === undefined || row.org_id !== orgId ? undefined : row
        }
        const write = (
          ids: ReadonlyArray<string>,
          source: Target.WriteSource,
          change: (row: Stored) => Partial<Stored>
        ) =>
          Effect.map(clock, (at) => {
            const next = new Map(store.rows)
            for (const id of ids) {
              const row = next.get(id.toLowerCase())
              if (row !== undefined) next.set(row.id, { ...row, ...change(row), write_source: source, updated_at: at })
            }
            store.rows = next
          })
        const matching = (q: ListQuery) =>
          rows()
            .filter(
              (row) =>
                row.org_id === q.org_id &&
                (q.tag === undefined || row.tags.includes(q.tag)) &&
                (q.enabled === undefined || row.enabled === q.enabled) &&
                (q.q === undefined || row.name.toLowerCase().startsWith(q.q.toLowerCase())) &&
                (q.managed_by === undefined || row.managed_by_project === q.managed_by)
            )
            .sort((a, b) => b.created_at.getTime() - a.created_at.getTime() || compare(b.id, a.id))

        // What the unique index on (org_id, managed_by_project, managed_by_key) refuses, among the rows given.
        const clash = (all: Iterable<Stored>) => {
          const seen = new Set<string>()
          for (const row of all) {
            if (row.managed_by_project === null) continue
            const claim = JSON.stringify([row.org_id, row.managed_by_project, row.managed_by_key])
            if (seen.has(claim)) return Effect.fail(new UniqueViolation({ constraint: "targets_managed_by" }))
            seen.add(claim)
          }
          return Effect.void
        }

        return TargetsRepo.make({
          one: (orgId, id) =>
            Effect.sync(() => {
              const row = ofOrg(orgId, id)
              return row === undefined ? undefined : visible(row)
            }),
          transaction: <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
            Effect.flatMap(FiberRef.get(inTransaction), (at) => {
              const undoable = Effect.suspend(() => {
                const saved = store.rows
                return Effect.onError(self, () =>
                  Effect.sync(() => {
                    store.rows = saved
                  })
                )
              })
              return at !== undefined
                ? undoable
                : serial.withPermits(1)(
                    Effect.flatMap(
                      Effect.sync(() => new Date()),
                      (now) => Effect.locally(undoable, inTransaction, now)
                    )
                  )
            }),
          lockAccount: () => Effect.void,
          countOfAccount: (accountId) =>
            Effect.sync(
              () =>
                rows().filter(
                  (row) => row.account_id === accountId && !(options.deletedOrgs ?? []).includes(row.org_id)
                ).length
            ),
          lockReferences: () => Effect.succeed([]),
          insert: (w) =>
            Effect.flatMap(clock, (at) =>
              Effect.suspend(() => {
                const next = new Map(store.rows)
                for (const r of w.rows) {
                  if (next.has(r.id)) return Effect.dieMessage(`target ${r.id} exists already`)
                  next.set(r.id, {
                    ...r,
                    org_id: w.org_id,
                    account_id: w.account_id,
                    write_source: w.write_source,
                    created_at: at,
                    updated_at: at
                  })
                }
                return Effect.zipRight(
                  clash(next.values()),
                  Effect.sync(() => {
                    store.rows = next
                  })
                )
              })
            ),
          insertPingTokens: (tokens, targetIds) =>
            Effect.sync(() => {
              for (const [i, token] of tokens.entries())
                options.pingTokens?.push({ token, target_id: targetIds[i] ?? "" })
            }),
          now: clock,
          update: (c) =>
            Effect.flatMap(clock, (at) =>
              Effect.suspend(() => {
                const row = ofOrg(c.org_id, c.id)
                if (row === undefined) return Effect.succeed(undefined)
                const { org_id: _, id: __, kind: ___, managed_by, ...columns } = c
                const changed: Stored = {
                  ...row,
                  ...columns,
                  ...(managed_by === undefined ? {} : ManagedColumns.columns(managed_by)),
                  updated_at: at
                }
                const next = new Map(store.rows).set(row.id, changed)
                return Effect.as(
                  Effect.zipRight(
                    clash(next.values()),
                    Effect.sync(() => {
                      store.rows = next
                    })
                  ),
                  visible(changed)
                )
              })
            ),
          holders: (orgId, claims, except = null) =>
            Effect.sync(() =>
              rows()
                .filter(
                  (row) =>
                    row.org_id === orgId &&
                    row.id !== except?.toLowerCase() &&
                    claims.some((c) => c.project === row.managed_by_project && c.key === row.managed_by_key)
                )
                .map((row) => ({ id: row.id, project: row.managed_by_project ?? "", key: row.managed_by_key ?? "" }))
            ),
          remove: (orgId, id) =>
            Effect.sync(() => {
              const row = ofOrg(orgId, id)
              if (row === undefined) return false
              const next = new Map(store.rows)
              next.delete(row.id)
              store.rows = next
              return true
            }),
          list: (q) =>
            Effect.sync(() => {
              const all = matching(q)
              return { total: all.length, rows: all.slice(q.offset, q.offset + q.limit).map(visible) }
            }),
          index: (orgId) =>
            Effect.sync(() =>
              rows()
                .filter((row) => row.org_id === orgId)
                .map(({ id, name, kind, enabled, tags, group_name }) => ({ id, name, kind, enabled, tags, group_name }))
            ),
          many: (orgId, ids) =>
            Effect.sync(() =>
              [...new Set(ids.map((id) => id.toLowerCase()))].flatMap((id) => {
                const row = ofOrg(orgId, id)
                return row === undefined ? [] : [visible(row)]
              })
            ),
          locked: (orgId, ids) =>
            Effect.sync(() =>
              ids
                .flatMap((id) => {
                  const row = ofOrg(orgId, id)
                  return row === undefined ? [] : [row]
                })
                .filter((row, i, all) => all.indexOf(row) === i)
                .sort((a, b) => compare(a.id, b.id))
                .map(visible)
            ),
          deleteMany: (ids) =>
            Effect.sync(() => {
              const next = new Map(store.rows)
              for (const id of ids) next.delete(id.toLowerCase())
              store.rows = next
            }),
          setEnabled: (r) => write(r.ids, r.write_source, () => ({ enabled: r.enabled })),
          setGroup: (r) => write(r.ids, r.write_source, () => ({ group_name: r.group_name })),
          setAlerts: (r) => write(r.ids, r.write_source, () => ({ alerts: r.alerts })),
          setEscalationPolicy: (r) =>
            write(r.ids, r.write_source, () => ({ escalation_policy_id: r.escalation_policy_id })),
          setTags: (r) =>
            Effect.forEach(r.changes, (c) => write([c.id], r.write_source, () => ({ tags: c.tags })), {
              discard: true
            }),
          setIntervals: (r) =>
            Effect.forEach(
              r.changes,
              (c) => write([c.id], r.write_source, () => ({ interval_secs: c.interval_secs })),
              {
                discard: true
              }
            ),
          setRegions: (r) => write([r.id], r.write_source, () => ({ regions: r.regions })),
          variableKeys: (orgId, keys) =>
            Effect.sync(() => new Set(keys.filter((key) => (options.variables?.[orgId] ?? []).includes(key)))),
          channelIds: (orgId, ids) =>
            Effect.sync(() => new Set(ids.filter((id) => (options.channels?.[orgId] ?? []).includes(id)))),
          defaultPolicy: (orgId) => Effect.succeed(options.defaultPolicies?.[orgId] ?? null),
          policyIds: (orgId, ids) =>
            Effect.sync(() => new Set(ids.filter((id) => (options.policies?.[orgId] ?? []).includes(id)))),
          regionsNamed: (ids) =>
            Effect.sync(() => ids.flatMap((id) => regions.filter((r) => r.region.id === id).map((r) => r.region))),
          enabledRegions: Effect.sync(() => enabled.map((r) => r.region)),
          capabilities: Effect.sync(() => enabled.map((r) => ({ id: r.region.id, flow_capable: r.flowCapable }))),
          tags: (q) =>
            Effect.sync(() => {
              const counts = new Map<string, number>()
              for (const row of rows()) {
                if (row.org_id !== q.org_id) continue
                for (const tag of row.tags) {
                  if (tag.toLowerCase().startsWith(q.q.toLowerCase())) counts.set(tag, (counts.get(tag) ?? 0) + 1)
                }
              }
              const all = [...counts.entries()].sort(([a], [b]) => compare(a, b))
              return all
                .slice(q.offset, q.offset + q.limit)
                .map(([tag, targets]) => ({ tag, targets, total: all.length }))
            })
        })
      })
    )
}
