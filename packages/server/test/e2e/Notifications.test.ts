/**
 * Notification delivery: the channel test send for every kind against fakes of each service on loopback (shapes
 * asserted, the webhook signature verified as docs/notifications.md tells receivers to), notices fanned out to a
 * monitor's bound channels and delivered for real (webhook and SMTP), a failing endpoint retried with backoff then
 * dead-lettered, dedupe of notices, and several workers never sending one delivery twice.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import { assert, expect } from "@effect/vitest"
import { CreatedChannel } from "@signalman/core/Channel"
import { OrgUsage } from "@signalman/core/Identity"
import * as Notification from "@signalman/core/Notification"
import { Target } from "@signalman/core/Target"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Config from "../../src/config/Config.js"
import { Deliveries } from "../../src/notify/Deliveries.js"
import { Notices } from "../../src/notify/Notices.js"
import * as SubscriberMail from "../../src/subscribers/SubscriberMail.js"
import { eventually } from "../support/Eventually.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person, uniqueEmail } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

/**
 * The services whose API URLs are server settings (chat webhooks over TLS, Telegram, PagerDuty, Opsgenie, SMS),
 * faked for the whole file: the server is started pointing at them. Only the every-kind test sends to them.
 */
class ServiceFakes extends Context.Tag("test/Notifications/ServiceFakes")<
  ServiceFakes,
  {
    readonly tls: FakeReceiver.Certificate
    readonly chat: FakeReceiver.FakeReceiver
    readonly api: FakeReceiver.FakeReceiver
  }
>() {}

const serviceFakes = Layer.scoped(
  ServiceFakes,
  Effect.gen(function* () {
    const tls = yield* FakeReceiver.certificate
    const chat = yield* FakeReceiver.make((request) => ({ status: request.path.includes("discord") ? 204 : 200 }), tls)
    const api = yield* FakeReceiver.make((request) => ({
      status: request.path.includes("/v2/alerts") ? 202 : 200,
      body: request.path.includes("sendMessage") ? '{"ok":true}' : ""
    }))
    return { tls, chat, api }
  })
)

const settings = {
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  NOTIFIER__POLL_INTERVAL_MS: "50",
  NOTIFIER__TIMEOUT_SECS: "3"
}

/** The file's server, configured with the fakes' URLs and certificate, and the fakes. */
const serverWithFakes = Fixture.layer(
  Effect.map(ServiceFakes, ({ tls, api }) => ({
    env: {
      ...settings,
      NOTIFIER__EXTRA_CA_FILE: tls.caFile,
      NOTIFIER__TELEGRAM_API_URL: `${api.url}/telegram`,
      NOTIFIER__PAGERDUTY_EVENTS_URL: `${api.url}/pagerduty/v2/enqueue`,
      NOTIFIER__OPSGENIE_EU_URL: `${api.url}/opsgenie-eu`,
      NOTIFIER__SMS__API_URL: `${api.url}/sms`,
      NOTIFIER__SMS__ACCOUNT_SID: "AC123",
      NOTIFIER__SMS__AUTH_TOKEN: "sms-token",
      NOTIFIER__SMS__FROM: "+15005550006",
      // For the retry test: three attempts a second or two apart. Every other delivery here succeeds at once.
      NOTIFIER__MAX_ATTEMPTS: "3",
      NOTIFIER__BACKOFF_BASE_MS: "1000",
      NOTIFIER__BACKOFF_CAP_MS: "2000",
      // For the several-workers test: the server's own loop sends three at a time.
      NOTIFIER__CONCURRENCY: "3",
      // For the sms-flag test, which moves its account to a plan without the flag.
      PLAN_CACHE_TTL_SECS: "1"
    },
    // The every-kind test sends an sms; only free has the flag, so a test can move its account off it.
    sql: ["UPDATE plans SET sms_alerts_enabled = true WHERE id = 'free'"]
  }))
).pipe(Layer.provideMerge(serviceFakes))

/** The notifier's services over the server's own database, as another worker process would run them. */
const notifier = Effect.flatMap(Fixture.server, (server) =>
  Layer.build(
    Layer.mergeAll(Notices.Default, Deliveries.Default).pipe(
      Layer.provide(SubscriberMail.delivery),
      Layer.provide(Layer.succeed(SqlClient.SqlClient, server.sql)),
      Layer.provide(Config.layer(server.config))
    )
  )
)

