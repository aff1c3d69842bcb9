/**
 * Escalation walks end to end: an incident opened on a monitor with an escalation policy walks the policy, each page
 * written to the outbox and delivered for real (mail to people through the SMTP catcher, a webhook channel to a fake
 * receiver); acknowledging, resolving or recovering stops the walk; a schedule step pages whoever is on call at that
 * moment (across a handoff) and records nobody on call; a member who left and a disabled channel are recorded; two walkers at once
 * send each page once; the incident's answer and timeline show it all.
 *
 * The incident writer and the walker are driven here with explicit clock times (the server's own loops are off), so
 * the test alone says when time moves. Schedules and policies are made and bound through the on-call API.
 */
import { expect } from "@effect/vitest"
import { DeliveryLog, IncidentDetail, IncidentPage } from "@signalman/core/api/Incidents"
import { CreatedChannel } from "@signalman/core/Channel"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { eventually } from "../support/Eventually.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as IncidentWriting from "../support/IncidentWriting.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

// No background clock: the incident engine's ticks and the walker's passes run only when a test says. The notifier
// runs, so pages are delivered for real; webhooks go to a receiver on loopback.
const settings = {
  INCIDENTS__TICK_INTERVAL_SECS: "0",
  NOTIFIER__POLL_INTERVAL_MS: "50",
  CHECKER__ALLOW_PRIVATE_TARGETS: "true"
}

/** The writer and the walker as a worker runs them, over the server's own database client. */
const services = Effect.gen(function* () {
  const server = yield* Fixture.server
  return { server, writer: yield* IncidentWriting.writer(server), walker: yield* IncidentWriting.walker(server) }
})

type Services = Effect.Effect.Success<typeof services>

/** Alice (the org's owner, on a plan with on-call) and Bob, a member of her org. */
const team = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice", plan: "pro" })
  const bob = yield* Fixture.person({ label: "bob" })
  // Joining by invitation is tested elsewhere; here Bob is simply made a member.
  yield* server.sql`
    INSERT INTO memberships (org_id, user_id, role) VALUES (${alice.org.id}, ${bob.userId}, 'member')
  `.pipe(Effect.orDie)
  return { alice, bob }
})

interface StepBody {
  readonly delay_minutes: number
  readonly targets: ReadonlyArray<{ readonly type: "user" | "schedule" | "channel"; readonly id: string }>
}

const Created = Schema.Struct({ id: Schema.String })

const created = (person: Person, path: string, json: unknown) =>
  Effect.map(person.browser.request(path, { json }), (reply) => Http.expectOk(reply, Created, 201).id)

/** A policy made through the on-call API and bound to the monitor with a PATCH. */
const bindPolicy = (person: Person, targetId: string, steps: ReadonlyArray<StepBody>, repeat = 0) =>
  Effect.gen(function* () {
    const id = yield* created(person, "/api/v1/oncall/escalation-policies", {
      name: "Primary escalation",
      steps,
      repeat
    })
    const bound = yield* person.browser.request(`/api/v1/targets/${targetId}`, {
      method: "PATCH",
      json: { escalation_policy_id: id }
    })
    expect(bound.status, bound.text).toBe(200)
    return id
  })

/** A schedule in Berlin time made through the on-call API. */
const schedule = (person: Person, name: string, layers: ReadonlyArray<unknown>) =>
  created(person, "/api/v1/oncall/schedules", { name, time_zone: "Europe/Berlin", layers })

const createTarget = (person: Person) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: {
        name: "shop",
        alert_confirmations: 1,
        recovery_period_secs: 0,
        check: { type: "http", url: "https://shop.example.com" }
      }
    }),
    (reply) => Http.expectOk(reply, Target, 201)
  )

const webhook = (person: Person, url: string) =>
  Effect.map(
    person.browser.request("/api/v1/channels", { json: { name: "ops hook", kind: "webhook", config: { url } } }),
    (reply) => Http.expectOk(reply, CreatedChannel, 201)
  )

const down = (at: DateTime.Utc) => ({
  _tag: "Result" as const,
  region: "local",
  status: "down" as const,
  error: "connection refused",
  checked_at: at
})

/** Opens the monitor's incident at `at` and answers its id. */
const open = (s: Services, person: Person, targetId: string, at: DateTime.Utc) =>
  Effect.gen(function* () {
    yield* s.writer.observe(targetId, down(at), { now: at })
    const page = Http.wire(yield* person.browser.request(`/api/v1/incidents?target_id=${targetId}`), IncidentPage)
    const id = page.data[0]?.id
    if (id === undefined) return yield* Effect.dieMessage("no incident opened")
    return id
  })

