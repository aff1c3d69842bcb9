import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// The monitoring engine (docs/engine.md).
//
// schedules: one row per (target, region) a probe runs for. The scheduler of a region claims its due rows with
// FOR UPDATE SKIP LOCKED and a lease (leased_until, leased_by), so any number of workers share them and a crashed
// worker's rows come back when the lease runs out. A remote region's rows are claimed the same way by that region's
// agent later. The rows follow the targets through a trigger, so no write path (single, bulk, bulk action,
// duplicate, region change, a hand edit) can leave them behind: enabled probe-able targets have one row per region;
// disabled, heartbeat and manual targets have none. The first run of a row falls on the target's phase within its
// interval (engine_phase_ms: the last 32 bits of the id, which are random in a v7 or v4 UUID), so a thousand
// monitors on one interval are spread over it instead of firing together. `held` is set by the scheduler's
// refresh for targets the plan no longer covers; last_status is the latest scheduled verdict (dashboard summary).
//
// check_results: one row per check, partitioned by day on checked_at (engine_ensure_partitions creates them ahead;
// retention drops whole partitions). The default partition only catches a write the maintenance loop did not
// foresee.
//
// result_rollups: per (target, region, hour) and per (target, region, day): counts by status, seconds weighed by
// status (time-based uptime), latency sums (total and per phase, with how many results had the phase) and a fixed log-bucket histogram (core/LatencyHistogram) that adds up
// element-wise, so quantiles over any range of buckets are computed from the merged histogram.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE schedules (
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      region text NOT NULL,
      interval_secs integer NOT NULL,
      next_run_at timestamptz NOT NULL,
      leased_until timestamptz,
      leased_by text,
      held boolean NOT NULL DEFAULT false,
      last_status text,
      PRIMARY KEY (target_id, region)
    )
  `
  yield* sql`CREATE INDEX schedules_due ON schedules (region, next_run_at) WHERE NOT held`

  yield* sql.unsafe(`
    CREATE FUNCTION engine_phase_ms(id uuid, interval_secs integer) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $$
      SELECT ('x' || right(replace(id::text, '-', ''), 8))::bit(32)::bigint % (interval_secs::bigint * 1000)
    $$
  `)
  // The first slot at or after now on the target's phase grid: epoch_ms = phase + k * interval.
  yield* sql.unsafe(`
    CREATE FUNCTION engine_first_run(id uuid, interval_secs integer, from_time timestamptz) RETURNS timestamptz
    LANGUAGE sql STABLE AS $$
      -- Whole milliseconds through an integer interval: a float division could land a microsecond off the grid.
      SELECT 'epoch'::timestamptz + ((
        engine_phase_ms(id, interval_secs)
        + ceil(
            (floor(extract(epoch FROM from_time) * 1000)::bigint - engine_phase_ms(id, interval_secs))::numeric
            / (interval_secs::bigint * 1000)
          )::bigint * (interval_secs::bigint * 1000)
      ) * interval '1 millisecond')
    $$
  `)
  yield* sql.unsafe(`
    CREATE FUNCTION engine_sync_schedules() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NOT NEW.enabled OR NEW.kind IN ('heartbeat', 'manual') THEN
        DELETE FROM schedules WHERE target_id = NEW.id;
        RETURN NULL;
      END IF;
      DELETE FROM schedules WHERE target_id = NEW.id AND NOT (region = ANY(NEW.regions));
      -- A changed interval moves the next run to the new grid when that comes sooner, so shrinking a daily check
      -- to a minute takes effect within the minute.
      UPDATE schedules SET interval_secs = NEW.interval_secs,
          next_run_at = LEAST(next_run_at, engine_first_run(NEW.id, NEW.interval_secs, now()))
        WHERE target_id = NEW.id AND interval_secs <> NEW.interval_secs;
      INSERT INTO schedules (target_id, region, interval_secs, next_run_at)
        SELECT NEW.id, r, NEW.interval_secs, engine_first_run(NEW.id, NEW.interval_secs, now())
        FROM unnest(NEW.regions) AS r
        ON CONFLICT (target_id, region) DO NOTHING;
      RETURN NULL;
    END
    $$
  `)
  yield* sql.unsafe(`
    CREATE TRIGGER targets_schedules AFTER INSERT OR UPDATE OF enabled, interval_secs, regions, kind ON targets
    FOR EACH ROW EXECUTE FUNCTION engine_sync_schedules()
  `)
  // Monitors saved before this migration.
  yield* sql`
    INSERT INTO schedules (target_id, region, interval_secs, next_run_at)
    SELECT t.id, r, t.interval_secs, engine_first_run(t.id, t.interval_secs, now())
    FROM targets t, unnest(t.regions) AS r
    WHERE t.enabled AND t.kind NOT IN ('heartbeat', 'manual')
  `

  yield* sql`
    CREATE TABLE check_results (
      target_id uuid NOT NULL,
      region text NOT NULL,
      checked_at timestamptz NOT NULL,
      status text NOT NULL CHECK (status IN ('up', 'degraded', 'down', 'error')),
      duration_ms double precision NOT NULL,
      error text,
      details jsonb,
      phases jsonb,
      weight_secs integer NOT NULL
    ) PARTITION BY RANGE (checked_at)
  `
  yield* sql`CREATE INDEX check_results_target ON check_results (target_id, checked_at DESC)`
  yield* sql`CREATE TABLE check_results_default PARTITION OF check_results DEFAULT`
  yield* sql.unsafe(`
    CREATE FUNCTION engine_ensure_partitions(days_ahead integer) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      day date;
      made integer := 0;
    BEGIN
      FOR i IN -1..days_ahead LOOP
        day := (now() AT TIME ZONE 'UTC')::date + i;
        IF to_regclass('check_results_' || to_char(day, 'YYYYMMDD')) IS NULL THEN
          EXECUTE format(
            'CREATE TABLE %I PARTITION OF check_results FOR VALUES FROM (%L) TO (%L)',
            'check_results_' || to_char(day, 'YYYYMMDD'),
            (day::timestamp AT TIME ZONE 'UTC'), ((day + 1)::timestamp AT TIME ZONE 'UTC'));
          made := made + 1;
        END IF;
      END LOOP;
      RETURN made;
    END
    $$
  `)
  // Drops the daily partitions that end at or before the cutoff; answers how many.
  yield* sql.unsafe(`
    CREATE FUNCTION engine_drop_partitions(cutoff timestamptz) RETURNS integer LANGUAGE plpgsql AS $$
    DECLARE
      part record;
      dropped integer := 0;
    BEGIN
      FOR part IN
        SELECT c.relname FROM pg_inherits i
        JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'check_results'::regclass AND c.relname ~ '^check_results_[0-9]{8}$'
      LOOP
        IF ((to_date(right(part.relname, 8), 'YYYYMMDD') + 1)::timestamp AT TIME ZONE 'UTC') <= cutoff THEN
          EXECUTE format('DROP TABLE %I', part.relname);
          dropped := dropped + 1;
        END IF;
      END LOOP;
      RETURN dropped;
    END
    $$
  `)
  yield* sql`SELECT engine_ensure_partitions(3)`

  yield* sql.unsafe(`
    CREATE FUNCTION engine_histogram_add(a integer[], b integer[]) RETURNS integer[] LANGUAGE sql IMMUTABLE AS $$
      SELECT array_agg(COALESCE(x, 0) + COALESCE(y, 0) ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS u(x, y, i)
    $$
  `)
  for (const grain of ["hourly", "daily"] as const) {
    yield* sql.unsafe(`
      CREATE TABLE result_rollups_${grain} (
        target_id uuid NOT NULL,
        region text NOT NULL,
        bucket timestamptz NOT NULL,
        checks integer NOT NULL,
        up integer NOT NULL,
        degraded integer NOT NULL,
        down integer NOT NULL,
        errors integer NOT NULL,
        up_secs bigint NOT NULL,
        down_secs bigint NOT NULL,
        duration_sum double precision NOT NULL,
        dns_sum double precision NOT NULL,
        dns_n integer NOT NULL,
        connect_sum double precision NOT NULL,
        connect_n integer NOT NULL,
        tls_sum double precision NOT NULL,
        tls_n integer NOT NULL,
        first_byte_sum double precision NOT NULL,
        first_byte_n integer NOT NULL,
        histogram integer[] NOT NULL,
        PRIMARY KEY (target_id, region, bucket)
      )
    `)
    yield* sql.unsafe(`CREATE INDEX result_rollups_${grain}_bucket ON result_rollups_${grain} (bucket)`)
  }
})
