/**
 * Org variables: the values checks reference as `{{key}}`. Every value is sealed at rest, secret or not; the
 * API opens a value only to show a non-secret one, or to run a check once (`POST /targets/test`).
 *
 * `used_by` counts the org's monitors whose recorded `variable_keys` hold the key (written with every target
 * save), so neither the count nor the delete guard needs to open a sealed check. A create or change may stamp
 * `managed_by` (`ManagedClaim`).
 */
import * as ApiError from "@signalman/core/ApiError"
import type { OrgId } from "@signalman/core/Identity"
import type * as ManagedBy from "@signalman/core/ManagedBy"
import { Variable } from "@signalman/core/Variable"
import * as VariableRefs from "@signalman/core/Variables"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Sealer } from "../crypto/Sealer.js"
import { claiming } from "../database/ManagedClaim.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import type { UniqueViolation } from "../database/UniqueViolation.js"
import { uuidv7 } from "../infra/Ids.js"
import { type ListQuery, type VariableRow, VariablesRepo } from "./Repo.js"

export type { ListQuery, VariableRow } from "./Repo.js"

const KIND = "variable"

// A taken key is ON CONFLICT's to answer and managed_by's is `claiming`'s: any other violation is a defect.
const onlyManaged = (violation: UniqueViolation) => Effect.die(violation)

const notFound = ApiError.make("NOT_FOUND", "No such variable")

export class Variables extends Effect.Service<Variables>()("Signalman/Variables", {
  effect: Effect.gen(function* () {
    const repo = yield* VariablesRepo
    const sealer = yield* Sealer

    const one = (orgId: OrgId, id: string) =>
      Effect.flatMap(repo.one(orgId, id), (row) => (row === undefined ? Effect.fail(notFound) : Effect.succeed(row)))

    /** The value in the clear. A value that will not open means the key changed under the data: a defect. */
    const open = (row: VariableRow) => sealer.open(row.value_sealed).pipe(Effect.orDie)

    /** The row as the API shows it: a secret's value is null on every read. */
    const show = (row: VariableRow) =>
      Effect.map(
        row.is_secret ? Effect.succeed(null) : open(row),
        (value) =>
          new Variable({
            id: row.id,
            key: row.key,
            is_secret: row.is_secret,
            value,
            used_by: row.used_by,
            managed_by: ManagedColumns.managedBy(row)
          })
      )

    const list = (orgId: OrgId, query: ListQuery) =>
      Effect.gen(function* () {
        const { rows, total } = yield* repo.list(orgId, query)
        return { data: yield* Effect.forEach(rows, show), total }
      })

    /** A new variable; the org's key must match the pattern and be free (the unique index decides a race). */
    const create = (
      orgId: OrgId,
      input: { readonly key: string; readonly is_secret: boolean; readonly value: string },
      managedBy?: ManagedBy.ManagedBy | undefined
    ) =>
      Effect.gen(function* () {
        if (!VariableRefs.KEY_PATTERN.test(input.key)) {
          return yield* Effect.fail(
            ApiError.make(
              "INVALID_VARIABLE_KEY",
              "A key starts with a lowercase letter followed by up to 62 lowercase letters, digits or underscores",
              { field: "key", details: { pattern: VariableRefs.KEY_PATTERN.source } }
            )
          )
        }
        const id = uuidv7()
        const inserted = yield* claiming(
          KIND,
          managedBy,
          (claim) => repo.holder(orgId, claim),
          repo.insert({
            id,
            org_id: orgId,
            key: input.key,
            is_secret: input.is_secret,
            value_sealed: sealer.seal(input.value),
            ...ManagedColumns.columns(managedBy)
          })
        ).pipe(Effect.catchTag("UniqueViolation", onlyManaged))
        if (!inserted) {
          return yield* Effect.fail(
            ApiError.make("VARIABLE_KEY_EXISTS", `This org already has a variable ${input.key}`, { field: "key" })
          )
        }
        const row = yield* repo.one(orgId, id)
        if (row === undefined) return yield* Effect.dieMessage("variable vanished after insert")
        return yield* show(row)
      })

    /** A new value (a rotation), `managedBy` stamped when given; without a value the stored one stays. */
    const rotate = (orgId: OrgId, id: string, value: string | undefined, managedBy?: ManagedBy.ManagedBy | undefined) =>
      Effect.gen(function* () {
        const changed = yield* claiming(
          KIND,
          managedBy,
          (claim) => repo.holder(orgId, claim, id),
          repo.change({
            org_id: orgId,
            id,
            value_sealed: value === undefined ? null : sealer.seal(value),
            managed_by: managedBy
          })
        ).pipe(Effect.catchTag("UniqueViolation", onlyManaged))
        if (!changed) return yield* Effect.fail(notFound)
        return yield* show(yield* one(orgId, id))
      })

    /**
     * Deletes unless a monitor references the key (the guard and the delete are one statement, under the org's
     * reference lock). A monitor saved concurrently with the delete can still slip past; it then fails to resolve
     * at probe time rather than running with a missing value.
     */
    const remove = (orgId: OrgId, id: string) =>
      Effect.gen(function* () {
        if (yield* repo.remove(orgId, id)) return
        const row = yield* one(orgId, id)
        return yield* Effect.fail(
          ApiError.make("VARIABLE_IN_USE", `${row.used_by} monitor(s) reference {{${row.key}}}: change them first`, {
            details: { used_by: row.used_by }
          })
        )
      })

    return {
      get: (orgId: OrgId, id: string) => Effect.flatMap(one(orgId, id), show),
      list,
      /** The org's variables with these keys (those that exist), for resolving a check's references. */
      forKeys: repo.forKeys,
      create,
      rotate,
      remove,
      open
    }
  }),
  dependencies: [VariablesRepo.Default, Sealer.Default]
}) {
  /**
   * The service over the in-memory repository (`usedBy` as there) and a sealer that only marks values, for unit
   * tests of its rules without a database.
   */
  static readonly Test = (usedBy: Readonly<Record<string, number>> = {}) =>
    Variables.DefaultWithoutDependencies.pipe(
      Layer.provide([
        VariablesRepo.Test(usedBy),
        Layer.succeed(
          Sealer,
          Sealer.make({
            seal: (plaintext) => `sealed:${plaintext}`,
            open: (sealed) => Effect.succeed(sealed.replace(/^sealed:/, ""))
          })
        )
      ])
    )
}
