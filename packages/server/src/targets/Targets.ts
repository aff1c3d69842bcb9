/**
 * Monitors: creating one under the account's `max_targets` quota (counted under the account's lock, so concurrent
 * creates settle exactly at the limit), reading, listing, changing and deleting them.
 *
 * The check is stored redacted (what every answer shows) with the full check sealed beside it when it carries
 * credentials, so the API never decrypts anything to answer and a probe opens the sealed copy to run.
 *
 * A write may stamp `managed_by` (monitoring as code) in its own transaction; a (project, key) another monitor of the
 * org holds is refused before the write, and a write racing past that check meets the unique index instead.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as ManagedBy from "@signalman/core/ManagedBy"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Target from "@signalman/core/Target"
import type { ResolvedTarget } from "@signalman/core/TargetRules"
import * as Variables from "@signalman/core/Variables"
import * as Effect from "effect/Effect"
import { Sealer } from "../crypto/Sealer.js"
import * as ManagedColumns from "../database/ManagedColumns.js"
import { isManagedBy, UniqueViolation } from "../database/UniqueViolation.js"
import { uuidv7 } from "../infra/Ids.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PingTokens from "./PingTokens.js"
import { References } from "./References.js"
import { type Columns, type TargetRow, TargetsRepo } from "./Repo.js"
import { decodeCheck, withCheck } from "./Stored.js"

export type { IndexRow, TargetRow } from "./Repo.js"

/** The uniform 404 of a monitor that does not exist or is another org's. */
export const notFound = ApiError.make("NOT_FOUND", "No such target")

const hasCredentials = (check: CheckSpec): boolean =>
  (check.type === "http" && (check.basic_auth !== null || check.bearer_token !== null)) ||
  (check.type === "flow" && check.steps.some((step) => step.action === "fill"))

export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly tag?: string | undefined
  readonly enabled?: boolean | undefined
  readonly q?: string | undefined
  readonly managed_by?: string | undefined
}

/** Who manages each monitor a write makes, and which field a refusal of one names. */
export interface Claims {
  /** In the order of the monitors; undefined for one nobody manages. */
  readonly of: ReadonlyArray<ManagedBy.ManagedBy | undefined>
  /** The header, or the bulk create's `managed_keys[i]`; `index` is unknown when a concurrent write took the key. */
  readonly field: (index: number | undefined) => string
}

/** A write that claims nothing. */
export const unclaimed: Claims = { of: [], field: () => ManagedBy.HEADER }

const KIND = "monitor"

// `within`'s own failures are generic, so the violation is told apart by its class rather than its tag.
const isViolation = (error: unknown): error is UniqueViolation => error instanceof UniqueViolation

