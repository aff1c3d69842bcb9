/**
 * Two worker processes on one PostgreSQL walk one incident's escalation policy with their own walker loops: every
 * page is sent once, to the channel once, whichever worker claimed it.
 */
import { describe, expect, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { eventually } from "../support/Eventually.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import { signIn } from "../support/Identity.js"
import * as IncidentWriting from "../support/IncidentWriting.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

const Id = Schema.Struct({ id: Schema.String })

const Event = Schema.parseJson(
  Schema.Struct({
    type: Schema.String,
    escalation: Schema.Struct({ page: Schema.Int, round: Schema.Int, step: Schema.Int })
  })
)

describe("two workers on one PostgreSQL", () => {
  it.scopedLive("walk one incident's escalation policy: one page per step, each delivered once", () =>
    Effect.gen(function* () {
      const smtp = yield* SmtpCatcher.make
      const receiver = yield* FakeReceiver.make(() => ({ status: 200 }))
      const db = yield* TestDatabase.acquire
      const env = {
        MAIL__SMTP_URL: smtp.url,
        AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
        CHECKER__ALLOW_PRIVATE_TARGETS: "true",
        NOTIFIER__POLL_INTERVAL_MS: "50",
        // Both workers' walker loops pass every second.
        INCIDENTS__TICK_INTERVAL_SECS: "1"
      }
      const one = yield* TestServer.start(env, db)
      const two = yield* TestServer.start(env, db)
      const alice = yield* signIn(one, smtp)
      // A plan with on-call, set before any request has read (and cached) the plan.
      yield* one.sql`
        UPDATE accounts SET plan_id = 'pro' WHERE id = (SELECT account_id FROM users WHERE email = ${alice.email})
      `
      const channel = yield* alice.browser.request("/api/v1/channels", {
        json: { name: "pager", kind: "webhook", config: { url: `${receiver.url}/pager` } }
      })
      expect(channel.status, channel.text).toBe(201)
      const channelId = Schema.decodeUnknownSync(Id)(channel.json)
      const created = yield* alice.browser.request("/api/v1/targets", {
        json: {
          name: "api",
          enabled: false,
          alert_confirmations: 1,
          check: { type: "http", url: "https://api.example.com" }
        }
      })
      expect(created.status, created.text).toBe(201)
      const targetId = Schema.decodeUnknownSync(Id)(created.json).id

      // Three steps to the channel, walked twice: six pages at 0, 5, 10, 10, 15 and 20 minutes. The incident opened
      // half an hour ago, so all six are due and the two workers race for each.
      const step = (delay_minutes: number) => ({ delay_minutes, targets: [{ type: "channel", id: channelId.id }] })
      const policy = yield* alice.browser.request("/api/v1/oncall/escalation-policies", {
        json: { name: "pager twice", steps: [step(0), step(5), step(5)], repeat: 1 }
      })
      expect(policy.status, policy.text).toBe(201)
      const bound = yield* alice.browser.request(`/api/v1/targets/${targetId}`, {
        method: "PATCH",
        json: { escalation_policy_id: Schema.decodeUnknownSync(Id)(policy.json).id }
      })
      expect(bound.status, bound.text).toBe(200)
      const writer = yield* IncidentWriting.writer(one)
      const opened = DateTime.subtract(DateTime.unsafeNow(), { minutes: 30 })
      yield* writer.observe(
        targetId,
        { _tag: "Result", region: "local", status: "down", error: "timeout", checked_at: opened },
        { now: opened }
      )

      const walk = two.sql<{ stop_reason: string | null }>`
        SELECT e.stop_reason FROM incident_escalations e JOIN incidents i ON i.id = e.incident_id
        WHERE i.target_id = ${targetId}
      `
      const [done] = yield* eventually(walk, (rows) => rows[0]?.stop_reason === "exhausted", { timeoutMs: 40_000 })
      expect(done?.stop_reason).toBe("exhausted")
      const pages = yield* two.sql<{ n: number; round: number; step: number; deliveries: number }>`
        SELECT p.n, p.round, p.step, count(d.id)::int AS deliveries
        FROM escalation_pages p JOIN incidents i ON i.id = p.incident_id
          LEFT JOIN deliveries d ON d.notice_id = p.notice_id
        WHERE i.target_id = ${targetId}
        GROUP BY p.n, p.round, p.step ORDER BY p.n
      `
      expect(pages).toEqual([
        { n: 1, round: 1, step: 1, deliveries: 1 },
        { n: 2, round: 1, step: 2, deliveries: 1 },
        { n: 3, round: 1, step: 3, deliveries: 1 },
        { n: 4, round: 2, step: 1, deliveries: 1 },
        { n: 5, round: 2, step: 2, deliveries: 1 },
        { n: 6, round: 2, step: 3, deliveries: 1 }
      ])
      const [notices] = yield* one.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM notices WHERE target_id = ${targetId} AND kind = 'escalation'
      `
      expect(notices?.n).toBe(6)
      // Every delivery reached the receiver once: six requests, six pages, no repeat.
      const received = yield* receiver.waitFor(6)
      const delivered = yield* eventually(
        one.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM deliveries d JOIN notices n ON n.id = d.notice_id
          WHERE n.target_id = ${targetId} AND n.kind = 'escalation' AND d.status = 'delivered'
        `,
        (rows) => rows[0]?.n === 6
      )
      expect(delivered[0]?.n).toBe(6)
      expect(receiver.received()).toHaveLength(6)
      const events = received.map((r) => Schema.decodeUnknownSync(Event)(r.body))
      expect(events.every((e) => e.type === "incident.escalation")).toBe(true)
      expect(events.map((e) => e.escalation.page).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6])
      expect(new Set(received.map((r) => r.headers["x-signalman-delivery"])).size).toBe(6)
    })
  )
})
