/**
 * The audit log: an append-only record of what was done, and refused, by whom (`audit_events`). Entries name
 * the acting account, org and user (taken from the request's caller unless given), the request id and a keyed
 * hash of the caller's address; what is particular to an event goes in `details`.
 *
 * An entry must survive the request it records, even a refused one, so it is never written inside the request's
 * transaction: from inside one it is written on its own connection once that transaction has let go of the pool.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Caller } from "@signalman/core/api/Authentication"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Fingerprint } from "../auth/Fingerprint.js"
import { currentRequestId } from "../http/RequestContext.js"
import { uuidv7 } from "../infra/Ids.js"
import { AuditRepo } from "./Repo.js"

/** One entry; account, org and user default to the request's caller and its active org. */
export interface Entry {
  readonly event: string
  readonly details?: Readonly<Record<string, unknown>>
  readonly accountId?: string | null
  readonly orgId?: string | null
  readonly userId?: string | null
}

export class AuditLog extends Effect.Service<AuditLog>()("Signalman/AuditLog", {
  effect: Effect.gen(function* () {
    const repo = yield* AuditRepo
    const fingerprint = yield* Fingerprint

    /** Appends an entry; never fails the caller (a lost entry is logged, a refused request still answers). */
    const append = (entry: Entry): Effect.Effect<void> =>
      Effect.gen(function* () {
        const caller = Option.getOrUndefined(yield* Effect.serviceOption(Caller))
        const request = Option.getOrUndefined(yield* Effect.serviceOption(HttpServerRequest.HttpServerRequest))
        const ip = request === undefined ? undefined : Option.getOrUndefined(request.remoteAddress)
        const write = repo
          .insert({
            id: uuidv7(),
            account_id: entry.accountId !== undefined ? entry.accountId : (caller?.user.accountId ?? null),
            org_id: entry.orgId !== undefined ? entry.orgId : (caller?.org?.id ?? null),
            user_id: entry.userId !== undefined ? entry.userId : (caller?.user.id ?? null),
            event: entry.event,
            details: entry.details ?? {},
            ip_hash: fingerprint.hash(ip),
            request_id: yield* currentRequestId
          })
          .pipe(
            Effect.catchAllDefect((defect) =>
              Effect.logError("Audit entry not written").pipe(Effect.annotateLogs({ event: entry.event, defect }))
            )
          )
        const inTransaction = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
        if (!inTransaction) return yield* write
        // The transaction may yet roll back; the entry must not go with it.
        yield* Effect.forkDaemon(
          Effect.mapInputContext(write, (context: Context.Context<never>) =>
            Context.omit(SqlClient.TransactionConnection)(context)
          )
        )
      })

    return { append }
  }),
  dependencies: [AuditRepo.Default, Fingerprint.Default]
}) {}
