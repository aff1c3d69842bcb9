/**
 * A worker's periodic passes on the database's clock. The heartbeat evaluation, the incident engine's ticks, the
 * escalation walker and the manual restatement each judge "now" against times written by other processes (pings
 * stamped as they came, `wake_at`, a walk's next page, a state's expiry): a worker whose clock is 30 s ahead would
 * turn every pinged heartbeat down at once and page 30 s early, one behind would notice silence 30 s late
 * (docs/faults.md, "One worker's clock 30 s off").
 *
 * So each pass first reads the database's clock (one round trip: `now()` and `clock_timestamp()`, which with this
 * process's clock before and after bound the offset, as a claim does for the scheduler, `DatabaseClock`) and runs
 * under this process's clock moved by it: everything in the pass that reads the time through Effect's `Clock`
 * (`DateTime.now`, `Clock.currentTimeMillis`) reads the database's. Clocks in step within the round trip get no
 * correction. One query per pass, every few seconds: nothing beside the pass's own work.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as DatabaseClock from "./DatabaseClock.js"

const Reading = Schema.Struct({ db_now: Schema.DateFromSelf, db_read: Schema.DateFromSelf })

/** The database's clock less this process's, as one round trip bounds it (zero when that holds zero). */
export const offset: Effect.Effect<DatabaseClock.Offset, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const sentMs = Date.now()
  const rows = yield* sql`SELECT now() AS db_now, clock_timestamp() AS db_read`
  const receivedMs = Date.now()
  const reading = yield* Schema.decodeUnknown(Reading)(rows[0])
  return DatabaseClock.offsetOf(
    DatabaseClock.boundsOf({
      dbStartMs: reading.db_now.getTime(),
      dbEndMs: reading.db_read.getTime(),
      sentMs,
      receivedMs
    })
  )
}).pipe(Effect.orDie)

/** Runs `self` on the database's clock (read once, as it starts); timers still count real durations. */
export const onDatabaseTime = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | SqlClient.SqlClient> =>
  Effect.flatMap(offset, (measured) => Effect.withClock(self, DatabaseClock.shifted(measured)))
