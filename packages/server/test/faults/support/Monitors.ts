/**
 * Monitors for a fault test and what was stored for them: http monitors on a loopback origin (made disabled, then
 * enabled on a short interval by a hand edit, since the API's floor is far above what a test can wait for),
 * heartbeat monitors with their ping URLs, and reads of the results, pings and incidents stored for each.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { TargetBatch } from "@signalman/core/api/Targets"
import { HeartbeatRecord } from "@signalman/core/heartbeat/HeartbeatRecord"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Slots from "../../../src/engine/Slots.js"
import * as Http from "../../support/Http.js"
import type { Person } from "../../support/Identity.js"

export interface HttpMonitor {
  readonly id: string
  /** The path it requests at the origin. */
  readonly path: string
}

export interface Heartbeat {
  readonly id: string
  /** The ping URL's path (`/ping/<token>`), to be sent to any api process. */
  readonly pingPath: string
}

/** http monitors of `origin` at `paths`, made disabled in one bulk create; `recovery_period_secs` 0 when asked. */
export const http = (person: Person, origin: string, paths: ReadonlyArray<string>, timeoutSecs = 10) =>
  Effect.gen(function* () {
    const targets = paths.map((path) => ({
      name: path,
      enabled: false,
      check: { type: "http", url: `${origin}${path}`, timeout: timeoutSecs },
      recovery_period_secs: 0
    }))
    const made = Http.expectOk(
      yield* person.browser.request("/api/v1/targets/bulk", { json: { targets } }),
      TargetBatch,
      201
    )
    return made.data.map((target, i): HttpMonitor => ({ id: target.id, path: paths[i] ?? "" }))
  })

/** Heartbeat monitors, one create each (a single create mints the ping URL at once; a bulk one within 30 s). */
export const heartbeats = (person: Person, count: number, periodSecs = 300, graceSecs = 300) =>
  Effect.forEach(
    Array.from({ length: count }, (_, i) => i),
    (i) =>
      Effect.gen(function* () {
        const made = Http.expectOk(
          yield* person.browser.request("/api/v1/targets", {
            json: { name: `heartbeat-${i}`, check: { type: "heartbeat", period: periodSecs, grace: graceSecs } }
          }),
          Target,
          201
        )
        const record = Http.expectOk(
          yield* person.browser.request(`/api/v1/targets/${made.id}/heartbeat`),
          HeartbeatRecord
        )
        return { id: made.id, pingPath: new URL(record.ping_url).pathname } satisfies Heartbeat
      })
  )

const ids = (list: ReadonlyArray<{ readonly id: string }>) => list.map((m) => m.id)

/** Enables the monitors on `intervalSecs` (a hand edit below the API's floor). */
export const enable = (sql: SqlClient.SqlClient, list: ReadonlyArray<HttpMonitor>, intervalSecs: number) =>
  Effect.orDie(sql`UPDATE targets SET interval_secs = ${intervalSecs}, enabled = true WHERE id IN ${sql.in(ids(list))}`)

export const disable = (sql: SqlClient.SqlClient, list: ReadonlyArray<HttpMonitor>) =>
  Effect.orDie(sql`UPDATE targets SET enabled = false WHERE id IN ${sql.in(ids(list))}`)

/** A stored result: its monitor, and when it was checked (epoch ms, to the millisecond). */
export interface StoredResult {
  readonly target_id: string
  readonly checked_ms: number
}

/** Every result stored for the monitors, oldest first. */
export const results = (sql: SqlClient.SqlClient, list: ReadonlyArray<{ readonly id: string }>) =>
  Effect.map(
    Effect.orDie(sql<{ target_id: string; checked_ms: number }>`
      SELECT target_id::text AS target_id, round(extract(epoch FROM checked_at) * 1000)::float8 AS checked_ms
      FROM check_results WHERE target_id IN ${sql.in(ids(list))} ORDER BY checked_at
    `),
    (rows) => rows.map((row): StoredResult => ({ target_id: row.target_id, checked_ms: Number(row.checked_ms) }))
  )

/** How many of `rows` each monitor has, by id (0 for none). */
export const countBy = (
  list: ReadonlyArray<{ readonly id: string }>,
  rows: ReadonlyArray<{ readonly target_id: string }>
): Map<string, number> => {
  const counts = new Map(list.map((m) => [m.id, 0]))
  for (const row of rows) counts.set(row.target_id, (counts.get(row.target_id) ?? 0) + 1)
  return counts
}

/** The pings stored for each heartbeat monitor, by id. */
export const storedPings = (sql: SqlClient.SqlClient, list: ReadonlyArray<Heartbeat>) =>
  Effect.map(
    Effect.orDie(sql<{ target_id: string }>`
      SELECT target_id::text AS target_id FROM heartbeat_pings WHERE target_id IN ${sql.in(ids(list))}
    `),
    (rows) => countBy(list, rows)
  )

/** The incidents opened for each monitor (monitor-opened ones), by id, with whether each is still open. */
export const incidents = (sql: SqlClient.SqlClient, list: ReadonlyArray<{ readonly id: string }>) =>
  Effect.orDie(sql<{ target_id: string; open: boolean; started_ms: number }>`
    SELECT target_id::text AS target_id, ended_at IS NULL AS open,
      round(extract(epoch FROM started_at) * 1000)::float8 AS started_ms
    FROM incidents WHERE origin = 'monitor' AND target_id IN ${sql.in(ids(list))}
  `)

/**
 * The slot of the monitor's grid an arrival at the origin belongs to (`phase + k · interval`, Slots.phaseMs). A run
 * starts no earlier than its slot, and the row's next slot is set only after its run reached the origin, so runs
 * one after another arrive in different slots however late each is: two arrivals in one slot are one slot run twice.
 */
export const slotOf = (monitorId: string, intervalSecs: number, atMs: number): number =>
  Math.floor((atMs - Slots.phaseMs(monitorId, intervalSecs)) / (intervalSecs * 1000))

/** Arrivals that share a slot with an earlier one: slots run twice (empty when none was). */
export const doubledSlots = (monitorId: string, intervalSecs: number, arrivals: ReadonlyArray<number>) => {
  const seen = new Set<number>()
  const doubled: Array<number> = []
  for (const at of arrivals) {
    const slot = slotOf(monitorId, intervalSecs, at)
    if (seen.has(slot)) doubled.push(slot)
    seen.add(slot)
  }
  return doubled
}
