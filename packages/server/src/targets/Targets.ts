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
import type { CheckSpec } from "@signalman/core/CheckSpec"
import type { AccountId, OrgId } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import * as Target from "@signalman/core/Target"
import type { ResolvedTarget } from "@signalman/core/TargetRules"
import * as Variables from "@signalman/core/Variables"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../Ids.js"
import { QuotaEvents } from "../limits/Quota.js"

const TargetRow = Schema.Struct({
  id: Schema.String,
  org_id: Schema.String,
  name: Schema.String,
  kind: Schema.String,
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

export const toTarget = (row: TargetRow): Target.Target =>
  new Target.Target({
    id: row.id as Target.TargetId,
    org_id: row.org_id as OrgId,
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
    const decode = Schema.decodeUnknown(Schema.Array(TargetRow))

    const columns = (target: ResolvedTarget) => ({
      name: target.name,
      kind: target.check.type,
      check_spec: JSON.stringify(Target.redact(target.check)),
      credentials: hasCredentials(target.check) ? sealer.seal(JSON.stringify(target.check)) : null,
      interval_secs: target.interval,
      enabled: target.enabled,
      tags: [...target.tags],
      group_name: target.group,
      alerts: JSON.stringify(target.alerts),
      alert_confirmations: target.alert_confirmations,
      notify_recovery: target.notify_recovery,
      renotify_interval_secs: target.renotify_interval_secs,
      recovery_period_secs: target.recovery_period_secs,
      region_policy: JSON.stringify(target.region_policy),
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

    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      target: ResolvedTarget,
      writeSource: Target.WriteSource
    ) =>
      Effect.gen(function* () {
        const id = uuidv7()
        const c = columns(target)
        const outcome = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
              const [count] = yield* sql<{ n: number }>`
                SELECT count(*)::int AS n FROM targets t JOIN orgs o ON o.id = t.org_id
                WHERE t.account_id = ${org.accountId} AND o.deleted_at IS NULL
              `
              const current = count?.n ?? 0
              if (current >= plan.quotas.max_targets) return { _tag: "Full", current } as const
              const rows = yield* sql`
                INSERT INTO targets (id, org_id, account_id, name, kind, check_spec, credentials, interval_secs, enabled,
                  tags, group_name, alerts, alert_confirmations, notify_recovery, renotify_interval_secs,
                  recovery_period_secs, region_policy, regions, variable_keys, write_source)
                VALUES (${id}, ${org.id}, ${org.accountId}, ${c.name}, ${c.kind}, ${c.check_spec}::jsonb, ${c.credentials},
                  ${c.interval_secs}, ${c.enabled}, ${c.tags}, ${c.group_name}, ${c.alerts}::jsonb, ${c.alert_confirmations},
                  ${c.notify_recovery}, ${c.renotify_interval_secs}, ${c.recovery_period_secs}, ${c.region_policy}::jsonb,
                  ${c.regions}, ${c.variable_keys}, ${writeSource})
                RETURNING *
              `.pipe(Effect.flatMap(decode))
              const row = rows[0]
              if (row === undefined) return yield* Effect.dieMessage("target vanished after insert")
              return { _tag: "Created", row } as const
            })
          )
          .pipe(Effect.orDie)
        if (outcome._tag === "Full") {
          return yield* Effect.flatMap(
            quotaEvents.quotaExceeded({
              accountId: org.accountId as AccountId,
              userId,
              quota: "max_targets",
              current: outcome.current,
              limit: plan.quotas.max_targets,
              plan: plan.id
            }),
            Effect.fail
          )
        }
        return outcome.row
      })

    /** The stored target with its full check (credentials opened), for validating a PATCH or running a probe. */
    const resolved = (row: TargetRow) =>
      Effect.gen(function* () {
        const check: unknown =
          row.credentials === null ? row.check_spec : JSON.parse(yield* sealer.open(row.credentials))
        return { row, check }
      }).pipe(Effect.orDie)

    const update = (org: ActiveOrg, id: string, target: ResolvedTarget, writeSource: Target.WriteSource) =>
      Effect.gen(function* () {
        const c = columns(target)
        const rows = yield* sql`
          UPDATE targets SET name = ${c.name}, check_spec = ${c.check_spec}::jsonb, credentials = ${c.credentials},
            interval_secs = ${c.interval_secs}, enabled = ${c.enabled}, tags = ${c.tags}, group_name = ${c.group_name},
            alerts = ${c.alerts}::jsonb, alert_confirmations = ${c.alert_confirmations},
            notify_recovery = ${c.notify_recovery}, renotify_interval_secs = ${c.renotify_interval_secs},
            recovery_period_secs = ${c.recovery_period_secs}, region_policy = ${c.region_policy}::jsonb,
            variable_keys = ${c.variable_keys}, write_source = ${writeSource}, updated_at = now()
          WHERE id = ${id} AND org_id = ${org.id}
          RETURNING *
        `.pipe(Effect.flatMap(decode), Effect.orDie)
        return rows[0]
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
          ...(query.tag === undefined ? [] : [sql`${query.tag} = ANY(tags)`]),
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

    return { create, one, resolved, update, remove, list }
  }),
  dependencies: [Sealer.Default, QuotaEvents.Default]
}) {}

export const notFound = ApiError.make("NOT_FOUND", "No such target")
