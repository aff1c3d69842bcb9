/**
 * What a scrape reads from the database: the outbox's depth and age, and the agents streaming per region. Read at
 * scrape time rather than kept in memory because they are the whole deployment's state, which no one process holds
 * (another worker's notifier drains the same outbox; another API process holds an agent's stream). Each is a count
 * over a partial index or a small table, every scrape interval, not per request.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** Notices not yet fanned out to deliveries, deliveries pending (due or waiting to retry), and the oldest's age. */
export const Outbox = Schema.Struct({
  notices: Schema.Number,
  deliveries: Schema.Number,
  oldest_secs: Schema.Number
})
export type Outbox = typeof Outbox.Type

/** A region and how many of its agents (not revoked) have a stream open now, as the operator's `connected` reads it. */
export const RegionAgents = Schema.Struct({ region: Schema.String, enabled: Schema.Boolean, connected: Schema.Number })
export type RegionAgents = typeof RegionAgents.Type

export class MetricsRepo extends Effect.Service<MetricsRepo>()("Signalman/MetricsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    // Both counts walk the partial indexes of pending rows (notices_pending, deliveries_due).
    const outbox = SqlSchema.single({
      Request: Schema.Void,
      Result: Outbox,
      execute: () => sql`
        SELECT
          (SELECT count(*)::int FROM notices WHERE fanned_out_at IS NULL) AS notices,
          (SELECT count(*)::int FROM deliveries WHERE status = 'pending') AS deliveries,
          COALESCE(
            (SELECT EXTRACT(EPOCH FROM now() - min(created_at))::float8 FROM deliveries WHERE status = 'pending'),
            0
          ) AS oldest_secs
      `
    })

    const agents = SqlSchema.findAll({
      Request: Schema.Void,
      Result: RegionAgents,
      execute: () => sql`
        SELECT r.id AS region, r.enabled,
          count(a.id) FILTER (WHERE a.revoked_at IS NULL AND a.streaming_until > now())::int AS connected
        FROM regions r LEFT JOIN agents a ON a.region_id = r.id
        WHERE r.id <> 'local'
        GROUP BY r.id, r.enabled
        ORDER BY r.id
      `
    })

    return {
      outbox: Effect.orDie(outbox(undefined)),
      agents: Effect.orDie(agents(undefined))
    }
  })
}) {}
