/**
 * The result store's SQL, on the engine's hot path: a batch of raw results into `check_results` and the batch's
 * aggregates upserted into a rollup table. Each batch travels as one JSON parameter, so a batch of any size is one
 * statement, which matters on the embedded database's single connection.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

/**
 * A raw result as `jsonb_to_recordset` reads it. The rows here and below are plain types rather than schemas: a batch
 * goes out as JSON text, so no row is encoded one by one on the hot path.
 */
export interface ResultRecord {
  readonly target_id: string
  readonly region: string
  /** ISO 8601. */
  readonly checked_at: string
  readonly status: string
  readonly duration_ms: number
  readonly error: string | null
  readonly details: unknown
  readonly phases: unknown
  readonly weight_secs: number
}

/** A rollup row's increments for one (target, region, bucket); the histogram counts per `LatencyHistogram` bucket. */
export interface Rollup {
  target_id: string
  region: string
  /** ISO 8601. */
  bucket: string
  checks: number
  up: number
  degraded: number
  down: number
  errors: number
  up_secs: number
  down_secs: number
  duration_sum: number
  dns_sum: number
  dns_n: number
  connect_sum: number
  connect_n: number
  tls_sum: number
  tls_n: number
  first_byte_sum: number
  first_byte_n: number
  histogram: Array<number>
}

const RollupTable = Schema.Literal("result_rollups_hourly", "result_rollups_daily")

export class ResultStoreRepo extends Effect.Service<ResultStoreRepo>()("Signalman/ResultStoreRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insertResults = SqlSchema.void({
      Request: Schema.String,
      execute: (records) => sql`
        INSERT INTO check_results (target_id, region, checked_at, status, duration_ms, error, details,
          phases, weight_secs)
        SELECT * FROM jsonb_to_recordset(${records}::jsonb) AS r(target_id uuid,
          region text, checked_at timestamptz, status text, duration_ms double precision, error text,
          details jsonb, phases jsonb, weight_secs integer)
      `
    })

    // The rows add to what the bucket holds already, histograms bucket by bucket.
    const upsertRollups = SqlSchema.void({
      Request: Schema.Struct({ table: RollupTable, records: Schema.String }),
      execute: ({ table, records }) => sql`
        INSERT INTO ${sql(table)} AS o (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
          down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
          first_byte_n, histogram)
        SELECT r.target_id, r.region, r.bucket, r.checks, r.up, r.degraded, r.down, r.errors, r.up_secs, r.down_secs,
          r.duration_sum, r.dns_sum, r.dns_n, r.connect_sum, r.connect_n, r.tls_sum, r.tls_n, r.first_byte_sum,
          r.first_byte_n, ARRAY(SELECT jsonb_array_elements_text(r.histogram)::int)
        FROM jsonb_to_recordset(${records}::jsonb) AS r(target_id uuid, region text,
          bucket timestamptz, checks int, up int, degraded int, down int, errors int, up_secs bigint,
          down_secs bigint, duration_sum double precision, dns_sum double precision, dns_n int,
          connect_sum double precision, connect_n int, tls_sum double precision, tls_n int,
          first_byte_sum double precision, first_byte_n int, histogram jsonb)
        ON CONFLICT (target_id, region, bucket) DO UPDATE SET
          checks = o.checks + excluded.checks, up = o.up + excluded.up, degraded = o.degraded + excluded.degraded,
          down = o.down + excluded.down, errors = o.errors + excluded.errors,
          up_secs = o.up_secs + excluded.up_secs, down_secs = o.down_secs + excluded.down_secs,
          duration_sum = o.duration_sum + excluded.duration_sum,
          dns_sum = o.dns_sum + excluded.dns_sum, dns_n = o.dns_n + excluded.dns_n,
          connect_sum = o.connect_sum + excluded.connect_sum, connect_n = o.connect_n + excluded.connect_n,
          tls_sum = o.tls_sum + excluded.tls_sum, tls_n = o.tls_n + excluded.tls_n,
          first_byte_sum = o.first_byte_sum + excluded.first_byte_sum,
          first_byte_n = o.first_byte_n + excluded.first_byte_n,
          histogram = engine_histogram_add(o.histogram, excluded.histogram)
      `
    })

    // The database failing is a defect at this boundary.
    return {
      /** Runs `self` in a transaction. */
      transaction: Transaction.make(sql),
      insertResults: (records: ReadonlyArray<ResultRecord>) => Effect.orDie(insertResults(JSON.stringify(records))),
      /** Adds the rows to the table's buckets, creating the buckets not there yet. */
      upsertRollups: (table: typeof RollupTable.Type, records: ReadonlyArray<Rollup>) =>
        Effect.orDie(upsertRollups({ table, records: JSON.stringify(records) }))
    }
  })
}) {}
