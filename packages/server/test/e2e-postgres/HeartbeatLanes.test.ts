/**
 * Verdict-changing pings written by several lanes at once (`heartbeats.write_lanes`): first pings of many monitors
 * at once, then some monitors' pings interleaved fail / ok while the others get routine pings, on one api process
 * with four lanes. Every ping answered 200 is logged once and in order, every monitor ends with the verdict its
 * pings give, one result per verdict change and one incident per monitor that went down, and no write deadlocked or
 * failed (a failed group commit answers 500).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { eventually } from "../support/Eventually.js"
import * as Http from "../support/Http.js"
import { signIn } from "../support/Identity.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

const ADMIN = "lanes-admin-token-0123456789abcdef"
// Above the free plan's 20: raised by an operator override.
const MONITORS = 120
// Of those, the first FLAPPING go down and back up; the rest get routine pings meanwhile.
const FLAPPING = 48
const LANES = 4
// A flapping monitor's pings after its first, one at a time: down (a verdict change), a failed run while down (no
// change: queued), then a clean run (up again: a verdict change). Within the token's burst of 10.
const FLAP = ["/fail", "/1", "/0"] as const
const ROUTINE = ["", "/0"] as const

const Accounts = Schema.Struct({ data: Schema.Array(Schema.Struct({ id: Schema.String })) })

describe("heartbeat write lanes", () => {
  it.scopedLive(
    "many first pings at once, then interleaved fail / ok pings, give exactly the right verdicts, results and incidents",
    () =>
      Effect.gen(function* () {
        const smtp = yield* SmtpCatcher.make
        const db = yield* TestDatabase.acquire
        const setup = yield* TestServer.start(
          { MAIL__SMTP_URL: smtp.url, AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0", OPERATOR__ADMIN_TOKEN: ADMIN },
          db
        )
        const alice = yield* signIn(setup, smtp)
        const operator = { authorization: `Bearer ${ADMIN}` }
        const found = Http.decode(
          yield* Http.request(`${setup.baseUrl}/operator/accounts?email=${encodeURIComponent(alice.email)}`, {
            headers: operator
          }),
          Accounts
        )
        const raised = yield* Http.request(`${setup.baseUrl}/operator/accounts/${found.data[0]?.id ?? ""}/overrides`, {
          method: "PUT",
          headers: { ...operator, "content-type": "application/json" },
          body: JSON.stringify({ max_targets: MONITORS })
        })
        expect(raised.status, raised.text).toBe(200)
        const made = yield* alice.browser.request("/api/v1/targets/bulk", {
          json: {
            targets: Array.from({ length: MONITORS }, (_, i) => ({
              name: `job ${i}`,
              check: { type: "heartbeat", period: 3600, grace: 300 }
            }))
          }
        })
        expect(made.status, made.text).toBe(201)
        const rows = yield* setup.sql<{ token: string; target_id: string }>`
          SELECT token, target_id::text AS target_id FROM ping_tokens ORDER BY target_id
        `.pipe(Effect.orDie)
        expect(rows.length).toBe(MONITORS)

        const api = yield* ServerProcess.start([], {
          DATABASE_URL: db.url ?? TestDatabase.adminUrl,
          LOG__LEVEL: "info",
          ROLE: "api",
          HEARTBEATS__WRITE_LANES: String(LANES)
        })
        const ping = (token: string, suffix: string) =>
          Effect.map(Http.request(`${api.baseUrl}/ping/${token}${suffix}`), (reply) => reply.status)

        // Every monitor's first ping at once: each moves it out of pending, written before its answer.
        const first = yield* Effect.forEach(rows, (row) => ping(row.token, ""), { concurrency: "unbounded" })
        expect(first.filter((status) => status !== 200)).toEqual([])
        const states = yield* setup.sql<{ verdict: string; n: number }>`
          SELECT verdict, count(*)::int AS n FROM heartbeat_states GROUP BY verdict
        `.pipe(Effect.orDie)
        // Answered once written: no waiting for a batch.
        expect(states).toEqual([{ verdict: "up", n: MONITORS }])

        // Flapping monitors go down and up, one ping after another each, all of them at once, beside routine pings of
        // the others (queued, written by their lanes' once-a-second flush).
        const flapping = rows.slice(0, FLAPPING)
        const steady = rows.slice(FLAPPING)
        const answers = yield* Effect.all(
          [
            Effect.forEach(flapping, (row) => Effect.forEach(FLAP, (suffix) => ping(row.token, suffix)), {
              concurrency: "unbounded"
            }),
            Effect.forEach(steady, (row) => Effect.forEach(ROUTINE, (suffix) => ping(row.token, suffix)), {
              concurrency: "unbounded"
            })
          ],
          { concurrency: 2 }
        )
        expect(answers.flat(2).filter((status) => status !== 200)).toEqual([])

        // The routine pings are written within a second or so: then every ping is logged, once.
        const logged = yield* eventually(
          setup.sql<{ n: number }>`SELECT count(*)::int AS n FROM heartbeat_pings`.pipe(Effect.orDie),
          ([row]) => row?.n === MONITORS + FLAPPING * FLAP.length + steady.length * ROUTINE.length,
          { timeoutMs: 15_000, intervalMs: 100 }
        )
        expect(logged[0]?.n).toBe(MONITORS + FLAPPING * FLAP.length + steady.length * ROUTINE.length)

        // Each monitor's pings in the order they were answered.
        const sequences = yield* setup.sql<{ target_id: string; signals: string; codes: string }>`
          SELECT target_id::text AS target_id, string_agg(signal, ',' ORDER BY at, id) AS signals,
            string_agg(coalesce(exit_code::text, '-'), ',' ORDER BY at, id) AS codes
          FROM heartbeat_pings GROUP BY target_id
        `.pipe(Effect.orDie)
        const sequenceOf = new Map(sequences.map((row) => [row.target_id, `${row.signals} ${row.codes}`]))
        for (const row of flapping) {
          expect(sequenceOf.get(row.target_id), row.target_id).toBe("success,fail,fail,success -,-,1,0")
        }
        for (const row of steady)
          expect(sequenceOf.get(row.target_id), row.target_id).toBe("success,success,success -,-,0")

        // Every monitor up again, with one result per verdict change: up; or up, down, up.
        const verdicts = yield* setup.sql<{ target_id: string; verdict: string }>`
          SELECT target_id::text AS target_id, verdict FROM heartbeat_states
        `.pipe(Effect.orDie)
        expect(verdicts.filter((row) => row.verdict !== "up")).toEqual([])
        const results = yield* setup.sql<{ target_id: string; statuses: string }>`
          SELECT target_id::text AS target_id, string_agg(status, ',' ORDER BY checked_at) AS statuses
          FROM check_results GROUP BY target_id
        `.pipe(Effect.orDie)
        const resultsOf = new Map(results.map((row) => [row.target_id, row.statuses]))
        for (const row of flapping) expect(resultsOf.get(row.target_id), row.target_id).toBe("up,down,up")
        for (const row of steady) expect(resultsOf.get(row.target_id), row.target_id).toBe("up")

        // One incident for each monitor that went down, none for the others.
        const incidents = yield* setup.sql<{ target_id: string; n: number }>`
          SELECT target_id::text AS target_id, count(*)::int AS n FROM incidents GROUP BY target_id
        `.pipe(Effect.orDie)
        const incidentsOf = new Map(incidents.map((row) => [row.target_id, row.n]))
        for (const row of flapping) expect(incidentsOf.get(row.target_id), row.target_id).toBe(1)
        expect(incidents.length).toBe(FLAPPING)

        // A clean shutdown: the lanes ran (four of them), nothing was left unwritten, no write failed.
        api.child.kill("SIGTERM")
        const exit = yield* Effect.promise(() => api.exited)
        expect(exit.code, exit.stdout).toBe(0)
        expect(exit.stdout).toMatch(/Shutting down: writing the acknowledged pings.*"lanes":4/)
        expect(exit.stdout).not.toMatch(/Heartbeat pings lost at shutdown|Heartbeat pings not written|deadlock/)
      }),
    { timeout: 120_000 }
  )
})
