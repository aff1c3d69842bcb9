/**
 * Notification delivery: the channel test send for every kind against fakes of each service on loopback (shapes
 * asserted, the webhook signature verified as docs/notifications.md tells receivers to), notices fanned out to a
 * monitor's bound channels and delivered for real (webhook and SMTP), a failing endpoint retried with backoff then
 * dead-lettered, dedupe of notices, and several workers never sending one delivery twice.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, describe, expect, it } from "@effect/vitest"
import type * as Notification from "@signalman/core/Notification"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Config from "../../src/Config.js"
import { Deliveries } from "../../src/notify/Deliveries.js"
import { Notices } from "../../src/notify/Notices.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person, signIn } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

const setup = (env: Record<string, string> = {}) =>
  Effect.gen(function* () {
    const smtp = yield* SmtpCatcher.make
    const server = yield* TestServer.start({
      MAIL__SMTP_URL: smtp.url,
      AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "0",
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      NOTIFIER__POLL_INTERVAL_MS: "50",
      NOTIFIER__TIMEOUT_SECS: "3",
      ...env
    })
    yield* server.sql`UPDATE plans SET sms_alerts_enabled = true`
    const alice = yield* signIn(server, smtp)
    // The notifier's services over the server's own database, as another worker process would run them.
    const services = yield* Layer.build(
      Layer.mergeAll(Notices.Default, Deliveries.Default).pipe(
        Layer.provide(Layer.succeed(SqlClient.SqlClient, server.sql)),
        Layer.provide(Config.layer(server.config))
      )
    )
    return { server, smtp, alice, services }
  })

const created = (person: Person, body: Record<string, unknown>) =>
  Effect.map(person.browser.request("/api/v1/channels", { json: body }), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return reply.json as { id: string; signing_secret?: string }
  })

const testSend = (person: Person, id: string) =>
  Effect.map(person.browser.request(`/api/v1/channels/${id}/test`, { method: "POST" }), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return reply.json as {
      delivered: boolean
      status_code: number | null
      error: string | null
      duration_ms: number
      sent_at: string
    }
  })

const parse = (body: string) => JSON.parse(body) as Record<string, unknown>

/** What docs/notifications.md tells a receiver to do: recompute the HMAC of "<t>.<body>" and compare. */
const verify = (secret: string, header: string | undefined, body: string) => {
  const parts = Object.fromEntries((header ?? "").split(",").map((part) => part.split("=") as [string, string]))
  const t = parts["t"] ?? ""
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest()
  const given = Buffer.from(parts["v1"] ?? "", "hex")
  return {
    valid: given.length === expected.length && timingSafeEqual(given, expected),
    age: Math.abs(Date.now() / 1000 - Number(t))
  }
}

const payload = (targetId: string, incidentId: string, name = "web"): Notification.NoticePayload => ({
  target: { id: targetId, name, type: "http" },
  incident: {
    id: incidentId,
    number: 1,
    started_at: DateTime.unsafeMake("2025-03-01T10:00:00Z"),
    ended_at: null,
    impact: "major_outage",
    cause: "connect ECONNREFUSED 10.0.0.1:443"
  },
  reminder: 0
})

const monitor = (person: Person, alerts: ReadonlyArray<string>) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: {
        name: "web",
        check: { type: "http", url: "https://example.com/health" },
        alerts: alerts.map((channel_id) => ({ channel_id }))
      }
    }),
    (reply) => {
      expect(reply.status, reply.text).toBe(201)
      return reply.json as { id: string }
    }
  )

const orgOf = (server: TestServer.Running, targetId: string) =>
  Effect.map(
    server.sql<{ org_id: string }>`SELECT org_id::text AS org_id FROM targets WHERE id = ${targetId}`,
    (rows) => {
      const row = rows[0]
      assert.isDefined(row)
      return row.org_id
    }
  )

const waitUntil = <A>(check: Effect.Effect<A>, done: (a: A) => boolean, timeoutMs = 30_000) =>
  Effect.gen(function* () {
    const until = Date.now() + timeoutMs
    for (;;) {
      const value = yield* check
      if (done(value) || Date.now() > until) return value
      yield* Effect.sleep("30 millis")
    }
  })