const detail = (person: Person, id: string) =>
  Effect.map(person.browser.request(`/api/v1/incidents/${id}`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Http.wire(reply, IncidentDetail)
  })

const notes = (incident: typeof IncidentDetail.Encoded) =>
  incident.updates.filter((u) => u.message.startsWith("Escalation")).map((u) => u.message)

const pagesOf = (server: TestServer.Running, incidentId: string) =>
  Effect.orDie(server.sql<{ n: number; kind: string; dedupe_key: string }>`
    SELECT p.n, n.kind, n.dedupe_key FROM escalation_pages p LEFT JOIN notices n ON n.id = p.notice_id
    WHERE p.incident_id = ${incidentId} ORDER BY p.n
  `)

const JsonObject = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

// Every test has a day of its own on the synthetic clock (March 2025) and leaves its walks stopped, so one test's
// walker passes never find another's walk due.
const day = (d: number, time: string) => DateTime.unsafeMake(`2025-03-${String(d).padStart(2, "0")}T${time}Z`)

Fixture.describe(`escalation walks (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.scoped("three steps: the first page is not acknowledged, the second is, and the third is never sent", () =>
    Effect.gen(function* () {
      const s = yield* services
      const { alice, bob } = yield* team
      const receiver = yield* FakeReceiver.make(() => ({ status: 200 }))
      const hook = yield* webhook(alice, `${receiver.url}/hook`)
      const target = yield* createTarget(alice)
      const t0 = day(3, "10:00:00.000")
      const policyId = yield* bindPolicy(alice, target.id, [
        { delay_minutes: 0, targets: [{ type: "user", id: alice.userId }] },
        { delay_minutes: 10, targets: [{ type: "channel", id: hook.id }] },
        { delay_minutes: 10, targets: [{ type: "user", id: bob.userId }] }
      ])
      const id = yield* open(s, alice, target.id, t0)

      // Opened: the walk waits for its first page, due at once.
      const opened = yield* detail(alice, id)
      expect(opened.escalation).toMatchObject({
        policy_id: policyId,
        policy_name: "Primary escalation",
        status: "active",
        stopped_at: null,
        current: null,
        next: { page: 1, round: 1, step: 1, due_at: DateTime.formatIso(t0) },
        pages: []
      })

      // Step 1: Alice is mailed; the walk moves on to step 2, due ten minutes later.
      expect(yield* s.walker.walkDue({ now: t0 })).toBe(1)
      const first = yield* detail(alice, id)
      expect(first.escalation?.current).toEqual({ page: 1, round: 1, step: 1 })
      expect(first.escalation?.next).toEqual({
        page: 2,
        round: 1,
        step: 2,
        due_at: DateTime.formatIso(DateTime.add(t0, { minutes: 10 }))
      })
      expect(first.escalation?.pages).toEqual([
        {
          page: 1,
          round: 1,
          step: 1,
          due_at: DateTime.formatIso(t0),
          paged_at: DateTime.formatIso(t0),
          recipients: [
            { target: { type: "user", id: alice.userId }, outcome: "paged", user_id: alice.userId, channel_id: null }
          ]
        }
      ])
      expect(notes(first)).toEqual([`Escalation step 1: ${alice.email}`])
      const smtp = yield* Fixture.smtp
      // Her sign-in link, then the page.
      const mails = yield* Effect.promise(() => smtp.waitFor(alice.email, 2))
      const paged = mails.filter((m) => m.subject.includes("you are paged"))
      expect(paged.map((m) => m.subject)).toEqual(["[Signalman] shop is down: you are paged"])
      expect(paged[0]?.text).toContain("Incident #1 is not acknowledged: escalation page (step 1, round 1).")

      // Not yet due a minute early; due at ten minutes: the webhook channel gets the page as an event.
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { minutes: 9 }) })).toBe(0)
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { minutes: 10 }) })).toBe(1)
      const [event] = yield* receiver.waitFor(1)
      const body = Schema.decodeUnknownSync(JsonObject)(event?.body)
      expect(event?.headers["x-signalman-event"]).toBe("incident.escalation")
      expect(body).toMatchObject({
        type: "incident.escalation",
        target: { id: target.id, name: "shop", type: "http" },
        incident: { id, number: 1, ended_at: null, impact: "major_outage" },
        reminder: null,
        escalation: { page: 2, round: 1, step: 2 }
      })

      // Acknowledged after the second page: the walk stops, and the third page never goes out.
      const ack = yield* alice.browser.request(`/api/v1/incidents/${id}/acknowledge`, { method: "POST" })
      expect(ack.status, ack.text).toBe(200)
      const acknowledged = Http.wire(ack, IncidentDetail)
      expect(acknowledged.escalation).toMatchObject({ status: "acknowledged", next: null })
      expect(acknowledged.escalation?.stopped_at).not.toBeNull()
      expect(acknowledged.escalation?.current).toEqual({ page: 2, round: 1, step: 2 })
      expect(notes(acknowledged)).toEqual([
        `Escalation step 1: ${alice.email}`,
        "Escalation step 2: channel ops hook",
        "Escalation stopped: the incident was acknowledged"
      ])
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { minutes: 20 }) })).toBe(0)
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { hours: 5 }) })).toBe(0)
      expect((yield* pagesOf(s.server, id)).map((p) => [p.n, p.kind, p.dedupe_key])).toEqual([
        [1, "escalation", "incident/1/escalation/1"],
        [2, "escalation", "incident/1/escalation/2"]
      ])
      expect(smtp.mails().filter((m) => m.to.includes(bob.email) && m.subject.includes("paged"))).toEqual([])

      // The delivery log lists both pages: to Alice by mail, to the channel; both delivered.
      const log = yield* eventually(
        Effect.map(alice.browser.request(`/api/v1/incidents/${id}/deliveries`), (r) => Http.wire(r, DeliveryLog)),
        (l) => l.data.filter((d) => d.notice_kind === "escalation" && d.status === "delivered").length === 2
      )
      expect(
        log.data
          .filter((d) => d.notice_kind === "escalation")
          .map((d) => [d.channel.kind, d.channel.name, d.channel.id, d.status])
      ).toEqual([
        ["user_email", alice.email, null, "delivered"],
        ["webhook", "ops hook", hook.id, "delivered"]
      ])
      expect(receiver.received()).toHaveLength(1)
    })
  )

  it.scoped(
    "a schedule step pages whoever is on call then: across a handoff on a DST day, and nobody is recorded",
    () =>
      Effect.gen(function* () {
        const s = yield* services
        const { alice, bob } = yield* team
        const target = yield* createTarget(alice)
        // Daily handoffs at 09:00 Berlin time, Alice first from 1 March. Sunday 30 March is the day the clocks go
        // forward: Alice holds it until 09:00 CEST (07:00 UTC, where a fixed 24-hour rotation would say 08:00), Bob
        // after.
        const primary = yield* schedule(alice, "Primary", [
          {
            name: "daily",
            starts_at: "2025-03-01T08:00:00Z",
            rotation: { length: { unit: "days", count: 1 }, handoff: "09:00" },
            participants: [alice.userId, bob.userId],
            restrictions: []
          }
        ])
        // Saturdays only: nobody on a Sunday.
        const weekend = yield* schedule(alice, "Weekend", [
          {
            name: "saturday",
            starts_at: "2025-03-01T00:00:00Z",
            rotation: { length: { unit: "weeks", count: 1 }, handoff: "10:00" },
            participants: [bob.userId],
            restrictions: [{ days: ["sat"], from: "10:00", to: "12:00" }]
          }
        ])
        yield* bindPolicy(alice, target.id, [
          { delay_minutes: 0, targets: [{ type: "schedule", id: primary }] },
          { delay_minutes: 60, targets: [{ type: "schedule", id: primary }] },
          { delay_minutes: 5, targets: [{ type: "schedule", id: weekend }] }
        ])
        const t0 = day(30, "06:30:00.000") // 08:30 CEST; the second step is due at 09:30 CEST
        const id = yield* open(s, alice, target.id, t0)

        expect(yield* s.walker.walkDue({ now: t0 })).toBe(1)
        expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { minutes: 60 }) })).toBe(1)
        expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { minutes: 65 }) })).toBe(1)

        const walked = yield* detail(alice, id)
        expect(walked.escalation?.pages.map((p) => p.recipients)).toEqual([
          [{ target: { type: "schedule", id: primary }, outcome: "paged", user_id: alice.userId, channel_id: null }],
          [{ target: { type: "schedule", id: primary }, outcome: "paged", user_id: bob.userId, channel_id: null }],
          [{ target: { type: "schedule", id: weekend }, outcome: "nobody_on_call", user_id: null, channel_id: null }]
        ])
        // Every page sent: the walk is over.
        expect(walked.escalation).toMatchObject({ status: "exhausted", next: null, current: { page: 3, step: 3 } })
        expect(notes(walked)).toEqual([
          `Escalation step 1: ${alice.email} (on call for Primary)`,
          `Escalation step 2: ${bob.email} (on call for Primary)`,
          "Escalation step 3: nobody on call for Weekend",
          "Escalation stopped: every step was paged"
        ])
        // Nobody to page: the page is recorded without a notice.
        expect((yield* pagesOf(s.server, id)).map((p) => p.kind)).toEqual(["escalation", "escalation", null])
        const smtp = yield* Fixture.smtp
        const bobs = yield* Effect.promise(() => smtp.waitFor(bob.email, 2))
        expect(bobs.filter((m) => m.subject.includes("you are paged"))).toHaveLength(1)

        // Resolving an exhausted walk changes nothing more.
        const resolved = yield* alice.browser.request(`/api/v1/incidents/${id}/resolve`, { method: "POST" })
        expect(resolved.status, resolved.text).toBe(200)
        expect(Http.wire(resolved, IncidentDetail).escalation?.status).toBe("exhausted")
      })
  )

  it.scoped("a schedule step skips a participant who left, paging whom the on-call API names", () =>
    Effect.gen(function* () {
      const s = yield* services
      const { alice, bob } = yield* team
      const target = yield* createTarget(alice)
      // Daily from midnight Berlin time on 12 March, Bob first: 12 March is his day.
      const rota = yield* schedule(alice, "Rota", [
        {
          name: "daily",
          starts_at: "2025-03-12T00:00:00Z",
          rotation: { length: { unit: "days", count: 1 }, handoff: "00:00" },
          participants: [bob.userId, alice.userId],
          restrictions: []
        }
      ])
      yield* bindPolicy(alice, target.id, [{ delay_minutes: 0, targets: [{ type: "schedule", id: rota }] }])
      yield* s.server.sql`DELETE FROM memberships WHERE org_id = ${alice.org.id} AND user_id = ${bob.userId}`.pipe(
        Effect.orDie
      )
      const t0 = day(12, "10:00:00.000")
      // The rotation goes on among those still in the org, in the API's answer and in the page alike.
      const asked = yield* alice.browser.request(
        `/api/v1/oncall/schedules/${rota}/on-call?at=${encodeURIComponent(DateTime.formatIso(t0))}`
      )
      expect(asked.status, asked.text).toBe(200)
      expect(asked.json).toMatchObject({ user_id: alice.userId })
      const id = yield* open(s, alice, target.id, t0)
      expect(yield* s.walker.walkDue({ now: t0 })).toBe(1)
      expect((yield* detail(alice, id)).escalation?.pages[0]?.recipients).toEqual([
        { target: { type: "schedule", id: rota }, outcome: "paged", user_id: alice.userId, channel_id: null }
      ])
    })
  )

  it.scoped("a member who left and a disabled channel are recorded and paged nothing; a recovery stops the walk", () =>
    Effect.gen(function* () {
      const s = yield* services
      const { alice, bob } = yield* team
      const receiver = yield* FakeReceiver.make(() => ({ status: 200 }))
      const hook = yield* webhook(alice, `${receiver.url}/off`)
      const target = yield* createTarget(alice)
      yield* bindPolicy(alice, target.id, [
        {
          delay_minutes: 0,
          targets: [
            { type: "user", id: bob.userId },
            { type: "channel", id: hook.id }
          ]
        },
        { delay_minutes: 10, targets: [{ type: "user", id: alice.userId }] }
      ])
      // After the policy was written, Bob leaves the org and the channel is turned off.
      yield* s.server.sql`DELETE FROM memberships WHERE org_id = ${alice.org.id} AND user_id = ${bob.userId}`.pipe(
        Effect.orDie
      )
      const disabled = yield* alice.browser.request(`/api/v1/channels/${hook.id}`, {
        method: "PATCH",
        json: { enabled: false }
      })
      expect(disabled.status, disabled.text).toBe(200)
      const t0 = day(12, "10:00:00.000")
      const id = yield* open(s, alice, target.id, t0)
      expect(yield* s.walker.walkDue({ now: t0 })).toBe(1)
      const first = yield* detail(alice, id)
      expect(first.escalation?.pages[0]?.recipients).toEqual([
        { target: { type: "user", id: bob.userId }, outcome: "not_found", user_id: null, channel_id: null },
        { target: { type: "channel", id: hook.id }, outcome: "disabled", user_id: null, channel_id: hook.id }
      ])
      expect(notes(first)).toEqual([
        `Escalation step 1: user ${bob.userId} is no longer a member; channel ops hook is disabled`
      ])
      expect((yield* pagesOf(s.server, id)).map((p) => p.kind)).toEqual([null])

      // The monitor recovers before step 2: the walk stops as recovered, and Bob is never paged.
      yield* s.writer.observe(
        target.id,
        { ...down(DateTime.add(t0, { minutes: 5 })), status: "up", error: null },
        { now: DateTime.add(t0, { minutes: 5 }) }
      )
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { minutes: 10 }) })).toBe(0)
      const recovered = yield* detail(alice, id)
      expect(recovered.status).toBe("closed")
      expect(recovered.escalation).toMatchObject({
        status: "recovered",
        stopped_at: DateTime.formatIso(DateTime.add(t0, { minutes: 5 })),
        next: null
      })
      expect(recovered.escalation?.pages).toHaveLength(1)
      expect(receiver.received()).toEqual([])
      const smtp = yield* Fixture.smtp
      const ours = [alice.email, bob.email]
      expect(smtp.mails().filter((m) => ours.includes(m.to) && m.subject.includes("you are paged"))).toEqual([])
    })
  )

  it.scoped("two walkers passing at the same moments send each page once", () =>
    Effect.gen(function* () {
      const s = yield* services
      const other = yield* IncidentWriting.walker(s.server)
      const { alice, bob } = yield* team
      const target = yield* createTarget(alice)
      yield* bindPolicy(alice, target.id, [
        { delay_minutes: 0, targets: [{ type: "user", id: alice.userId }] },
        { delay_minutes: 1, targets: [{ type: "user", id: bob.userId }] }
      ])
      const t0 = day(14, "10:00:00.000")
      const id = yield* open(s, alice, target.id, t0)
      for (const minutes of [0, 0, 1, 1, 2]) {
        const now = DateTime.add(t0, { minutes })
        yield* Effect.all([s.walker.walkDue({ now }), other.walkDue({ now })], { concurrency: "unbounded" })
      }
      expect((yield* pagesOf(s.server, id)).map((p) => [p.n, p.dedupe_key])).toEqual([
        [1, "incident/1/escalation/1"],
        [2, "incident/1/escalation/2"]
      ])
      const [deliveries] = yield* s.server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM deliveries d JOIN notices n ON n.id = d.notice_id
        WHERE n.incident_id = ${id} AND n.kind = 'escalation'
      `.pipe(Effect.orDie)
      expect(deliveries?.n).toBe(2)
      expect((yield* detail(alice, id)).escalation?.status).toBe("exhausted")
    })
  )

  it.scoped("no walk without a policy: a monitor with none and a declared incident show escalation null", () =>
    Effect.gen(function* () {
      const s = yield* services
      const { alice } = yield* team
      const target = yield* createTarget(alice)
      const t0 = day(16, "10:00:00.000")
      const id = yield* open(s, alice, target.id, t0)
      expect((yield* detail(alice, id)).escalation).toBeNull()
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { days: 1 }) })).toBe(0)
      const declared = yield* alice.browser.request("/api/v1/incidents", {
        json: { title: "Payments slow", impact: "degraded", components: [target.id] }
      })
      expect(declared.status, declared.text).toBe(201)
      expect(Http.wire(declared, IncidentDetail).escalation).toBeNull()
    })
  )

  it.scoped("an account that lost on-call keeps its policy bound, but its incidents do not walk it", () =>
    Effect.gen(function* () {
      const s = yield* services
      const { alice } = yield* team
      const target = yield* createTarget(alice)
      yield* bindPolicy(alice, target.id, [{ delay_minutes: 0, targets: [{ type: "user", id: alice.userId }] }])
      // A downgrade to a plan without on-call (the writer built for this test has read no plan yet).
      yield* s.server.sql`
        UPDATE accounts SET plan_id = 'free' WHERE id = (SELECT account_id FROM users WHERE id = ${alice.userId})
      `.pipe(Effect.orDie)
      const t0 = day(17, "10:00:00.000")
      const id = yield* open(s, alice, target.id, t0)
      expect(yield* s.walker.walkDue({ now: DateTime.add(t0, { days: 1 }) })).toBe(0)
      const incident = yield* detail(alice, id)
      expect(incident.escalation).toBeNull()
      expect(notes(incident)).toEqual(["Escalation not started: on-call is not in the account's plan"])
    })
  )
})
