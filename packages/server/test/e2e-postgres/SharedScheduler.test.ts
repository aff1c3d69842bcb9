/**
 * Two worker processes on one PostgreSQL share the scheduled checks through their leases: every slot runs once.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Slots from "../../src/engine/Slots.js"
import * as CountingOrigin from "../support/CountingOrigin.js"
import { eventually } from "../support/Eventually.js"
import { signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

describe("two workers on one PostgreSQL", () => {
  it.scopedLive("no scheduled check runs twice in a slot, and none is skipped", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const origin = yield* CountingOrigin.make
      const db = yield* TestDatabase.acquire
      const env = {
        MAIL__SMTP_URL: smtp.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
        CHECKER__ALLOW_PRIVATE_TARGETS: "true",
        // Every monitor here is the same org's on the same host: past the per-host cap (2 by default) a tick is
        // dropped by design, which a loaded machine (slower checks, more of them overlapping) would turn into
        // skipped slots. The cap is not what this test is about.
        CHECKER__PER_HOST_MAX_INFLIGHT: "100",
        SCHEDULER__POLL_INTERVAL_MS: "50"
      }
      const one = yield* TestServer.start(env, db)
      const two = yield* TestServer.start(env, db)
      const alice = yield* signIn(one, smtp)
      const targets = Array.from({ length: 20 }, (_, i) => ({
        name: `t${i}`,
        enabled: false,
        check: { type: "http", url: `${origin.base}/t/${i}` }
      }))
      const bulk = yield* alice.browser.request("/api/v1/targets/bulk", { json: { targets } })
      expect(bulk.status).toBe(201)
      const ids = yield* one.sql<{ id: string; name: string }>`SELECT id::text AS id, name FROM targets`
      const idOf = new Map(ids.map((row) => [row.name, row.id]))
      // All at once, on a 1-second interval, so both workers' polls find due work every second.
      const started = Date.now()
      yield* one.sql`UPDATE targets SET interval_secs = 1, enabled = true`
      yield* Effect.sleep("5000 millis")
      yield* one.sql`UPDATE targets SET enabled = false`
      const elapsed = (Date.now() - started) / 1000
      for (let i = 0; i < 20; i++) {
        const hits = origin.hits.get(`/t/${i}`) ?? []
        const phase = Slots.phaseMs(idOf.get(`t${i}`) ?? "", 1)
        // One run per 1-second slot. A run starts no earlier than its slot, and the row's next slot is set only
        // after the run reached the origin (a release follows the run), so runs one after another always arrive in
        // different seconds of the target's grid, however late each is; two workers running one slot would arrive
        // in the same one.
        const seconds = hits.map((at) => Math.floor((at - phase) / 1000))
        expect(new Set(seconds).size, `${seconds}`).toBe(hits.length)
        // The slots in the window, plus the one a claim (up to a second ahead) may have taken just before the disable.
        expect(hits.length).toBeLessThanOrEqual(Math.floor(elapsed) + 2)
        // A slot is skipped only when its worker was behind by a whole interval (no catch-up bursts by design), which
        // a loaded machine may do now and then; a row stuck under a lease, or a claim that starves, shows far fewer.
        expect(hits.length).toBeGreaterThanOrEqual(Math.floor(elapsed) - 2)
      }
      const [stored] = yield* two.sql<{ n: number }>`SELECT count(*)::int AS n FROM check_results`
      const requests = [...origin.hits.values()].reduce((n, h) => n + h.length, 0)
      // Every run that reached the origin was stored exactly once (a run cut at the disable may still be writing).
      expect(stored?.n).toBeLessThanOrEqual(requests)
      expect(stored?.n).toBeGreaterThanOrEqual(requests - 20)
    })
  )

  it.scopedLive("each incident opens once and each notice is enqueued once, whichever worker ran the checks", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const origin = yield* CountingOrigin.make
      const db = yield* TestDatabase.acquire
      const env = {
        MAIL__SMTP_URL: smtp.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
        CHECKER__ALLOW_PRIVATE_TARGETS: "true",
        CHECKER__PER_HOST_MAX_INFLIGHT: "100",
        SCHEDULER__POLL_INTERVAL_MS: "50",
        INCIDENTS__TICK_INTERVAL_SECS: "1"
      }
      const one = yield* TestServer.start(env, db)
      const two = yield* TestServer.start(env, db)
      const alice = yield* signIn(one, smtp)
      // Ten monitors of an origin answering 500: each must open exactly one incident, with one opening notice.
      const targets = Array.from({ length: 10 }, (_, i) => ({
        name: `down-${i}`,
        enabled: false,
        check: { type: "http", url: `${origin.base}/status/500/${i}` },
        recovery_period_secs: 0
      }))
      expect((yield* alice.browser.request("/api/v1/targets/bulk", { json: { targets } })).status).toBe(201)
      yield* one.sql`UPDATE targets SET interval_secs = 1, enabled = true`
      const openedPerTarget = two.sql<{ target_id: string; n: number }>`
        SELECT target_id::text AS target_id, count(*)::int AS n FROM incidents GROUP BY target_id
      `
      // Every monitor's incident opened (confirmations take a few runs; a loaded machine takes longer), then a few
      // more runs while the origin stays down, which must open nothing more.
      yield* eventually(openedPerTarget, (rows) => rows.length === 10, { timeoutMs: 40_000 })
      yield* Effect.sleep("2000 millis")
      yield* one.sql`UPDATE targets SET enabled = false`
      const incidents = yield* openedPerTarget
      expect(incidents).toHaveLength(10)
      expect(incidents.every((row) => row.n === 1)).toBe(true)
      const notices = yield* two.sql<{ kind: string; n: number }>`
        SELECT kind, count(*)::int AS n FROM notices GROUP BY kind
      `
      expect(notices).toEqual([{ kind: "opened", n: 10 }])
    })
  )
})