describe(`notification delivery (${TestDatabase.kind} database)`, () => {
  it.scopedLive("the test send reaches every kind of channel in the service's own API shape", () =>
    Effect.gen(function* () {
      const tls = yield* FakeReceiver.certificate
      const hook = yield* FakeReceiver.make()
      const chat = yield* FakeReceiver.make(
        (request) => ({ status: request.path.includes("discord") ? 204 : 200 }),
        tls
      )
      const api = yield* FakeReceiver.make((request) => ({
        status: request.path.includes("/v2/alerts") ? 202 : 200,
        body: request.path.includes("sendMessage") ? '{"ok":true}' : ""
      }))
      const { alice, smtp } = yield* setup({
        NOTIFIER__EXTRA_CA_FILE: tls.caFile,
        NOTIFIER__TELEGRAM_API_URL: `${api.url}/telegram`,
        NOTIFIER__PAGERDUTY_EVENTS_URL: `${api.url}/pagerduty/v2/enqueue`,
        NOTIFIER__OPSGENIE_EU_URL: `${api.url}/opsgenie-eu`,
        NOTIFIER__SMS__API_URL: `${api.url}/sms`,
        NOTIFIER__SMS__ACCOUNT_SID: "AC123",
        NOTIFIER__SMS__AUTH_TOKEN: "sms-token",
        NOTIFIER__SMS__FROM: "+15005550006"
      })

      // webhook: signed JSON event, event and delivery headers, the configured headers
      const webhook = yield* created(alice, {
        name: "hook",
        kind: "webhook",
        config: { url: `${hook.url}/in`, headers: { Authorization: "Bearer abc" } }
      })
      const sent = yield* testSend(alice, webhook.id)
      expect(sent).toMatchObject({ delivered: true, status_code: 200, error: null })
      const [request] = hook.received()
      assert.isDefined(request)
      expect(request.method).toBe("POST")
      expect(request.headers["content-type"]).toBe("application/json")
      expect(request.headers["x-signalman-event"]).toBe("test")
      expect(request.headers["authorization"]).toBe("Bearer abc")
      expect(request.headers["x-signalman-delivery"]).toMatch(/^[0-9a-f-]{36}$/)
      const signed = verify(
        webhook.signing_secret ?? "",
        request.headers["x-signalman-signature"] as string,
        request.body
      )
      expect(signed.valid).toBe(true)
      expect(signed.age).toBeLessThan(60)
      expect(verify("whsec_wrong", request.headers["x-signalman-signature"] as string, request.body).valid).toBe(false)
      expect(parse(request.body)).toMatchObject({ type: "test", target: null, incident: null, reminder: null })

      // slack, discord, teams over https (trusted through notifier.extra_ca_file)
      for (const kind of ["slack", "discord", "teams"] as const) {
        const channel = yield* created(alice, { name: kind, kind, config: { webhook_url: `${chat.url}/${kind}/hook` } })
        const outcome = yield* testSend(alice, channel.id)
        expect(outcome, kind).toMatchObject({ delivered: true, error: null })
      }
      const byPath = (path: string) => {
        const found = [...chat.received(), ...api.received()].find((r) => r.path.startsWith(path))
        assert.isDefined(found, path)
        return { ...found, json: found.headers["content-type"] === "application/json" ? parse(found.body) : {} }
      }
      const slack = byPath("/slack/hook").json
      expect(slack["text"]).toContain("Signalman test notification")
      expect(slack["blocks"]).toMatchObject([{ type: "header" }, { type: "section" }])
      const discord = byPath("/discord/hook").json
      expect(discord).toMatchObject({ embeds: [{ title: "Signalman test notification" }] })
      const teams = byPath("/teams/hook").json
      expect(teams).toMatchObject({
        type: "message",
        attachments: [{ contentType: "application/vnd.microsoft.card.adaptive", content: { type: "AdaptiveCard" } }]
      })

      // telegram: Bot API sendMessage under the configured base URL
      const telegram = yield* created(alice, {
        name: "tg",
        kind: "telegram",
        config: { bot_token: "123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij", chat_id: "-100200300" }
      })
      expect(yield* testSend(alice, telegram.id)).toMatchObject({ delivered: true, status_code: 200 })
      const tg = byPath("/telegram/bot123456:ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghij/sendMessage").json
      expect(tg).toMatchObject({ chat_id: "-100200300" })
      expect(tg["text"]).toContain("Signalman test notification")

      // pagerduty: Events API v2 trigger with the routing key
      const pd = yield* created(alice, {
        name: "pd",
        kind: "pagerduty",
        config: { routing_key: "R0123456789abcdefR0123456789abcd" }
      })
      expect(yield* testSend(alice, pd.id)).toMatchObject({ delivered: true })
      expect(byPath("/pagerduty/v2/enqueue").json).toMatchObject({
        routing_key: "R0123456789abcdefR0123456789abcd",
        event_action: "trigger",
        payload: { summary: "Signalman test notification", severity: "info" }
      })

      // opsgenie: create alert in the channel's region, GenieKey auth
      const og = yield* created(alice, { name: "og", kind: "opsgenie", config: { api_key: "og-key-1", region: "eu" } })
      expect(yield* testSend(alice, og.id)).toMatchObject({ delivered: true, status_code: 202 })
      const ogRequest = byPath("/opsgenie-eu/v2/alerts")
      expect(ogRequest.headers["authorization"]).toBe("GenieKey og-key-1")
      expect(ogRequest.json).toMatchObject({ message: "Signalman test notification", source: "Signalman" })

      // ntfy: POST to server/topic with Title, Priority, Tags and the bearer token
      const ntfy = yield* created(alice, {
        name: "ntfy",
        kind: "ntfy",
        config: { server_url: api.url, topic: "alerts_1", token: "tk_secret" }
      })
      expect(yield* testSend(alice, ntfy.id)).toMatchObject({ delivered: true })
      const ntfyRequest = byPath("/alerts_1")
      expect(ntfyRequest.headers).toMatchObject({
        title: "Signalman test notification",
        priority: "3",
        tags: "bell",
        authorization: "Bearer tk_secret"
      })
      expect(ntfyRequest.body).toContain('This is a test of the notification channel "ntfy"')

      // sms: one Twilio-compatible form POST per number, Basic auth
      const sms = yield* created(alice, {
        name: "sms",
        kind: "sms",
        config: { phone_numbers: ["+14155550100", "+14155550101"] }
      })
      expect(yield* testSend(alice, sms.id)).toMatchObject({ delivered: true })
      const texts = api.received().filter((r) => r.path === "/sms/2010-04-01/Accounts/AC123/Messages.json")
      expect(texts.map((r) => new URLSearchParams(r.body).get("To"))).toEqual(["+14155550100", "+14155550101"])
      expect(new URLSearchParams(texts[0]?.body).get("From")).toBe("+15005550006")
      expect(texts[0]?.headers["authorization"]).toBe(`Basic ${Buffer.from("AC123:sms-token").toString("base64")}`)

      // email: through SMTP
      const email = yield* created(alice, { name: "mail", kind: "email", config: { addresses: ["ops@example.com"] } })
      expect(yield* testSend(alice, email.id)).toMatchObject({ delivered: true, status_code: null, error: null })
      const mails = yield* Effect.promise(() => smtp.waitFor("ops@example.com"))
      expect(mails[0]?.subject).toBe("[Signalman] Signalman test notification")
    })
  )

  it.scopedLive("a test send answers the failure: the status and body, a refused TLS, a blocked address", () =>
    Effect.gen(function* () {
      const tls = yield* FakeReceiver.certificate
      const broken = yield* FakeReceiver.make(() => ({ status: 404, body: "no_service" }))
      const untrusted = yield* FakeReceiver.make(() => ({ status: 200 }), tls)
      const { alice } = yield* setup()
      const hook = yield* created(alice, { name: "hook", kind: "webhook", config: { url: `${broken.url}/x` } })
      expect(yield* testSend(alice, hook.id)).toMatchObject({
        delivered: false,
        status_code: 404,
        error: "HTTP 404: no_service"
      })
      const slack = yield* created(alice, { name: "s", kind: "slack", config: { webhook_url: `${untrusted.url}/s` } })
      const refused = yield* testSend(alice, slack.id)
      expect(refused.delivered).toBe(false)
      expect(refused.error).toMatch(/^tls: /)
      expect(untrusted.received()).toHaveLength(0)

      // Without allow_private_targets a name resolving to loopback is refused at dial time.
      const guarded = yield* setup({ CHECKER__ALLOW_PRIVATE_TARGETS: "false" })
      const local = yield* created(guarded.alice, {
        name: "local",
        kind: "webhook",
        config: { url: `http://localhost:${new URL(broken.url).port}/x` }
      })
      const blocked = yield* testSend(guarded.alice, local.id)
      expect(blocked.delivered).toBe(false)
      expect(blocked.error).toMatch(/^blocked: /)
      expect(broken.received()).toHaveLength(1)
    })
  )

  it.scopedLive("the test endpoint: channels:execute, 404 for unknown and foreign channels, sms behind the flag", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      const { server, smtp, alice } = yield* setup({ PLAN_CACHE_TTL_SECS: "1" })
      const channel = yield* created(alice, { name: "hook", kind: "webhook", config: { url: `${hook.url}/x` } })
      const org = ((yield* alice.browser.request("/api/v1/me")).json as { orgs: Array<{ id: string }> }).orgs[0]
      const reader = yield* mintToken(alice, { scopes: ["channels:read", "channels:write"], org_id: org?.id })
      const executor = yield* mintToken(alice, { scopes: ["channels:execute"], org_id: org?.id })
      const path = `/api/v1/channels/${channel.id}/test`
      const denied = yield* bearer(server, reader.token, path, { method: "POST" })
      expect(denied.status).toBe(403)
      expect(Http.envelope(denied).code).toBe("INSUFFICIENT_SCOPE")
      expect((yield* bearer(server, executor.token, path, { method: "POST" })).status).toBe(200)
      const unknown = yield* alice.browser.request("/api/v1/channels/01234567-89ab-7def-8123-456789abcdef/test", {
        method: "POST"
      })
      expect(unknown.status).toBe(404)
      expect(Http.envelope(unknown).code).toBe("NOT_FOUND")
      const bob = yield* signIn(server, smtp)
      const foreign = yield* bob.browser.request(path, { method: "POST" })
      expect(foreign.status).toBe(404)

      const sms = yield* created(alice, { name: "sms", kind: "sms", config: { phone_numbers: ["+14155550100"] } })
      yield* server.sql`UPDATE plans SET sms_alerts_enabled = false`
      yield* Effect.sleep("1100 millis")
      const off = yield* alice.browser.request(`/api/v1/channels/${sms.id}/test`, { method: "POST" })
      expect(off.status).toBe(403)
      expect(Http.envelope(off)).toMatchObject({ code: "SMS_ALERTS_DISABLED", field: "kind" })
      expect(hook.received()).toHaveLength(1)
    })
  )

  it.scopedLive("a notice fans out to the monitor's bound channels and is delivered for real; the log shows it", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      const { server, smtp, alice, services } = yield* setup()
      const webhook = yield* created(alice, { name: "hook", kind: "webhook", config: { url: `${hook.url}/in` } })
      const email = yield* created(alice, {
        name: "mail",
        kind: "email",
        config: { addresses: ["oncall@example.com"] }
      })
      const unbound = yield* created(alice, { name: "other", kind: "webhook", config: { url: `${hook.url}/other` } })
      const target = yield* monitor(alice, [webhook.id, email.id])
      const org = yield* orgOf(server, target.id)
      const incident = crypto.randomUUID()
      const enqueue = (kind: Notification.NoticeKind, key: string, extra: Partial<Notification.NoticePayload> = {}) =>
        Effect.flatMap(Notices, (n) =>
          n.enqueue({
            org_id: org,
            target_id: target.id,
            incident_id: incident,
            kind,
            payload: { ...payload(target.id, incident), ...extra },
            dedupe_key: key
          })
        ).pipe(Effect.provide(services))

      expect(yield* enqueue("opened", "incident/1/notify/opened")).toBe(true)
      const [opened] = yield* hook.waitFor(1)
      assert.isDefined(opened)
      expect(opened.path).toBe("/in")
      expect(opened.headers["x-signalman-event"]).toBe("incident.opened")
      const event = parse(opened.body)
      expect(event).toMatchObject({
        type: "incident.opened",
        target: { id: target.id, name: "web", type: "http" },
        incident: { id: incident, number: 1, started_at: "2025-03-01T10:00:00.000Z", impact: "major_outage" },
        reminder: null
      })
      const mails = yield* Effect.promise(() => smtp.waitFor("oncall@example.com"))
      expect(mails[0]?.subject).toBe("[Signalman] web is down")
      expect(mails[0]?.text).toContain("connect ECONNREFUSED 10.0.0.1:443")

      const log = yield* waitUntil(
        Effect.flatMap(Deliveries, (d) => d.forIncident(incident)).pipe(Effect.provide(services)),
        (rows) => rows.length === 2 && rows.every((row) => row.status === "delivered")
      )
      expect(log.map((row) => [row.channel.name, row.channel.kind, row.status, row.attempts])).toEqual(
        expect.arrayContaining([
          ["hook", "webhook", "delivered", 1],
          ["mail", "email", "delivered", 1]
        ])
      )
      expect(log.every((row) => row.notice_kind === "opened" && row.next_attempt_at === null)).toBe(true)
      expect(log.find((row) => row.channel.kind === "webhook")?.last_status_code).toBe(200)
      expect(log.find((row) => row.channel.kind === "webhook")?.id).toBe(opened.headers["x-signalman-delivery"])
      expect(hook.received().some((r) => r.path === "/other")).toBe(false)
      expect(unbound.id).not.toBe(webhook.id)

      // The same key again is the same notice: nothing new is sent.
      expect(yield* enqueue("opened", "incident/1/notify/opened")).toBe(false)
      const [count] = yield* server.sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM notices WHERE incident_id = ${incident}`
      expect(count?.n).toBe(1)

      // Recovery to a channel deleted meanwhile is skipped; the rest goes out.
      const gone = yield* alice.browser.request(`/api/v1/channels/${email.id}`, { method: "DELETE" })
      expect(gone.status).toBe(204)
      yield* enqueue("recovered", "incident/1/notify/recovered", {
        incident: { ...payload(target.id, incident).incident, ended_at: DateTime.unsafeMake("2025-03-01T10:42:00Z") }
      })
      const both = yield* hook.waitFor(2)
      expect(both[1]?.headers["x-signalman-event"]).toBe("incident.recovered")
      expect(parse(both[1]?.body ?? "{}")).toMatchObject({ incident: { ended_at: "2025-03-01T10:42:00.000Z" } })
      const after = yield* Effect.flatMap(Deliveries, (d) => d.forIncident(incident)).pipe(Effect.provide(services))
      expect(after.map((row) => [row.notice_kind, row.channel.name, row.channel.id === null])).toEqual([
        ["opened", "hook", false],
        ["opened", "mail", true],
        ["recovered", "hook", false]
      ])
    })
  )

  it.scopedLive("a failing endpoint is retried with backoff, then dead-lettered at the attempt cap", () =>
    Effect.gen(function* () {
      const failing = yield* FakeReceiver.make(() => ({ status: 503, body: "down for maintenance" }))
      const { server, alice, services } = yield* setup({
        NOTIFIER__MAX_ATTEMPTS: "3",
        NOTIFIER__BACKOFF_BASE_MS: "1000",
        NOTIFIER__BACKOFF_CAP_MS: "2000"
      })
      const hook = yield* created(alice, { name: "flaky", kind: "webhook", config: { url: `${failing.url}/in` } })
      const target = yield* monitor(alice, [hook.id])
      const incident = crypto.randomUUID()
      yield* Effect.flatMap(Notices, (n) =>
        Effect.gen(function* () {
          return yield* n.enqueue({
            org_id: yield* orgOf(server, target.id),
            target_id: target.id,
            incident_id: incident,
            kind: "opened",
            payload: payload(target.id, incident),
            dedupe_key: "incident/1/notify/opened"
          })
        })
      ).pipe(Effect.provide(services))
      yield* failing.waitFor(1)
      // The receiver answers before the sender records the outcome: wait for the record, not the request.
      const pending = yield* waitUntil(
        Effect.flatMap(Deliveries, (d) => d.forIncident(incident)).pipe(Effect.provide(services)),
        (rows) => rows[0]?.last_status_code === 503
      )
      expect(pending[0]).toMatchObject({
        status: "pending",
        last_status_code: 503,
        last_error: "HTTP 503: down for maintenance"
      })
      // The first failure, or the second claimed already (a claim counts its attempt before it sends); the third
      // cannot be, 1.5 s at least after the first.
      expect([1, 2]).toContain(pending[0]?.attempts)
      assert.isNotNull(pending[0]?.next_attempt_at)
      const all = yield* failing.waitFor(3)
      expect(all).toHaveLength(3)
      // The retries waited at least half their ceilings (500 ms, then 1000 ms) before the cap dead-lettered it, as
      // the receiver saw them arrive (a slow machine only makes the gaps longer).
      const [first, second, third] = all.map((request) => request.at)
      expect(second! - first!).toBeGreaterThanOrEqual(450)
      expect(third! - second!).toBeGreaterThanOrEqual(950)
      const dead = yield* waitUntil(
        Effect.flatMap(Deliveries, (d) => d.forIncident(incident)).pipe(Effect.provide(services)),
        (rows) => rows[0]?.status === "dead"
      )
      expect(dead[0]).toMatchObject({ status: "dead", attempts: 3, next_attempt_at: null, last_status_code: 503 })
      yield* Effect.sleep("1200 millis")
      expect(failing.received()).toHaveLength(3)
    })
  )

  it.scopedLive("several workers share the outbox without sending any delivery twice", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      const { server, alice, services } = yield* setup({ NOTIFIER__CONCURRENCY: "3" })
      const a = yield* created(alice, { name: "a", kind: "webhook", config: { url: `${hook.url}/a` } })
      const b = yield* created(alice, { name: "b", kind: "webhook", config: { url: `${hook.url}/b` } })
      const target = yield* monitor(alice, [a.id, b.id])
      const org = yield* orgOf(server, target.id)
      const incidents = Array.from({ length: 15 }, () => crypto.randomUUID())
      const { notices, deliveries } = yield* Effect.all({ notices: Notices, deliveries: Deliveries }).pipe(
        Effect.provide(services)
      )
      yield* Effect.forEach(incidents, (incident, i) =>
        notices.enqueue({
          org_id: org,
          target_id: target.id,
          incident_id: incident,
          kind: "opened",
          payload: payload(target.id, incident),
          dedupe_key: `incident/${i + 1}/notify/opened`
        })
      )
      // The server's own loops race two more workers' rounds.
      const extra = Effect.gen(function* () {
        for (let i = 0; i < 40; i++) {
          yield* notices.fanOut(5)
          yield* deliveries.deliverDue
        }
      })
      yield* Effect.all([extra, extra], { concurrency: "unbounded" })
      const received = yield* hook.waitFor(30)
      yield* Effect.sleep("300 millis")
      const ids = hook.received().map((r) => r.headers["x-signalman-delivery"])
      expect(received.length).toBeGreaterThanOrEqual(30)
      expect(ids).toHaveLength(30)
      expect(new Set(ids).size).toBe(30)
      const [rows] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM deliveries WHERE status = 'delivered' AND attempts = 1
      `
      expect(rows?.n).toBe(30)
    })
  )
})
