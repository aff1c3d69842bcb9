/**
 * Monitors: creating one under the account's `max_targets` quota (counted under the account's lock, so concurrent
 * creates settle exactly at the limit), reading, listing, changing and deleting them.
 *
 * The check is stored redacted (what every answer shows) with the full check sealed beside it when it carries
 * credentials, so the API never decrypts anything to answer and a probe opens the sealed copy to run.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { CheckKind, CheckSpec } from "@signalman/core/CheckSpec"
import { OrgId } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Target from "@signalman/core/Target"
import type { ResolvedTarget } from "@signalman/core/TargetRules"
import * as Variables from "@signalman/core/Variables"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../infra/Ids.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PingTokens from "./PingTokens.js"
import * as References from "./References.js"

const TargetRow = Schema.Struct({
  id: Target.TargetId,
  org_id: OrgId,
  name: Schema.String,
  kind: CheckKind,
  check_spec: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  credentials: Schema.NullOr(Schema.String),
  interval_secs: Schema.Number,
  enabled: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  group_name: Schema.NullOr(Schema.String),
  alerts: Schema.Array(Schema.Struct({ channel_id: Schema.UUID })),
  alert_confirmations: Schema.Number,
  notify_recovery: Schema.Boolean,
  renotify_interval_secs: Schema.Number,
  recovery_period_secs: Schema.Number,
  region_policy: Schema.Union(Schema.Literal("any", "majority", "all"), Schema.Struct({ count: Schema.Number })),
  regions: Schema.Array(Schema.String),
  write_source: Target.WriteSource,
  created_at: Schema.DateFromSelf,
  updated_at: Schema.DateFromSelf
})
export type TargetRow = typeof TargetRow.Type

export const decodeRows = Schema.decodeUnknown(Schema.Array(TargetRow))

const decodeCheck = Schema.decodeUnknown(CheckSpec)

/** A stored row with the given check (its redacted one, or the full one opened), as `TargetRules` take it. */
export const withCheck = (row: TargetRow, check: CheckSpec): ResolvedTarget => ({
  name: row.name,
  check,
  interval: row.interval_secs,
  enabled: row.enabled,
  tags: row.tags,
  group: row.group_name,
  alerts: row.alerts,
  alert_confirmations: row.alert_confirmations,
  notify_recovery: row.notify_recovery,
  renotify_interval_secs: row.renotify_interval_secs,
  recovery_period_secs: row.recovery_period_secs,
  region_policy: row.region_policy,
  regions: row.regions
})

/** A stored row with its redacted check, for the rules that need only the check's kind and window. */
export const withStoredCheck = (row: TargetRow) =>
  Effect.map(decodeCheck(row.check_spec), (check) => withCheck(row, check))

export const toTarget = (row: TargetRow): Target.Target =>
  new Target.Target({
    id: row.id,
    org_id: row.org_id,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at),
    write_source: row.write_source,
    name: row.name,
    check: row.check_spec,
    interval: row.interval_secs,
    enabled: row.enabled,
    tags: row.tags,
    group: row.group_name,
    alerts: row.alerts,
    alert_confirmations: row.alert_confirmations,
    notify_recovery: row.notify_recovery,
    renotify_interval_secs: row.renotify_interval_secs,
    recovery_period_secs: row.recovery_period_secs,
    region_policy: row.region_policy,
    regions: row.regions
  })

const hasCredentials = (check: CheckSpec): boolean =>
  (check.type === "http" && (check.basic_auth !== null || check.bearer_token !== null)) ||
  (check.type === "flow" && check.steps.some((step) => step.action === "fill"))

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly tag?: string | undefined
  readonly enabled?: boolean | undefined
  readonly q?: string | undefined
}

