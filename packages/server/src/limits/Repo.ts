/**
 * The limits' SQL: an account's plan row with its overrides, the quota-event log, and the shared per-minute rate
 * counters (`rate_windows`), reserved in blocks and swept now and then.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

const number = Schema.Number

/** A plan row, every quota, rate and flag a column of its own, with the account's overrides beside it. */
export const PlanRow = Schema.Struct({
  id: Plan.PlanId,
  name: Schema.String,
  listed: Schema.Boolean,
  ...(Object.fromEntries([...Plan.quotaNames, ...Plan.rateNames].map((n) => [n, number])) as {
    readonly [K in Plan.QuotaName | Plan.RateName]: typeof number
  }),
  ...(Object.fromEntries(Plan.flagNames.map((n) => [n, Schema.Boolean])) as {
    readonly [K in Plan.FlagName]: typeof Schema.Boolean
  }),
  overrides: Schema.NullOr(Plan.Overrides)
})
export type PlanRow = typeof PlanRow.Type

/** An entry of the quota-event log: a refusal at a quota or a rate budget. */
export const QuotaEvent = Schema.Struct({
  id: Schema.String,
  account_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  kind: Schema.Literal("quota", "rate"),
  name: Schema.String,
  limit_value: Schema.Number,
  current_value: Schema.Number
})

/** A block of requests reserved from a subject's per-minute counter. */
export const Reservation = Schema.Struct({
  subject: Schema.String,
  category: Schema.String,
  window_start: Schema.DateFromSelf,
  block: Schema.Number
})

// The counter is a bigint, which arrives as a string.
const Used = Schema.Struct({ used: Schema.Union(Schema.Number, Schema.NumberFromString) })

export class LimitsRepo extends Effect.Service<LimitsRepo>()("Signalman/LimitsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const plan = SqlSchema.findOne({
      Request: AccountId,
      Result: PlanRow,
      execute: (accountId) => sql`
        SELECT p.*, o.limits AS overrides
        FROM accounts a
        JOIN plans p ON p.id = a.plan_id
        LEFT JOIN account_overrides o ON o.account_id = a.id
        WHERE a.id = ${accountId}
      `
    })

    const log = SqlSchema.void({
      Request: QuotaEvent,
      execute: (event) => sql`
        INSERT INTO quota_events (id, account_id, user_id, kind, name, limit_value, current_value)
        VALUES (${event.id}, ${event.account_id}, ${event.user_id}, ${event.kind}, ${event.name}, ${event.limit_value},
          ${event.current_value})
      `
    })

    const reserve = SqlSchema.single({
      Request: Reservation,
      Result: Used,
      execute: (r) => sql`
        INSERT INTO rate_windows AS w (subject, category, window_start, used)
        VALUES (${r.subject}, ${r.category}, ${r.window_start}, ${r.block})
        ON CONFLICT (subject, category, window_start) DO UPDATE SET used = w.used + ${r.block}
        RETURNING used
      `
    })

    const sweep = SqlSchema.void({
      Request: Schema.DateFromSelf,
      execute: (before) => sql`DELETE FROM rate_windows WHERE window_start < ${before}`
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** The account's plan row and overrides; an account that does not exist is a defect. */
      plan: (accountId: AccountId) =>
        Effect.flatMap(
          Effect.orDie(plan(accountId)),
          Option.match({ onNone: () => Effect.dieMessage(`no account ${accountId}`), onSome: Effect.succeed })
        ),
      log: (event: typeof QuotaEvent.Type) => Effect.orDie(log(event)),
      /** Adds the block to the counter: what it holds now, this block included. */
      reserve: (reservation: typeof Reservation.Type) =>
        Effect.map(Effect.orDie(reserve(reservation)), (row) => row.used),
      /** Drops the windows that started before `before`; a failure is left for the next sweep. */
      sweep: (before: Date) => Effect.ignore(sweep(before))
    }
  })
}) {
  /**
   * An in-memory repository for unit tests of the limits' rules: per-minute counters that add blocks as the
   * database's upsert does, the quota-event log kept in `events`, and each account on the plan row `plans` gives
   * (an account missing there is a defect, as in the database).
   */
  static readonly Test = (
    plans: Readonly<Record<string, PlanRow>> = {},
    events: Array<typeof QuotaEvent.Type> = []
  ): Layer.Layer<LimitsRepo> =>
    Layer.sync(LimitsRepo, () => {
      const counters = new Map<string, { readonly windowStart: number; used: number }>()
      return LimitsRepo.make({
        plan: (accountId) => {
          const row = plans[accountId]
          return row === undefined ? Effect.dieMessage(`no account ${accountId}`) : Effect.succeed(row)
        },
        log: (event) => Effect.sync(() => void events.push(event)),
        reserve: (r) =>
          Effect.sync(() => {
            const key = `${r.subject}\u0000${r.category}\u0000${r.window_start.getTime()}`
            const counter = counters.get(key) ?? { windowStart: r.window_start.getTime(), used: 0 }
            counter.used += r.block
            counters.set(key, counter)
            return counter.used
          }),
        sweep: (before) =>
          Effect.sync(() => {
            for (const [key, counter] of counters) if (counter.windowStart < before.getTime()) counters.delete(key)
          })
      })
    })
}
