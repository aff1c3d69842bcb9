/**
 * The scheduler's SQL, on the engine's hot path: claiming due schedule rows under a lease, and releasing them with
 * their next due time. A release batch travels as one JSON parameter, so any number of rows is one statement.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { CheckKind } from "@signalman/core/CheckSpec"
import { OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** A claimed schedule row with what preparing its run needs. */
export const Claimed = Schema.Struct({
  target_id: Schema.String,
  region: Schema.String,
  due: Schema.DateFromSelf,
  /** The due time exactly as stored, handed back on release so the comparison is exact. */
  due_text: Schema.String,
  /** The lease's end: `lease_secs` past the due time, or past the claim for a row claimed when that had passed. */
  leased_until: Schema.DateFromSelf,
  interval_secs: Schema.Number,
  org_id: OrgId,
  kind: CheckKind,
  check_spec: Schema.Unknown,
  credentials: Schema.NullOr(Schema.String),
  /** The database's clock when the claim began (`now()`) and as it made this row (`clock_timestamp()`). */
  db_now: Schema.DateFromSelf,
  db_read: Schema.DateFromSelf
})
export type Claimed = typeof Claimed.Type

/** Which rows a claim takes, and the lease it puts on them. */
export const Claim = Schema.Struct({
  region: Schema.String,
  /** Leave browser flows unclaimed: the claimer has no browser (an agent that reported none). */
  without_flows: Schema.Boolean,
  lookahead_secs: Schema.Number,
  limit: Schema.Number,
  lease_secs: Schema.Number,
  token: Schema.String
})

/**
 * A row's release as `jsonb_to_recordset` reads it. A plain type rather than a schema: the batch goes out as JSON
 * text, so no row is encoded one by one on the hot path.
 */
export interface Release {
  readonly target_id: string
  readonly region: string
  /** The due time as the claim answered it (`due_text`). */
  readonly due: string
  /** The next due time, ISO 8601. */
  readonly next: string
  /** The interval `next` was reckoned on; a row whose interval has changed since goes on its new grid instead. */
  readonly interval_secs: number
  /** The run's status; null leaves `last_status` as it is. */
  readonly status: string | null
}

export class EngineClaimsRepo extends Effect.Service<EngineClaimsRepo>()("Signalman/EngineClaimsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // The database's clock rides along (DatabaseClock): the worker runs what it claims on that clock, not its own.
    // A row overdue by more than the lease (after an outage) is leased from the claim instead of its due time: a
    // lease that ended before it began would let the next claim take the row again while this one runs it.
    const claim = SqlSchema.findAll({
      Request: Claim,
      Result: Claimed,
      execute: ({ region, without_flows, lookahead_secs, limit, lease_secs, token }) => sql`
      WITH due AS (
        SELECT target_id, region FROM schedules
        WHERE region = ${region} AND NOT held
          AND next_run_at <= now() + make_interval(secs => ${lookahead_secs})
          AND (leased_until IS NULL OR leased_until < now())
          ${without_flows ? sql`AND NOT EXISTS (SELECT 1 FROM targets f WHERE f.id = target_id AND f.kind = 'flow')` : sql``}
        ORDER BY next_run_at
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED
      ), claimed AS (
        UPDATE schedules s
        SET leased_until = GREATEST(s.next_run_at, now()) + make_interval(secs => ${lease_secs}), leased_by = ${token}
        FROM due WHERE s.target_id = due.target_id AND s.region = due.region
        RETURNING s.target_id, s.region, s.next_run_at AS due, s.next_run_at::text AS due_text, s.leased_until,
          s.interval_secs
      )
      SELECT c.*, t.org_id, t.kind, t.check_spec, t.credentials, now() AS db_now, clock_timestamp() AS db_read
      FROM claimed c JOIN targets t ON t.id = c.target_id
    `
    })

    // The next due time applies only if the row still has the due time this run was for and the interval it was
    // reckoned on. An interval change meanwhile either moved the row already (its new grid's first slot came
    // sooner) or kept this due time because it came sooner; then the row goes to its new grid's first slot after
    // this one, never the old interval's next (a change from 180 s to 1 s would otherwise wait out 180 s). The due
    // time comes back as the text the database gave, so the comparison is exact (a JS Date would drop
    // microseconds). Only the lease holder's rows are released.
    const release = SqlSchema.void({
      Request: Schema.Struct({ releases: Schema.String, token: Schema.String }),
      execute: ({ releases, token }) => sql`
      UPDATE schedules s SET
        next_run_at = CASE
          WHEN s.next_run_at <> r.due THEN s.next_run_at
          WHEN s.interval_secs <> r.interval_secs
            THEN engine_first_run(s.target_id, s.interval_secs, GREATEST(now(), r.due + interval '1 millisecond'))
          ELSE r.next END,
        leased_until = NULL, leased_by = NULL,
        last_status = COALESCE(r.status, s.last_status)
      FROM jsonb_to_recordset(${releases}::jsonb) AS r(target_id uuid, region text,
        due timestamptz, next timestamptz, interval_secs integer, status text)
      WHERE s.target_id = r.target_id AND s.region = r.region AND s.leased_by = ${token}
    `
    })

    // A worker shutting down gives back what it still holds: each row keeps its due time, so the slot is claimed at
    // once by another worker (or the next to start) and runs once, instead of waiting for the lease to lapse.
    const giveBack = SqlSchema.void({
      Request: Schema.String,
      execute: (token) => sql`UPDATE schedules SET leased_until = NULL, leased_by = NULL WHERE leased_by = ${token}`
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Leases the due rows (oldest first, at most `limit`) that no live lease holds, skipping locked ones. */
      claim: (request: typeof Claim.Type) => Effect.orDie(claim(request)),
      /** Releases the rows `token` still holds, each moved to its next due time. */
      release: (releases: ReadonlyArray<Release>, token: string) =>
        Effect.orDie(release({ releases: JSON.stringify(releases), token })),
      /** Clears every lease `token` holds, leaving each row's due time as it is. */
      giveBack: (token: string) => Effect.orDie(giveBack(token))
    }
  })
}) {}
