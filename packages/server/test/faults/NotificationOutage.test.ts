/**
 * Fault: a notification endpoint answering 500 for ten minutes (issue 20; docs/faults.md, "A notification endpoint
 * answering 500").
 *
 * The server runs as its own process. 20 monitors of one loopback origin that answers 500 go down together, and each
 * opens an incident whose opening goes to two webhook channels (40 deliveries in flight at once):
 * - "outage": its endpoint answers 500 to every attempt of a delivery for ten minutes from the first, then 200. Each
 *   delivery is retried with backoff, and its last attempt (`notifier.max_attempts`) dead-letters it: the delivery
 *   log (`GET /api/v1/incidents/{id}/deliveries`) shows it `dead` with its attempts and the last error, and the
 *   endpoint, back after ten minutes, gets nothing more.
 * - "recovering": its endpoint answers 500 to the first three attempts of a delivery, then 200 (it is back within
 *   the retry cap): each delivery is received once with a 2xx, on its fourth attempt, and never again; the log
 *   shows it `delivered` after 4 attempts.
 * The delays between attempts grow: each is at least half its ceiling (the backoff's floor), and the mean delay
 * grows from one attempt to the next by at least a quarter of the earlier ceiling (3/4 of it is expected).
 *
 * Time scaling: the notifier's schedule is run 60 times faster than its defaults, same shape: `notifier.
 * backoff_base_ms` 500 (30 s / 60), `notifier.backoff_cap_ms` 60 000 (1 h / 60), and "ten minutes" is 10 s. The
 * notifier polls every 20 ms (its default second would blur delays of half a second). `notifier.max_attempts` is 5,
 * not the default 12 (about seven hours): a deployment that gives up within ten minutes. At full scale that is a
 * last attempt between 3.75 and 7.5 minutes after the first (delays of 15-30 s, 30-60 s, 1-2 min, 2-4 min).
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import { PgClient } from "@effect/sql-pg"
import { describe, expect, it } from "@effect/vitest"
import { DeliveryLog, IncidentPage } from "@signalman/core/api/Incidents"
import { CreatedChannel } from "@signalman/core/Channel"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { eventually } from "../support/Eventually.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Http from "../support/Http.js"
import { signIn, uniqueEmail } from "../support/Identity.js"
import * as ServerProcess from "../support/ServerProcess.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** The notifier's clock runs this many times faster than its defaults. */
const SCALE = 60
const BASE_MS = 30_000 / SCALE
const CAP_MS = 3_600_000 / SCALE
const TEN_MINUTES_MS = 600_000 / SCALE
const MAX_ATTEMPTS = 5
const MONITORS = 20
/** Attempts the recovering endpoint fails before it answers 200. */
const FAILED_BEFORE_RECOVERY = 3

/** The ceiling of the delay after failed attempt `n` (from 1): docs/notifications.md, "How a notification travels". */
const ceilingMs = (n: number) => Math.min(CAP_MS, BASE_MS * 2 ** (n - 1))

/** One request an endpoint got, with what it answered. */
interface Attempt {
  readonly delivery: string
  readonly event: string
  readonly eventId: string
  readonly at: number
  readonly status: number
}

/**
 * A webhook endpoint answering each request with `status(earlier attempts of its delivery, the first one's time, now)`:
 * per delivery (its `X-Signalman-Delivery` header), so deliveries in flight at once each see the same endpoint.
 */
const endpoint = (status: (previous: number, firstAt: number, at: number) => number) =>
  Effect.gen(function* () {
    const attempts: Array<Attempt> = []
    const receiver = yield* FakeReceiver.make((request) => {
      const delivery = String(request.headers["x-signalman-delivery"] ?? "")
      const earlier = attempts.filter((a) => a.delivery === delivery)
      const answer = status(earlier.length, earlier[0]?.at ?? request.at, request.at)
      const body: unknown = JSON.parse(request.body)
      const eventId = typeof body === "object" && body !== null && "id" in body ? String(body.id) : ""
      attempts.push({
        delivery,
        event: String(request.headers["x-signalman-event"] ?? ""),
        eventId,
        at: request.at,
        status: answer
      })
      return { status: answer, body: answer === 200 ? "ok" : "unavailable" }
    })
    const byDelivery = () => {
      const grouped = new Map<string, Array<Attempt>>()
      for (const a of attempts) grouped.set(a.delivery, [...(grouped.get(a.delivery) ?? []), a])
      return grouped
    }
    return { url: receiver.url, attempts: () => [...attempts], byDelivery }
  })

/** The delays between one delivery's attempts, in arrival order. */
const gapsOf = (list: ReadonlyArray<Attempt>) => list.slice(1).map((a, i) => a.at - (list[i]?.at ?? a.at))

