/**
 * The `targets` group: monitors (create, bulk create, duplicate, read, list, change, bulk actions, delete) and the
 * one-shot test of a check.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import { MAX_BULK_TARGETS, Region, TargetBatch } from "@signalman/core/api/Targets"
import * as BulkAction from "@signalman/core/BulkAction"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Regions from "@signalman/core/Region"
import { Target } from "@signalman/core/Target"
import * as TargetCopy from "@signalman/core/TargetCopy"
import type { ResolvedTarget } from "@signalman/core/TargetRules"
import * as TargetRules from "@signalman/core/TargetRules"
import { isNonEmptyReadonlyArray, type NonEmptyReadonlyArray } from "effect/Array"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Abuse } from "../abuse/Abuse.js"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import * as Idempotency from "../idempotency/Idempotency.js"
import * as IncidentsHttp from "../incidents/Http.js"
import { Plans } from "../limits/Plans.js"
import { Probes } from "../probes/Probes.js"
import { Admission, type Writer } from "./Admission.js"
import { BulkActions } from "./BulkActions.js"
import { Duplicates } from "./Duplicates.js"
import { notFound, type TargetRow, Targets, toTarget } from "./Targets.js"
import * as Validation from "./Validation.js"

const tooLarge = (field: string, count: number, max: number) =>
  ApiError.make("BULK_TOO_LARGE", `At most ${max} ${field} in one request; this one has ${count}`, {
    field,
    details: { max, count }
  })

export const layer = HttpApiBuilder.group(SignalmanApi, "targets", (handlers) =>
  Effect.gen(function* () {
    const abuse = yield* Abuse
    const probes = yield* Probes
    const plans = yield* Plans
    const targets = yield* Targets
    const admission = yield* Admission
    const duplicates = yield* Duplicates
    const bulkActions = yield* BulkActions
    const idempotency = yield* Idempotency.Idempotency
    const sql = yield* SqlClient.SqlClient
    const allowPrivate = admission.allowPrivate

    const orgAndPlan = Effect.gen(function* () {
      const org = yield* requireOrg
      const plan = yield* plans.forAccount(org.accountId)
      return { org, plan }
    })

    const currentWriter = Effect.gen(function* () {
      const caller = yield* Caller
      const { org, plan } = yield* orgAndPlan
      return { org, plan, userId: caller.user.id }
    })

    const scopeOf = (writer: Writer, operation: string): Idempotency.Scope => ({
      orgId: writer.org.id,
      userId: writer.userId,
      operation
    })

    /**
     * Stores the targets and, with a key, the answer beside them; a request that lost the race for the key
     * answers what the winner recorded.
     */
    const insertOnce = <A, I>(
      writer: Writer,
      resolved: ReadonlyArray<ResolvedTarget>,
      claim: Idempotency.Claim | undefined,
      schema: Schema.Schema<A, I>,
      answer: (rows: NonEmptyReadonlyArray<TargetRow>) => { readonly answer: A; readonly location: string | null }
    ) =>
      Effect.gen(function* () {
        const source = yield* writeSource
        const rows = yield* targets.insert(writer.org, writer.userId, writer.plan, resolved, source, (rows) =>
          claim === undefined || !isNonEmptyReadonlyArray(rows)
            ? Effect.void
            : Effect.flatMap(
                Effect.sync(() => answer(rows)),
                (a) => idempotency.record(claim, schema, a.answer, a.location)
              )
        )
        if (!isNonEmptyReadonlyArray(rows)) return yield* Effect.dieMessage("a write of no targets")
        return answer(rows)
      }).pipe(
        Effect.catchTag("LostRace", () =>
          claim === undefined
            ? Effect.dieMessage("an idempotency race without a key")
            : idempotency.replay(claim, schema).pipe(
                Effect.flatMap(
                  Option.match({
                    onNone: () => Effect.dieMessage("the idempotency key holder vanished"),
                    onSome: (a) => Effect.succeed({ answer: a, location: null })
                  })
                )
              )
        )
      )

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

    return handlers
      .handle("test", ({ payload }) =>
        Effect.gen(function* () {
          const { org, plan } = yield* orgAndPlan
          const spec = payload.check
          const unprobeable = TargetRules.probeable(spec.type, "check.type")
          if (Option.isSome(unprobeable)) return yield* Effect.fail(unprobeable.value)
          if (spec.type === "flow") {
            const gated = PlanLimits.gate(plan, "flow_checks", "check.type")
            if (Option.isSome(gated)) return yield* Effect.fail(gated.value)
          }
          const found = yield* Validation.checkSpec(spec, allowPrivate, org.id)
          // A test runs the check with the values in place. A saved monitor keeps its references as written and
          // the scheduler resolves them at probe time, so a rotation takes effect without touching the monitor.
          const runnable = yield* Validation.substitute(spec, found, allowPrivate)
          yield* abuse.check(runnable)
          // A test runs in this process, the local region, which has no browser engine.
          const unplaced = TargetRules.placement(spec.type, [Regions.LOCAL], () => false, "check.type")
          if (Option.isSome(unplaced)) return yield* Effect.fail(unplaced.value)
          // Every kind left has a probe here: a refusal now is a defect, not an answer.
          return yield* probes.runOnce(runnable).pipe(Effect.catchTag("Unprobeable", Effect.die))
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          const writer = yield* currentWriter
          const claim = yield* idempotency.claim(scopeOf(writer, "targets.create"), payload)
          if (claim !== undefined) {
            const prior = yield* idempotency.replay(claim, Target)
            if (Option.isSome(prior)) return prior.value
          }
          const target = yield* admission.create(writer, payload, yield* admission.enabledRegions)
          const rows = yield* insertOnce(writer, [target], claim, Target, ([row]) => ({
            answer: toTarget(row),
            location: `/api/v1/targets/${row.id}`
          }))
          const location = rows.location
          if (location !== null) {
            yield* HttpApp.appendPreResponseHandler((_, response) =>
              Effect.succeed(HttpServerResponse.setHeader(response, "location", location))
            )
          }
          return rows.answer
        })
      )
      .handle("bulk", ({ payload }) =>
        Effect.gen(function* () {
          if (payload.targets.length > MAX_BULK_TARGETS) {
            return yield* Effect.fail(tooLarge("targets", payload.targets.length, MAX_BULK_TARGETS))
          }
          const writer = yield* currentWriter
          const claim = yield* idempotency.claim(scopeOf(writer, "targets.bulk"), payload)
          if (claim !== undefined) {
            const prior = yield* idempotency.replay(claim, TargetBatch)
            if (Option.isSome(prior)) return prior.value
          }
          const targets = yield* admission.createMany(writer, payload.targets)
          const written = yield* insertOnce(writer, targets, claim, TargetBatch, (rows) => ({
            answer: { data: rows.map(toTarget) },
            location: null
          }))
          return written.answer
        })
      )
      .handle("duplicate", ({ path, payload }) =>
        Effect.gen(function* () {
          const writer = yield* currentWriter
          const row = yield* targets.one(writer.org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          if (payload.copies.length > TargetCopy.MAX_COPIES) {
            return yield* Effect.fail(tooLarge("copies", payload.copies.length, TargetCopy.MAX_COPIES))
          }
          const claim = yield* idempotency.claim(scopeOf(writer, `targets.duplicate:${row.id}`), payload)
          if (claim !== undefined) {
            const prior = yield* idempotency.replay(claim, TargetBatch)
            if (Option.isSome(prior)) return prior.value
          }
          const copies = yield* duplicates.copies(writer, row, payload.copies)
          const written = yield* insertOnce(writer, copies, claim, TargetBatch, (rows) => ({
            answer: { data: rows.map(toTarget) },
            location: null
          }))
          return written.answer
        })
      )
      .handle("bulkAction", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope(payload.action === "delete" ? "targets:delete" : "targets:write")
          if (payload.ids.length > BulkAction.MAX_IDS) {
            return yield* Effect.fail(tooLarge("ids", payload.ids.length, BulkAction.MAX_IDS))
          }
          const writer = yield* currentWriter
          return { updated: yield* bulkActions.apply(writer, payload, yield* writeSource) }
        })
      )
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const page = yield* targets.list(org, urlParams)
          return { data: page.rows.map(toTarget), total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          return row === undefined ? yield* Effect.fail(notFound) : toTarget(row)
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const { org, plan } = yield* orgAndPlan
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          if (payload.check !== undefined) yield* Validation.checkSpec(payload.check, allowPrivate, org.id)
          if (payload.check !== undefined) yield* abuse.check(payload.check)
          const resolved = TargetRules.resolvePatch(yield* targets.resolved(row), payload, plan)
          if (Either.isLeft(resolved)) return yield* Effect.fail(Validation.toApiError(resolved.left))
          yield* admission.checkAlerts(org, resolved.right.alerts)
          yield* admission.checkRegions(
            { org, plan, userId: caller.user.id },
            resolved.right.regions,
            yield* admission.enabledRegions
          )
          const updated = yield* targets.update(org, path.id, resolved.right, yield* writeSource)
          return updated === undefined ? yield* Effect.fail(notFound) : toTarget(updated)
        })
      )
      .handle("regions", ({ path }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          return { regions: yield* regionsById(row.regions) }
        })
      )
      .handle("setRegions", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const { org, plan } = yield* orgAndPlan
          const row = yield* targets.one(org, path.id)
          if (row === undefined) return yield* Effect.fail(notFound)
          const refused = TargetRules.regionAssignment(row.kind)
          if (refused !== undefined) return yield* Effect.fail(Validation.toApiError(refused))
          const regions = [...new Set(payload.regions)]
          yield* admission.checkRegions({ org, plan, userId: caller.user.id }, regions, yield* admission.enabledRegions)
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
          const org = yield* requireOrg
          if (!(yield* targets.remove(org, path.id))) return yield* Effect.fail(notFound)
        })
      )
      .handle("incidents", ({ path, urlParams }) => IncidentsHttp.targetIncidents(path.id, urlParams))
  })
)