const setup = Effect.gen(function* () {
  const { server, smtp } = yield* Fixture.Fixture
  const alice = yield* Fixture.person()
  const services = yield* notifier
  return { server, smtp, alice, services }
})

const created = (person: Person, body: Record<string, unknown>) =>
  Effect.map(person.browser.request("/api/v1/channels", { json: body }), (reply) =>
    Http.expectOk(reply, CreatedChannel, 201)
  )

const testSend = (person: Person, id: string) =>
  Effect.map(person.browser.request(`/api/v1/channels/${id}/test`, { method: "POST" }), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Http.wire(reply, Notification.TestDelivery)
  })

const JsonObject = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** A JSON body a fake receiver got, as an object. */
const parse = (body: string) => Schema.decodeUnknownSync(JsonObject)(body)

/** A header a fake receiver got, when sent once. */
const headerOf = (request: FakeReceiver.Received, name: string) => {
  const value = request.headers[name]
  return typeof value === "string" ? value : undefined
}

/** What docs/notifications.md tells a receiver to do: recompute the HMAC of "<t>.<body>" and compare. */
const verify = (secret: string, header: string | undefined, body: string) => {
  const parts = Object.fromEntries(
    (header ?? "").split(",").map((part) => {
      const [key = "", value = ""] = part.split("=")
      return [key, value]
    })
  )
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
    (reply) => Http.expectOk(reply, Target, 201)
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

const waitUntil = <A>(check: Effect.Effect<A>, done: (a: A) => boolean) =>
  eventually(check, done, { timeoutMs: 30_000, intervalMs: 30 })

/** Watches for `ms` that nothing more arrives: answers what had arrived when the watch ended (or something more did). */
const nothingMoreFor = (receiver: FakeReceiver.FakeReceiver, count: number, ms: number) =>
  eventually(
    Effect.sync(() => receiver.received().length),
    (n) => n > count,
    { timeoutMs: ms, intervalMs: 50 }
  )

Fixture.describeWith(`notification delivery (${TestDatabase.kind} database)`, serverWithFakes, (it) => {
  it.scoped("the test send reaches every kind of channel in the service's own API shape", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      // The fakes of the services whose URLs the file's server is configured with.
      const { chat, api } = yield* ServiceFakes
      const { alice, smtp } = yield* setup

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
      const signed = verify(webhook.signing_secret ?? "", headerOf(request, "x-signalman-signature"), request.body)
      expect(signed.valid).toBe(true)
      expect(signed.age).toBeLessThan(60)
      expect(verify("whsec_wrong", headerOf(request, "x-signalman-signature"), request.body).valid).toBe(false)
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
      const ops = uniqueEmail("ops")
      const email = yield* created(alice, { name: "mail", kind: "email", config: { addresses: [ops] } })
      expect(yield* testSend(alice, email.id)).toMatchObject({ delivered: true, status_code: null, error: null })
      const mails = yield* Effect.promise(() => smtp.waitFor(ops))
      expect(mails[0]?.subject).toBe("[Signalman] Signalman test notification")
    })
  )

  it.scoped("a test send answers the failure: the status and body, a refused TLS, a blocked address", () =>
    Effect.gen(function* () {
      // A certificate of its own, which the server (trusting the file's fakes' certificate) does not trust.
      const tls = yield* FakeReceiver.certificate
      const broken = yield* FakeReceiver.make(() => ({ status: 404, body: "no_service" }))
      const untrusted = yield* FakeReceiver.make(() => ({ status: 200 }), tls)
      const { alice } = yield* setup
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

      // Without allow_private_targets a name resolving to loopback is refused at dial time: a second server, as
      // every other test here reaches its fakes on loopback.
      const guarded = yield* Fixture.start({ env: { ...settings, CHECKER__ALLOW_PRIVATE_TARGETS: "false" } })
      const guardedAlice = yield* Effect.provideService(Fixture.person(), Fixture.Fixture, guarded)
      const local = yield* created(guardedAlice, {
        name: "local",
        kind: "webhook",
        config: { url: `http://localhost:${new URL(broken.url).port}/x` }
      })
      const blocked = yield* testSend(guardedAlice, local.id)
      expect(blocked.delivered).toBe(false)
      expect(blocked.error).toMatch(/^blocked: /)
      expect(broken.received()).toHaveLength(1)
    })
  )

  it.scoped("the test endpoint: channels:execute, 404 for unknown and foreign channels, sms behind the flag", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      const { server, alice } = yield* setup
      const channel = yield* created(alice, { name: "hook", kind: "webhook", config: { url: `${hook.url}/x` } })
      const org = alice.org
      const reader = yield* mintToken(alice, { scopes: ["channels:read", "channels:write"], org_id: org.id })
      const executor = yield* mintToken(alice, { scopes: ["channels:execute"], org_id: org.id })
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
      const bob = yield* Fixture.person()
      const foreign = yield* bob.browser.request(path, { method: "POST" })
      expect(foreign.status).toBe(404)

      const sms = yield* created(alice, { name: "sms", kind: "sms", config: { phone_numbers: ["+14155550100"] } })
      // The account moves to a plan without the flag (only free has it here), rather than the flag leaving the plan
      // every other test is on; the refusal waits for the account's cached plan to be read again.
      yield* server.sql`UPDATE accounts SET plan_id = 'founding' WHERE id = ${alice.accountId}`
      const flag = yield* eventually(
        Effect.map(
          alice.browser.request(`/api/v1/orgs/${org.id}/usage`),
          (reply) => Http.decode(reply, OrgUsage).flags["sms_alerts_enabled"]
        ),
        (enabled) => enabled === false
      )
      expect(flag).toBe(false)
      const off = yield* alice.browser.request(`/api/v1/channels/${sms.id}/test`, { method: "POST" })
      expect(off.status).toBe(403)
      expect(Http.envelope(off)).toMatchObject({ code: "SMS_ALERTS_DISABLED", field: "kind" })
      expect(hook.received()).toHaveLength(1)
    })
  )

  it.scoped("a notice fans out to the monitor's bound channels and is delivered for real; the log shows it", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      const { server, smtp, alice, services } = yield* setup
      const oncall = uniqueEmail("oncall")
      const webhook = yield* created(alice, { name: "hook", kind: "webhook", config: { url: `${hook.url}/in` } })
      const email = yield* created(alice, {
        name: "mail",
        kind: "email",
        config: { addresses: [oncall] }
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
      const mails = yield* Effect.promise(() => smtp.waitFor(oncall))
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

  it.scoped("a failing endpoint is retried with backoff, then dead-lettered at the attempt cap", () =>
    Effect.gen(function* () {
      const failing = yield* FakeReceiver.make(() => ({ status: 503, body: "down for maintenance" }))
      // The block's notifier settings: at most three attempts, backoff from 1 s capped at 2 s.
      const { server, alice, services } = yield* setup
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
      assert(first !== undefined && second !== undefined && third !== undefined)
      expect(second - first).toBeGreaterThanOrEqual(450)
      expect(third - second).toBeGreaterThanOrEqual(950)
      const dead = yield* waitUntil(
        Effect.flatMap(Deliveries, (d) => d.forIncident(incident)).pipe(Effect.provide(services)),
        (rows) => rows[0]?.status === "dead"
      )
      expect(dead[0]).toMatchObject({ status: "dead", attempts: 3, next_attempt_at: null, last_status_code: 503 })
      // Nothing more comes: watched for as long as the old test slept.
      expect(yield* nothingMoreFor(failing, 3, 1200)).toBe(3)
    })
  )

  it.scoped("several workers share the outbox without sending any delivery twice", () =>
    Effect.gen(function* () {
      const hook = yield* FakeReceiver.make()
      // The block's notifier sends three at a time.
      const { server, alice, services } = yield* setup
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
      // A delivery sent twice would come after the thirtieth: watched for a moment.
      yield* nothingMoreFor(hook, 30, 300)
      const ids = hook.received().map((r) => r.headers["x-signalman-delivery"])
      expect(received.length).toBeGreaterThanOrEqual(30)
      expect(ids).toHaveLength(30)
      expect(new Set(ids).size).toBe(30)
      const [rows] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM deliveries d JOIN notices notice ON notice.id = d.notice_id
        WHERE notice.target_id = ${target.id} AND d.status = 'delivered' AND d.attempts = 1
      `
      expect(rows?.n).toBe(30)
    })
  )
})
