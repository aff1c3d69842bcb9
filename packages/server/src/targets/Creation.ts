/**
 * The writes that make monitors (create, bulk create, duplicate), each judged by `Admission` and stored by `Targets`
 * once per `Idempotency-Key`: the answer is recorded in the transaction that makes the rows, so a retry answers
 * what the first request made. A create may be managed (`Signalman-Managed-By`), a bulk create's targets each by
 * their `managed_keys`; a copy never is. What a request claims is part of what a key's replay must match.
 */
import type { TargetBatch } from "@signalman/core/api/Targets"
import * as ApiTargets from "@signalman/core/api/Targets"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Target from "@signalman/core/Target"
import * as TargetCopy from "@signalman/core/TargetCopy"
import type { ResolvedTarget } from "@signalman/core/TargetRules"
import { isNonEmptyReadonlyArray, type NonEmptyReadonlyArray } from "effect/Array"
import * as Effect from "effect/Effect"
import * as Idempotency from "../idempotency/Idempotency.js"
import { Admission, type Writer } from "./Admission.js"
import * as BatchSize from "./BatchSize.js"
import { Duplicates } from "./Duplicates.js"
import type { TargetRow } from "./Repo.js"
import { toTarget } from "./Stored.js"
import { type Claims, notFound, Targets, unclaimed } from "./Targets.js"

const scopeOf = (writer: Writer, operation: string): Idempotency.Scope => ({
  orgId: writer.org.id,
  userId: writer.userId,
  operation
})

// What an Idempotency-Key's replay must match: the body, and the Signalman-Managed-By header when sent (the body
// alone without it, so a key recorded before the header existed replays as it did).
const fingerprinted = (body: unknown, header: string | undefined) =>
  header === undefined ? body : { body, managed_by: header }

const batch = (rows: ReadonlyArray<TargetRow>): Idempotency.Written<typeof TargetBatch.Type> => ({
  answer: { data: rows.map(toTarget) },
  location: null
})

export class Creation extends Effect.Service<Creation>()("Signalman/TargetCreation", {
  effect: Effect.gen(function* () {
    const targets = yield* Targets
    const admission = yield* Admission
    const duplicates = yield* Duplicates
    const idempotency = yield* Idempotency.Idempotency

    /** Stores the targets and, with a key, records the answer beside them. */
    const insert = <A>(
      writer: Writer,
      resolved: ReadonlyArray<ResolvedTarget>,
      claims: Claims,
      source: Target.WriteSource,
      answer: (rows: NonEmptyReadonlyArray<TargetRow>) => Idempotency.Written<A>,
      record: (written: Idempotency.Written<A>) => Effect.Effect<void, Idempotency.LostRace>
    ) =>
      Effect.gen(function* () {
        const rows = yield* targets.insert(
          writer.org,
          writer.userId,
          writer.plan,
          resolved,
          source,
          (rows) =>
            isNonEmptyReadonlyArray(rows)
              ? Effect.flatMap(
                  Effect.sync(() => answer(rows)),
                  record
                )
              : Effect.void,
          claims
        )
        if (!isNonEmptyReadonlyArray(rows)) return yield* Effect.dieMessage("a write of no targets")
        return answer(rows)
      })

    const create = (
      writer: Writer,
      body: Target.CreateTarget,
      source: Target.WriteSource,
      managedBy: ManagedBy.ManagedBy | undefined
    ) =>
      idempotency.once(
        scopeOf(writer, "targets.create"),
        fingerprinted(body, managedBy && ManagedBy.format(managedBy)),
        Target.Target,
        (record) =>
          Effect.gen(function* () {
            const target = yield* admission.create(
              writer,
              body,
              yield* admission.enabledRegions,
              yield* admission.defaultPolicy(writer.org)
            )
            return yield* insert(
              writer,
              [target],
              { of: [managedBy], field: unclaimed.field },
              source,
              ([row]) => ({ answer: toTarget(row), location: `/api/v1/targets/${row.id}` }),
              record
            )
          })
      )

    /**
     * The handler has bounded the batch (`BatchSize`) before the writer was looked up. `project` is the
     * `Signalman-Managed-By` header, which with `managed_keys` gives every target its key.
     */
    const bulk = (
      writer: Writer,
      body: typeof ApiTargets.BulkCreate.Type,
      source: Target.WriteSource,
      project: string | undefined
    ) =>
      Effect.gen(function* () {
        const of = yield* ManagedBy.assignKeys(project, body.managed_keys, body.targets.length)
        const claims: Claims = {
          of,
          field: (index) => (index === undefined ? "managed_keys" : `managed_keys[${index}]`)
        }
        return yield* idempotency.once(
          scopeOf(writer, "targets.bulk"),
          fingerprinted(body, project),
          ApiTargets.TargetBatch,
          (record) =>
            Effect.flatMap(admission.createMany(writer, body.targets), (resolved) =>
              insert(writer, resolved, claims, source, batch, record)
            )
        )
      })

    const duplicate = (
      writer: Writer,
      id: string,
      body: typeof TargetCopy.DuplicateTarget.Type,
      source: Target.WriteSource
    ) =>
      Effect.gen(function* () {
        const row = yield* targets.one(writer.org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        yield* BatchSize.atMost("copies", body.copies.length, TargetCopy.MAX_COPIES)
        return yield* idempotency.once(
          scopeOf(writer, `targets.duplicate:${row.id}`),
          body,
          ApiTargets.TargetBatch,
          (record) =>
            Effect.flatMap(duplicates.copies(writer, row, body.copies), (copies) =>
              insert(writer, copies, unclaimed, source, batch, record)
            )
        )
      })

    return { create, bulk, duplicate }
  }),
  dependencies: [Targets.Default, Admission.Default, Duplicates.Default, Idempotency.Idempotency.Default]
}) {}