export class Targets extends Effect.Service<Targets>()("Signalman/Targets", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sealer = yield* Sealer
    const quotaEvents = yield* QuotaEvents
    const decode = decodeRows

    const columns = (target: ResolvedTarget) => ({
      name: target.name,
      kind: target.check.type,
      check_spec: Target.redact(target.check),
      credentials: hasCredentials(target.check) ? sealer.seal(JSON.stringify(target.check)) : null,
      interval_secs: target.interval,
      enabled: target.enabled,
      tags: [...target.tags],
      group_name: target.group,
      alerts: target.alerts,
      alert_confirmations: target.alert_confirmations,
      notify_recovery: target.notify_recovery,
      renotify_interval_secs: target.renotify_interval_secs,
      recovery_period_secs: target.recovery_period_secs,
      region_policy: target.region_policy,
      regions: [...target.regions],
      // Read from the full check: the redacted check_spec hides flow fill values, which may reference a key.
      variable_keys: [...Variables.keys(target.check)]
    })

    const one = (org: ActiveOrg, id: string) =>
      sql`SELECT * FROM targets WHERE id = ${id} AND org_id = ${org.id}`.pipe(
        Effect.flatMap(decode),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /**
     * Makes monitors, all or none, under the account's `max_targets` quota: the count and the insert run under the
     * account's lock, so concurrent writes settle exactly at the limit. Rows come back in the order given; a
     * heartbeat gets its ping token in the same transaction. `within` runs last inside the transaction (the
     * idempotency record); its failure rolls everything back.
     */
    const insert = <E>(
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      targets: ReadonlyArray<ResolvedTarget>,
      writeSource: Target.WriteSource,
      within: (rows: ReadonlyArray<TargetRow>) => Effect.Effect<void, E> = () => Effect.void
    ) =>
      Effect.gen(function* () {
        const records = targets.map((target) => ({ id: Target.TargetId.make(uuidv7()), ...columns(target) }))
        const outcome = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`.pipe(Effect.orDie)
              const [count] = yield* sql<{ n: number }>`
              SELECT count(*)::int AS n FROM targets t JOIN orgs o ON o.id = t.org_id
              WHERE t.account_id = ${org.accountId} AND o.deleted_at IS NULL
            `.pipe(Effect.orDie)
              const current = count?.n ?? 0
              if (!PlanLimits.fits(plan, "max_targets", current, records.length))
                return { _tag: "Full", current } as const
              yield* References.lock(org.id).pipe(Effect.orDie)
              yield* References.verify(org.id, records)
              // One statement for any number of rows: the rows travel as one JSON parameter, so a 10,000-monitor
              // bulk create is not bound by the protocol's parameter limit nor paid for in round trips.
              yield* sql`
              INSERT INTO targets (id, org_id, account_id, created_by, name, kind, check_spec, credentials,
                interval_secs, enabled, tags, group_name, alerts, alert_confirmations, notify_recovery,
                renotify_interval_secs, recovery_period_secs, region_policy, regions, variable_keys, write_source)
              SELECT r.id, ${org.id}, ${org.accountId}, ${userId}, r.name, r.kind, r.check_spec, r.credentials,
                r.interval_secs, r.enabled, r.tags, r.group_name, r.alerts, r.alert_confirmations, r.notify_recovery,
                r.renotify_interval_secs, r.recovery_period_secs, r.region_policy, r.regions, r.variable_keys,
                ${writeSource}
              FROM jsonb_to_recordset(${JSON.stringify(records)}::jsonb) AS r(id uuid, name text, kind text,
                check_spec jsonb, credentials text, interval_secs integer, enabled boolean, tags text[],
                group_name text, alerts jsonb, alert_confirmations integer, notify_recovery boolean,
                renotify_interval_secs integer, recovery_period_secs integer, region_policy jsonb, regions text[],
                variable_keys text[])
            `.pipe(Effect.orDie)
              const heartbeats = records.filter((r) => r.kind === "heartbeat").map((r) => r.id)
              if (heartbeats.length > 0) {
                yield* sql`
                INSERT INTO ping_tokens (token, target_id)
                SELECT * FROM unnest(${heartbeats.map(() => PingTokens.mint())}::text[], ${heartbeats}::uuid[])
              `.pipe(Effect.orDie)
              }
              // The rows as stored, built from what was sent rather than read back: a 10,000-row RETURNING would
              // be parsed and decoded only to repeat it. Both timestamps default to now(), the transaction's time.
              const [clock] = yield* sql<{ now: Date }>`SELECT now() AS now`.pipe(Effect.orDie)
              const at = clock?.now ?? new Date()
              const rows: ReadonlyArray<TargetRow> = records.map((r) => ({
                id: r.id,
                org_id: org.id,
                name: r.name,
                kind: r.kind,
                check_spec: r.check_spec,
                credentials: r.credentials,
                interval_secs: r.interval_secs,
                enabled: r.enabled,
                tags: r.tags,
                group_name: r.group_name,
                alerts: r.alerts,
                alert_confirmations: r.alert_confirmations,
                notify_recovery: r.notify_recovery,
                renotify_interval_secs: r.renotify_interval_secs,
                recovery_period_secs: r.recovery_period_secs,
                region_policy: r.region_policy,
                regions: r.regions,
                write_source: writeSource,
                created_at: at,
                updated_at: at
              }))
              yield* within(rows)
              return { _tag: "Created", rows } as const
            })
          )
          .pipe(Effect.catchTag("SqlError", Effect.die))
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: "max_targets",
            current: outcome.current,
            ...(records.length > 1 ? { requested: records.length } : {})
          })
        }
        return outcome.rows
      })

    /**
     * The stored target as the rules see it, with its full check (credentials opened): what a PATCH is applied to
     * and a duplicate copies. A stored check that no longer decodes is a defect, not a client error.
     */
    const resolved = (row: TargetRow) =>
      Effect.gen(function* () {
        const stored: unknown =
          row.credentials === null ? row.check_spec : JSON.parse(yield* sealer.open(row.credentials))
        return withCheck(row, yield* decodeCheck(stored))
      }).pipe(Effect.orDie)

    const update = (org: ActiveOrg, id: string, target: ResolvedTarget, writeSource: Target.WriteSource) =>
      Effect.gen(function* () {
        const c = columns(target)
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* References.lock(org.id)
              yield* References.verify(org.id, [c])
              const rows = yield* sql`
              UPDATE targets SET name = ${c.name}, check_spec = ${JSON.stringify(c.check_spec)}::jsonb,
                credentials = ${c.credentials}, interval_secs = ${c.interval_secs}, enabled = ${c.enabled},
                tags = ${c.tags}, group_name = ${c.group_name}, alerts = ${JSON.stringify(c.alerts)}::jsonb,
                alert_confirmations = ${c.alert_confirmations}, notify_recovery = ${c.notify_recovery},
                renotify_interval_secs = ${c.renotify_interval_secs}, recovery_period_secs = ${c.recovery_period_secs},
                region_policy = ${JSON.stringify(c.region_policy)}::jsonb, variable_keys = ${c.variable_keys},
                write_source = ${writeSource}, updated_at = now()
              WHERE id = ${id} AND org_id = ${org.id}
              RETURNING *
            `.pipe(Effect.flatMap(decode))
              return rows[0]
            })
          )
          .pipe(Effect.catchTags({ SqlError: (e) => Effect.die(e), ParseError: (e) => Effect.die(e) }))
      })

    const remove = (org: ActiveOrg, id: string) =>
      sql<{ id: string }>`DELETE FROM targets WHERE id = ${id} AND org_id = ${org.id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    const list = (org: ActiveOrg, query: ListQuery) =>
      Effect.gen(function* () {
        const filters = [
          sql`org_id = ${org.id}`,
          // Containment, not = ANY: the GIN index on tags answers it.
          ...(query.tag === undefined ? [] : [sql`tags @> ARRAY[${query.tag}]::text[]`]),
          ...(query.enabled === undefined ? [] : [sql`enabled = ${query.enabled}`]),
          ...(query.q === undefined || query.q === ""
            ? []
            : [sql`lower(name) LIKE ${`${query.q.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`}`])
        ]
        const where = sql.and(filters)
        const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM targets WHERE ${where}`
        const rows = yield* sql`
          SELECT * FROM targets WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${query.limit} OFFSET ${query.offset}
        `.pipe(Effect.flatMap(decode))
        return { rows, total: count?.n ?? 0 }
      }).pipe(Effect.orDie)

    return { insert, one, resolved, update, remove, list }
  }),
  dependencies: [Sealer.Default, QuotaEvents.Default]
}) {}

export const notFound = ApiError.make("NOT_FOUND", "No such target")
