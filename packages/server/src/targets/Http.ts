/**
 * The `targets` group: monitors (create, read, list, change, delete) and the one-shot test of a check.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { type ActiveOrg, Caller } from "@signalman/core/api/Authentication"
import { Region } from "@signalman/core/api/Targets"
import type { AccountId } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import type { WriteSource } from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { AppConfig } from "../Config.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { Probes } from "../probes/Probes.js"
import { notFound, Targets, toTarget } from "./Targets.js"
import * as Validation from "./Validation.js"

/** ui for the browser (a session), iac for the signalman CLI, api for anything else with a token. */
const writeSource = Effect.gen(function* () {
  const caller = yield* Caller
  if (caller.credential.kind === "session") return "ui" as WriteSource
  const request = yield* HttpServerRequest.HttpServerRequest
  return ((request.headers["user-agent"] ?? "").startsWith("signalman-cli/") ? "iac" : "api") as WriteSource
})

export const layer = HttpApiBuilder.group(SignalmanApi, "targets", (handlers) =>
  Effect.gen(function* () {
    const probes = yield* Probes
    const plans = yield* Plans
    const targets = yield* Targets
    const quotaEvents = yield* QuotaEvents
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const allowPrivate = config["checker.allow_private_targets"]

    const orgAndPlan = Effect.gen(function* () {
      const org = yield* requireOrg
      const plan = yield* plans.forAccount(org.accountId as AccountId)
      return { org, plan }
    })

    // Regions must exist and be enabled; more than the plan allows is QUOTA_EXCEEDED.
    const checkRegions = (org: ActiveOrg, plan: Plan.Plan, regions: ReadonlyArray<string>, userId: string) =>
      Effect.gen(function* () {
        const known = yield* sql<{
          id: string
        }>`SELECT id FROM regions WHERE enabled AND id IN ${sql.in([...regions])}`.pipe(Effect.orDie)
        const ids = new Set(known.map((r) => r.id))
        const unknown = regions.findIndex((r) => !ids.has(r))
        if (unknown !== -1) {
          return yield* Effect.fail(
            ApiError.make("REGION_INVALID", `No enabled region ${regions[unknown]}`, { field: `regions[${unknown}]` })
          )
        }
        if (regions.length > plan.quotas.max_regions) {
          return yield* Effect.flatMap(
            quotaEvents.quotaExceeded({
              accountId: org.accountId,
              userId,
              quota: "max_regions",
              current: regions.length,
              limit: plan.quotas.max_regions,
              plan: plan.id
            }),
            Effect.fail
          )
        }
      })

    const decodeRegions = Schema.decodeUnknown(
      Schema.Array(
        Schema.Struct({
          id: Schema.String,
          name: Schema.String,
          city: Schema.NullOr(Schema.String),
          country_code: Schema.NullOr(Schema.String),
          continent: Schema.NullOr(Schema.String),
          latitude: Schema.NullOr(Schema.Number),
          longitude: Schema.NullOr(Schema.Number)
        })
      )
    )
    const regionsById = (ids: ReadonlyArray<string>) =>
      sql`SELECT * FROM regions WHERE id IN ${sql.in([...ids])}`.pipe(
        Effect.flatMap(decodeRegions),
        Effect.map((rows) => ids.flatMap((id) => rows.filter((r) => r.id === id)).map((r) => new Region(r))),
        Effect.orDie
      )

    // Notification channels arrive with their own resource; until then no binding can name one.
    const checkAlerts = (alerts: ReadonlyArray<{ readonly channel_id: string }>) =>
      alerts.length === 0
        ? Effect.void
        : Effect.fail(
            ApiError.make("VALIDATION_FAILED", "No such notification channel in this org", {
              field: "alerts[0].channel_id"
            })
          )

    return handlers
      .handle("test", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:execute")
          const { org, plan } = yield* orgAndPlan
          const spec = payload.check
          if (spec.type === "heartbeat" || spec.type === "manual") {
            return yield* Effect.fail(
              ApiError.make("HEARTBEAT_NOT_PROBEABLE", `A ${spec.type} monitor has no probe to test`, {
                field: "check.type"
              })
            )
          }
          if (spec.type === "flow" && plan.quotas.max_flow_checks === 0) {
            return yield* Effect.fail(
              ApiError.make("FLOW_CHECKS_DISABLED", "Browser flows are not part of this plan", {
                field: "check.type",
                details: { quota: "max_flow_checks", limit: 0, plan: plan.id }
              })
            )
          }
          const found = yield* Validation.checkSpec(spec, allowPrivate, org.id)
          // A test runs the check with the values in place. A saved monitor keeps its references as written and
          // the scheduler resolves them at probe time, so a rotation takes effect without touching the monitor.
          const runnable = yield* Validation.substitute(spec, found, allowPrivate)
          return yield* probes
            .runOnce(runnable)
            .pipe(
              Effect.catchTag("Unprobeable", (e) =>
                Effect.fail(ApiError.make("NO_FLOW_CAPABLE_AGENT", e.message, { field: "check.type" }))
              )
            )
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:write")
          const caller = yield* Caller
          const { org, plan } = yield* orgAndPlan
          yield* Validation.checkSpec(payload.check, allowPrivate, org.id)
          const resolved = TargetRules.resolveCreate(payload, plan)
          if (Either.isLeft(resolved)) return yield* Effect.fail(Validation.toApiError(resolved.left))
          yield* checkAlerts(resolved.right.alerts)
          yield* checkRegions(org, plan, resolved.right.regions, caller.user.id)
          const row = yield* targets.create(org, caller.user.id, plan, resolved.right, yield* writeSource)
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/targets/${row.id}`))
          )
          return toTarget(row)
        })
      )
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:read")
          const org = yield* requireOrg
          const page = yield* targets.list(org, urlParams)
          return { data: page.rows.map(toTarget), total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:read")
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          return row === undefined ? yield* Effect.fail(notFound) : toTarget(row)
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:write")
          const caller = yield* Caller
          const { org, plan } = yield* orgAndPlan
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          if (payload.check !== undefined) yield* Validation.checkSpec(payload.check, allowPrivate, org.id)
          const stored = yield* targets.resolved(row)
          const resolved = TargetRules.resolvePatch(
            {
              name: row.name,
              check: stored.check as TargetRules.ResolvedTarget["check"],
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
            },
            payload,
            plan
          )
          if (Either.isLeft(resolved)) return yield* Effect.fail(Validation.toApiError(resolved.left))
          yield* checkAlerts(resolved.right.alerts)
          yield* checkRegions(org, plan, resolved.right.regions, caller.user.id)
          const updated = yield* targets.update(org, path.id, resolved.right, yield* writeSource)
          return updated === undefined ? yield* Effect.fail(notFound) : toTarget(updated)
        })
      )
      .handle("regions", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:read")
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          return { regions: yield* regionsById(row.regions) }
        })
      )
      .handle("setRegions", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:write")
          const caller = yield* Caller
          const { org, plan } = yield* orgAndPlan
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          if (row.kind === "heartbeat" || row.kind === "manual") {
            return yield* Effect.fail(
              ApiError.make("REGION_INVALID", `A ${row.kind} monitor is not checked from regions`, { field: "regions" })
            )
          }
          const regions = [...new Set(payload.regions)]
          yield* checkRegions(org, plan, regions, caller.user.id)
          yield* sql`UPDATE targets SET regions = ${regions}, write_source = ${yield* writeSource}, updated_at = now() WHERE id = ${row.id}`.pipe(
            Effect.orDie
          )
          return { regions: yield* regionsById(regions) }
        })
      )
      .handle("listRegions", () =>
        sql`SELECT * FROM regions WHERE enabled ORDER BY id`.pipe(
          Effect.flatMap(decodeRegions),
          Effect.map((rows) => ({ regions: rows.map((r) => new Region(r)) })),
          Effect.orDie
        )
      )
      .handle("tags", ({ urlParams }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:read")
          const org = yield* requireOrg
          const prefix = urlParams.q === undefined ? "" : urlParams.q.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)
          const rows = yield* sql<{ tag: string; targets: number; total: number }>`
            SELECT tag, count(*)::int AS targets, count(*) OVER ()::int AS total
            FROM targets, unnest(tags) AS tag
            WHERE org_id = ${org.id} AND lower(tag) LIKE ${`${prefix}%`}
            GROUP BY tag ORDER BY tag LIMIT ${urlParams.limit} OFFSET ${urlParams.offset}
          `.pipe(Effect.orDie)
          return {
            data: rows.map(({ tag, targets }) => ({ tag, targets })),
            total: rows[0]?.total ?? 0,
            limit: urlParams.limit,
            offset: urlParams.offset
          }
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("targets:delete")
          const org = yield* requireOrg
          if (!(yield* targets.remove(org, path.id))) return yield* Effect.fail(notFound)
        })
      )
  })
)