describe("a notification endpoint answering 500", () => {
  it.scopedLive(
    "for ten minutes: retried with backoff, then dead-lettered in the delivery log; one back within the cap gets each delivery once",
    () =>
      Effect.gen(function* () {
        const smtp = yield* SmtpCatcher.make
        const db = yield* TestDatabase.acquire
        // The monitored service: down throughout.
        const origin = yield* FakeReceiver.make(() => ({ status: 500, body: "down" }))
        const outage = yield* endpoint((_, firstAt, at) => (at < firstAt + TEN_MINUTES_MS ? 500 : 200))
        const recovering = yield* endpoint((previous) => (previous < FAILED_BEFORE_RECOVERY ? 500 : 200))
        const server = yield* ServerProcess.start([], {
          ...db.env,
          LOG__LEVEL: "info",
          MAIL__SMTP_URL: smtp.url,
          AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
          CHECKER__ALLOW_PRIVATE_TARGETS: "true",
          CHECKER__BROWSER_PATH: "none",
          CHECKER__PER_HOST_MAX_INFLIGHT: "1000",
          SCHEDULER__POLL_INTERVAL_MS: "100",
          INCIDENTS__TICK_INTERVAL_SECS: "1",
          NOTIFIER__POLL_INTERVAL_MS: "20",
          NOTIFIER__CONCURRENCY: "40",
          NOTIFIER__BACKOFF_BASE_MS: String(BASE_MS),
          NOTIFIER__BACKOFF_CAP_MS: String(CAP_MS),
          NOTIFIER__MAX_ATTEMPTS: String(MAX_ATTEMPTS)
        })
        const sql = yield* PgClient.make({
          url: Redacted.make(db.url ?? TestDatabase.adminUrl),
          maxConnections: 2
        }).pipe(Effect.provide(Reactivity.layer))
        const email = uniqueEmail("outage")
        const person = yield* signIn(server, smtp, email)
        yield* sql`UPDATE accounts SET plan_id = 'pro' WHERE id = (SELECT account_id FROM users WHERE email = ${email})`

        const channel = (name: string, url: string) =>
          Effect.map(
            person.browser.request("/api/v1/channels", { json: { name, kind: "webhook", config: { url } } }),
            (reply) => Http.expectOk(reply, CreatedChannel, 201)
          )
        const dead = yield* channel("outage", `${outage.url}/hook`)
        const back = yield* channel("recovering", `${recovering.url}/hook`)
        const targets = yield* Effect.forEach(
          Array.from({ length: MONITORS }, (_, i) => i),
          (i) =>
            Effect.map(
              person.browser.request("/api/v1/targets", {
                json: {
                  name: `down-${i}`,
                  enabled: false,
                  check: { type: "http", url: `${origin.url}/down/${i}`, timeout: 10 },
                  alert_confirmations: 1,
                  alerts: [{ channel_id: dead.id }, { channel_id: back.id }]
                }
              }),
              (reply) => Http.expectOk(reply, Target, 201).id
            )
        )
        // Checked every second (by hand: the API's floor is far above), all at once.
        yield* sql`UPDATE targets SET interval_secs = 1, enabled = true WHERE id IN ${sql.in(targets)}`

        // Every monitor's incident opens, and both channels get its opening.
        const incidents = yield* eventually(
          Effect.map(
            person.browser.request("/api/v1/incidents?status=open&limit=100"),
            (reply) => Http.expectOk(reply, IncidentPage).data
          ),
          (list) => list.length === MONITORS,
          { timeoutMs: 60_000, intervalMs: 500 }
        )
        expect(incidents).toHaveLength(MONITORS)
        // Each outage delivery is tried up to the cap, each recovering one until it is taken.
        const settled = yield* eventually(
          Effect.sync(() => ({ dead: outage.byDelivery(), back: recovering.byDelivery() })),
          ({ back, dead }) =>
            dead.size === MONITORS &&
            [...dead.values()].every((list) => list.length === MAX_ATTEMPTS) &&
            back.size === MONITORS &&
            [...back.values()].every((list) => list.some((a) => a.status === 200)),
          { timeoutMs: 90_000, intervalMs: 200 }
        )
        expect(settled.dead.size).toBe(MONITORS)
        expect(settled.back.size).toBe(MONITORS)

        // The outage's ten minutes end for every delivery; then a while longer (at least the next delay there would
        // have been): nothing dead is tried again, nothing delivered is sent again.
        const lastFirst = Math.max(...[...settled.dead.values()].map((list) => list[0]?.at ?? 0))
        const quietUntil = Math.max(lastFirst + TEN_MINUTES_MS, Date.now()) + ceilingMs(MAX_ATTEMPTS)
        yield* Effect.sleep(`${quietUntil - Date.now()} millis`)

        const deadAttempts = outage.byDelivery()
        const backAttempts = recovering.byDelivery()
        expect(deadAttempts.size).toBe(MONITORS)
        expect(backAttempts.size).toBe(MONITORS)
        // Mean delay before attempt n+1, across the deliveries of both channels (while both fail alike).
        const sums = Array.from({ length: MAX_ATTEMPTS - 1 }, () => ({ total: 0, count: 0 }))
        const gapsChecked = (list: ReadonlyArray<Attempt>, label: string) => {
          gapsOf(list).forEach((gap, i) => {
            const n = i + 1
            // At least half the ceiling after failed attempt n: the backoff's floor (the next attempt is due that
            // long after the failure was recorded, which came after the request arrived)...
            expect(gap, `${label} delay after attempt ${n}`).toBeGreaterThanOrEqual(ceilingMs(n) / 2)
            // ...and not far past the ceiling (a poll and a loaded machine's lag).
            expect(gap, `${label} delay after attempt ${n}`).toBeLessThan(ceilingMs(n) + 3000)
            const sum = sums[i]
            if (sum !== undefined) {
              sum.total += gap
              sum.count++
            }
          })
        }
        for (const [id, list] of deadAttempts) {
          // Exactly the cap, every one refused, all of one event: no attempt after the dead letter, even with the
          // endpoint back.
          expect(list, id).toHaveLength(MAX_ATTEMPTS)
          expect(list.every((a) => a.status === 500)).toBe(true)
          expect(new Set(list.map((a) => a.eventId)).size).toBe(1)
          expect(list.every((a) => a.event === "incident.opened")).toBe(true)
          gapsChecked(list, `outage ${id}`)
        }
        for (const [id, list] of backAttempts) {
          // Three refused, then one accepted, and nothing after it: exactly one delivery received.
          expect(
            list.map((a) => a.status),
            id
          ).toEqual([500, 500, 500, 200])
          expect(new Set(list.map((a) => a.eventId)).size).toBe(1)
          expect(list.every((a) => a.event === "incident.opened")).toBe(true)
          gapsChecked(list, `recovering ${id}`)
        }
        // One event per incident on each channel, the same event on both.
        const events = (byDelivery: ReadonlyMap<string, ReadonlyArray<Attempt>>) =>
          [...byDelivery.values()].map((list) => list[0]?.eventId ?? "").sort()
        expect(new Set(events(deadAttempts)).size).toBe(MONITORS)
        expect(events(backAttempts)).toEqual(events(deadAttempts))
        // The delays grow: the mean delay after attempt n is about 3/4 of its ceiling (plus the machine's lag, a few
        // hundred ms when loaded), so from one attempt to the next it grows by about 3/4 of the earlier ceiling;
        // at least a quarter of it is asked.
        const means = sums.filter((s) => s.count > 0).map((s) => s.total / s.count)
        expect(means).toHaveLength(MAX_ATTEMPTS - 1)
        means.slice(1).forEach((mean, i) => {
          expect(
            mean - (means[i] ?? 0),
            `mean delay after attempt ${i + 2} against ${i + 1}: ${means}`
          ).toBeGreaterThan(ceilingMs(i + 1) / 4)
        })

        // The delivery log says the same: per incident, the outage channel's delivery dead after the cap with the
        // endpoint's last error, the recovering one delivered on its fourth attempt.
        for (const incident of incidents) {
          const log = Http.expectOk(
            yield* person.browser.request(`/api/v1/incidents/${incident.id}/deliveries`),
            DeliveryLog
          ).data
          expect(log, incident.id).toHaveLength(2)
          const toDead = log.find((d) => d.channel.id === dead.id)
          const toBack = log.find((d) => d.channel.id === back.id)
          expect(toDead?.notice_kind).toBe("opened")
          expect(toDead?.status).toBe("dead")
          expect(toDead?.attempts).toBe(MAX_ATTEMPTS)
          expect(toDead?.last_status_code).toBe(500)
          expect(toDead?.last_error).toMatch(/^HTTP 500/)
          expect(toDead?.delivered_at).toBeNull()
          expect(deadAttempts.get(toDead?.id ?? "")).toHaveLength(MAX_ATTEMPTS)
          expect(toBack?.status).toBe("delivered")
          expect(toBack?.attempts).toBe(FAILED_BEFORE_RECOVERY + 1)
          expect(toBack?.delivered_at).not.toBeNull()
          expect(backAttempts.get(toBack?.id ?? "")).toHaveLength(FAILED_BEFORE_RECOVERY + 1)
        }
      }),
    240_000
  )
})
