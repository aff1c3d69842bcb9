/**
 * One change to many of an org's monitors (`POST /api/v1/targets/bulk-action`), all or none: the rows are locked,
 * every id must be the org's (else the uniform 404, naming the id), every row must accept the change (an interval
 * below a monitor's floor refuses the whole request, naming that monitor), then one statement writes them all.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as BulkAction from "@signalman/core/BulkAction"
import type { WriteSource } from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Gates from "../oncall/Gates.js"
import { Admission, type Writer } from "./Admission.js"
import { References } from "./References.js"
import { type TargetRow, TargetsRepo } from "./Repo.js"
import { withStoredCheck } from "./Stored.js"
import * as Validation from "./Validation.js"

export class BulkActions extends Effect.Service<BulkActions>()("Signalman/TargetBulkActions", {
  effect: Effect.gen(function* () {
    const repo = yield* TargetsRepo
    const references = yield* References
    const admission = yield* Admission

    // The interval rules need the check's kind and, for a heartbeat, its window: the stored (redacted) check
    // carries both, so nothing sealed is opened.
    const withInterval = (row: TargetRow, interval: number, writer: Writer) =>
      Effect.gen(function* () {
        const stored = yield* withStoredCheck(row).pipe(Effect.orDie)
        const next = TargetRules.resolvePatch(stored, { interval }, writer.plan)
        if (Either.isRight(next)) return next.right.interval
        const refused = Validation.toApiError(next.left)
        return yield* Effect.fail(
          ApiError.make(next.left.code, `${next.left.message} (target ${row.id})`, {
            field: refused.field,
            details: { ...refused.details, target_id: row.id }
          })
        )
      })

    const apply = (writer: Writer, body: BulkAction.BulkAction, writeSource: WriteSource) =>
      Effect.gen(function* () {
        const shape = BulkAction.shapeViolation(body)
        if (shape !== undefined) return yield* Effect.fail(Validation.toApiError(shape))
        if (body.channel_ids !== undefined) {
          yield* admission
            .checkAlerts(
              writer.org,
              body.channel_ids.map((channel_id) => ({ channel_id }))
            )
            .pipe(
              Effect.mapError((e) =>
                ApiError.atField(
                  e,
                  e.field?.replace(/^alerts\[(\d+)\]\.channel_id$/, "channel_ids[$1]") ?? "channel_ids"
                )
              )
            )
        }
        // Binding or unbinding a policy is an on-call write, whatever the monitors held before.
        if (body.action === "set-escalation-policy") {
          yield* Gates.check(writer.credential, writer.org.role, writer.plan, "escalation_policy_id")
        }
        const ids = [...new Set(body.ids)]
        return yield* repo.transaction(
          Effect.gen(function* () {
            const rows = yield* repo.locked(writer.org.id, ids)
            if (rows.length !== ids.length) {
              const found = new Set<string>(rows.map((r) => r.id))
              const missing = body.ids.findIndex((id) => !found.has(id))
              return yield* Effect.fail(
                ApiError.make("NOT_FOUND", `No such target ${body.ids[missing]}`, { field: `ids[${missing}]` })
              )
            }
            return yield* write(writer, body, rows, writeSource)
          })
        )
      })

    const write = (writer: Writer, body: BulkAction.BulkAction, rows: ReadonlyArray<TargetRow>, source: WriteSource) =>
      Effect.gen(function* () {
        const ids = rows.map((r) => r.id)
        switch (body.action) {
          case "delete":
            yield* repo.deleteMany(ids)
            break
          case "enable":
          case "disable":
            yield* repo.setEnabled({ ids, write_source: source, enabled: body.action === "enable" })
            break
          case "set-group":
            yield* repo.setGroup({ ids, write_source: source, group_name: body.group ?? null })
            break
          case "set-channels": {
            const alerts = (body.channel_ids ?? []).map((channel_id) => ({ channel_id }))
            yield* references.lockAndVerify(writer.org.id, [{ variable_keys: [], alerts }])
            yield* repo.setAlerts({ ids, write_source: source, alerts })
            break
          }
          case "set-escalation-policy": {
            const policy = body.escalation_policy_id?.toLowerCase() ?? null
            yield* references.lockAndVerify(writer.org.id, [
              { variable_keys: [], alerts: [], escalation_policy_id: policy }
            ])
            yield* repo.setEscalationPolicy({ ids, write_source: source, escalation_policy_id: policy })
            break
          }
          case "tag-add":
          case "tag-remove": {
            const action = body.action
            const changes = rows.map((row) => ({
              id: row.id,
              tags: BulkAction.retag(row.tags, action, body.tags ?? [])
            }))
            const over = changes.find((c) => c.tags.length > BulkAction.MAX_TAGS)
            if (over !== undefined) {
              return yield* Effect.fail(
                ApiError.make(
                  "VALIDATION_FAILED",
                  `Target ${over.id} would carry more than ${BulkAction.MAX_TAGS} tags`,
                  {
                    field: "tags",
                    details: { target_id: over.id, max: BulkAction.MAX_TAGS }
                  }
                )
              )
            }
            yield* repo.setTags({ write_source: source, changes })
            break
          }
          case "set-interval": {
            const interval = body.interval ?? 0
            const changes = yield* Effect.forEach(rows, (row) =>
              Effect.map(withInterval(row, interval, writer), (value) => ({ id: row.id, interval_secs: value }))
            )
            yield* repo.setIntervals({ write_source: source, changes })
            break
          }
        }
        return rows.length
      })

    return { apply }
  }),
  dependencies: [TargetsRepo.Default, References.Default, Admission.Default]
}) {}