export class Targets extends Effect.Service<Targets>()("Signalman/Targets", {
  effect: Effect.gen(function* () {
    const repo = yield* TargetsRepo
    const references = yield* References
    const sealer = yield* Sealer
    const quotaEvents = yield* QuotaEvents

    const columns = (target: ResolvedTarget): Columns => ({
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
      escalation_policy_id: target.escalation_policy_id,
      // Read from the full check: the redacted check_spec hides flow fill values, which may reference a key.
      variable_keys: [...Variables.keys(target.check)]
    })

    const one = (org: ActiveOrg, id: string) => repo.one(org.id, id)

    /**
     * Makes monitors, all or none, under the account's `max_targets` quota: the count and the insert run under the
     * account's lock, so concurrent writes settle exactly at the limit. Rows come back in the order given; a
     * heartbeat gets its ping token in the same transaction. `within` runs last inside the transaction (the
     * idempotency record); its failure rolls everything back. `claims` stamps who manages each monitor.
     */
    const insert = <E>(
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      targets: ReadonlyArray<ResolvedTarget>,
      writeSource: Target.WriteSource,
      within: (rows: ReadonlyArray<TargetRow>) => Effect.Effect<void, E> = () => Effect.void,
      claims: Claims = unclaimed
    ) =>
      Effect.gen(function* () {
        const records = targets.map((target, i) => ({
          id: Target.TargetId.make(uuidv7()),
          ...columns(target),
          ...ManagedColumns.columns(claims.of[i])
        }))
        const outcome = yield* repo
          .transaction(
            Effect.gen(function* () {
              yield* repo.lockAccount(org.accountId)
              const current = yield* repo.countOfAccount(org.accountId)
              if (!PlanLimits.fits(plan, "max_targets", current, records.length))
                return { _tag: "Full", current } as const
              yield* claimable(org, claims, null)
              yield* references.lockAndVerify(org.id, records)
              yield* repo.insert({
                org_id: org.id,
                account_id: org.accountId,
                created_by: userId,
                write_source: writeSource,
                rows: records
              })
              const heartbeats = records.filter((r) => r.kind === "heartbeat").map((r) => r.id)
              if (heartbeats.length > 0) {
                yield* repo.insertPingTokens(
                  heartbeats.map(() => PingTokens.mint()),
                  heartbeats
                )
              }
              // The rows as stored, built from what was sent rather than read back: a 10,000-row RETURNING would
              // be parsed and decoded only to repeat it. Both timestamps default to now(), the transaction's time.
              const at = yield* repo.now
              const rows: ReadonlyArray<TargetRow> = records.map(({ variable_keys: _, ...r }) => ({
                ...r,
                org_id: org.id,
                write_source: writeSource,
                created_at: at,
                updated_at: at
              }))
              yield* within(rows)
              return { _tag: "Created", rows } as const
            })
          )
          .pipe(Effect.catchIf(isViolation, (violation) => raced(violation, claims)))
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

    /**
     * Stores the changed target under the reference lock, stamping `managedBy` when given; undefined when the org has
     * no such monitor.
     */
    const update = (
      org: ActiveOrg,
      id: string,
      target: ResolvedTarget,
      writeSource: Target.WriteSource,
      managedBy?: ManagedBy.ManagedBy | undefined
    ) => {
      const c = columns(target)
      const claims: Claims = { of: [managedBy], field: unclaimed.field }
      return repo
        .transaction(
          Effect.gen(function* () {
            yield* claimable(org, claims, id)
            yield* references.lockAndVerify(org.id, [c])
            return yield* repo.update({ ...c, org_id: org.id, id, write_source: writeSource, managed_by: managedBy })
          })
        )
        .pipe(Effect.catchTag("UniqueViolation", (violation) => raced(violation, claims)))
    }

    /** Refuses the first claim another monitor of the org (not `except`) holds, naming it and its holder. */
    const claimable = (org: ActiveOrg, claims: Claims, except: string | null) =>
      Effect.gen(function* () {
        const wanted = claims.of.flatMap((claim) => (claim === undefined ? [] : [claim]))
        if (wanted.length === 0) return
        const held = yield* repo.holders(org.id, wanted, except)
        for (const [index, claim] of claims.of.entries()) {
          const holder = held.find((h) => claim !== undefined && h.project === claim.project && h.key === claim.key)
          if (claim !== undefined && holder !== undefined) {
            return yield* Effect.fail(ManagedBy.taken(KIND, claim, { holder: holder.id, field: claims.field(index) }))
          }
        }
      })

    /** A write that lost a race for a key to a concurrent one: the same 409, without knowing which claim. */
    const raced = (violation: UniqueViolation, claims: Claims) => {
      const [first] = claims.of.filter((claim) => claim !== undefined)
      if (!isManagedBy(violation) || first === undefined) return Effect.die(violation)
      return Effect.fail(
        claims.of.length > 1
          ? ManagedBy.taken(KIND, { project: first.project }, { field: claims.field(undefined) })
          : ManagedBy.taken(KIND, first, { field: claims.field(0) })
      )
    }

    /** False when the org has no such monitor. */
    const remove = (org: ActiveOrg, id: string) => repo.remove(org.id, id)

    const list = (org: ActiveOrg, query: ListQuery) =>
      repo.list({
        org_id: org.id,
        limit: query.limit,
        offset: query.offset,
        tag: query.tag,
        enabled: query.enabled,
        q: query.q,
        managed_by: query.managed_by
      })

    /** Every monitor of the org, lean (name, kind, state of its switch, tags, group), for lists of all of them. */
    const index = (org: ActiveOrg) => repo.index(org.id)

    /** The org's monitors among these ids, in no particular order. */
    const many = (org: ActiveOrg, ids: ReadonlyArray<string>) => repo.many(org.id, ids)

    /** The org's tags starting with `q` (any case), each with how many monitors carry it, and how many tags match. */
    const tags = (
      org: ActiveOrg,
      query: { readonly q?: string | undefined; readonly limit: number; readonly offset: number }
    ) =>
      Effect.map(repo.tags({ org_id: org.id, q: query.q ?? "", limit: query.limit, offset: query.offset }), (rows) => ({
        rows: rows.map(({ tag, targets }) => ({ tag, targets })),
        total: rows[0]?.total ?? 0
      }))

    return { insert, one, resolved, update, remove, list, index, many, tags }
  }),
  dependencies: [TargetsRepo.Default, References.Default, Sealer.Default, QuotaEvents.Default]
}) {}
