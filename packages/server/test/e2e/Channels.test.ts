/**
 * Notification channels as a resource: CRUD for every kind, config validation with field paths, secrets redacted on
 * every answer and sealed at rest, the `***` rule on PATCH, write_source, scopes, foreign ids, the
 * max_notification_channels quota, the SMS plan flag, and monitors' alert bindings judged against the org's channels.
 */
import { createDecipheriv } from "node:crypto"
import { assert, expect } from "@effect/vitest"
import { ChannelPage } from "@signalman/core/api/Channels"
import { Channel, CreatedChannel } from "@signalman/core/Channel"
import { OrgUsage } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

// A known key, so the test can open what the service sealed and see the secret really kept.
const KEY = Buffer.alloc(32, 7)

const env = { SECRETS__ENCRYPTION_KEY: KEY.toString("base64") }

const createChannel = (person: Person, body: Record<string, unknown>) =>
  person.browser.request("/api/v1/channels", { json: body })

const channel = (person: Person, body: Record<string, unknown>) =>
  Effect.map(createChannel(person, body), (reply) => Http.expectOk(reply, CreatedChannel, 201))

const list = (person: Person, query = "") =>
  Effect.map(person.browser.request(`/api/v1/channels${query}`), (reply) => Http.wire(reply, ChannelPage))

const patch = (person: Person, id: string, body: Record<string, unknown>) =>
  person.browser.request(`/api/v1/channels/${id}`, { method: "PATCH", json: body })

const SecretMap = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.String }))

/** The secret values the service sealed for a channel, opened with the test's key. */
const storedSecrets = (server: TestServer.Running, id: string) =>
  Effect.gen(function* () {
    const [row] = yield* server.sql<{ secrets: string | null; config: unknown }>`
      SELECT secrets, config FROM channels WHERE id = ${id}
    `
    assert.isDefined(row)
    if (row.secrets === null) return { sealed: null, secrets: {}, config: row.config }
    const [version, iv, body, tag] = row.secrets.split(".")
    expect(version).toBe("v1")
    const decipher = createDecipheriv("aes-256-gcm", KEY, Buffer.from(iv ?? "", "base64url"))
    decipher.setAuthTag(Buffer.from(tag ?? "", "base64url"))
    const text = Buffer.concat([decipher.update(Buffer.from(body ?? "", "base64url")), decipher.final()]).toString()
    return { sealed: row.secrets, secrets: Schema.decodeUnknownSync(SecretMap)(text), config: row.config }
  })

const SLACK_URL = "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXslacksecret"
const DISCORD_URL = "https://discord.com/api/webhooks/123456789012345678/discord-secret-token"
const TEAMS_URL = "https://contoso.webhook.office.com/webhookb2/abc@def/IncomingWebhook/teams-secret/456"
const BOT_TOKEN = "123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsbot"
const ROUTING_KEY = "e93facc04764012d7bfb002500d5d1a6"
const OPSGENIE_KEY = "eb243592-faa2-4ba2-a551-1afdf565c889"
const NTFY_TOKEN = "tk_AgQdq7mVBoFD37zQVN29RhuMzNIz2"
const HEADER_SECRET = "Bearer header-secret-value"

/** Per kind: a config as a user sends it, what every answer shows, and the secrets that must never be shown. */
const kinds: ReadonlyArray<{
  readonly kind: string
  readonly config: Record<string, unknown>
  readonly shown: Record<string, unknown>
  readonly secrets: Record<string, string>
}> = [
  {
    kind: "email",
    config: { addresses: ["ops@example.com", "oncall@example.com"] },
    shown: { addresses: ["ops@example.com", "oncall@example.com"] },
    secrets: {}
  },
  {
    kind: "webhook",
    config: { url: "https://hooks.example.com/signalman", headers: { Authorization: HEADER_SECRET } },
    shown: { url: "https://hooks.example.com/signalman", headers: { Authorization: "***" }, secret: "***" },
    secrets: { "headers.Authorization": HEADER_SECRET }
  },
  {
    kind: "slack",
    config: { webhook_url: SLACK_URL },
    shown: { webhook_url: "***" },
    secrets: { webhook_url: SLACK_URL }
  },
  {
    kind: "discord",
    config: { webhook_url: DISCORD_URL },
    shown: { webhook_url: "***" },
    secrets: { webhook_url: DISCORD_URL }
  },
  {
    kind: "teams",
    config: { webhook_url: TEAMS_URL },
    shown: { webhook_url: "***" },
    secrets: { webhook_url: TEAMS_URL }
  },
  {
    kind: "telegram",
    config: { bot_token: BOT_TOKEN, chat_id: "-1001234567890" },
    shown: { bot_token: "***", chat_id: "-1001234567890" },
    secrets: { bot_token: BOT_TOKEN }
  },
  {
    kind: "pagerduty",
    config: { routing_key: ROUTING_KEY },
    shown: { routing_key: "***", severity: "critical" },
    secrets: { routing_key: ROUTING_KEY }
  },
  {
    kind: "opsgenie",
    config: { api_key: OPSGENIE_KEY, region: "eu" },
    shown: { api_key: "***", region: "eu", priority: "P3" },
    secrets: { api_key: OPSGENIE_KEY }
  },
  {
    kind: "ntfy",
    config: { topic: "signalman-alerts", token: NTFY_TOKEN },
    shown: { server_url: "https://ntfy.sh", topic: "signalman-alerts", token: "***", priority: 4 },
    secrets: { token: NTFY_TOKEN }
  },
  {
    kind: "sms",
    config: { phone_numbers: ["+14155550123", "+442071838750"] },
    shown: { phone_numbers: ["+14155550123", "+442071838750"] },
    secrets: {}
  }
]

const httpCheck = { type: "http", url: "https://example.com/health" }

/**
 * Whether the plan in force for the person's account has sms_alerts_enabled, polled until it is `expected`: a change
 * to the plan row takes effect when the account's cached plan (plan_cache_ttl_secs) is read again.
 */
const smsFlagInForce = (person: Fixture.Person, expected: boolean) =>
  eventually(
    Effect.map(
      person.browser.request(`/api/v1/orgs/${person.org.id}/usage`),
      (reply) => Http.decode(reply, OrgUsage).flags["sms_alerts_enabled"]
    ),
    (flag) => flag === expected
  )

// Every kind includes sms, which the free plan does not have: the first test needs the flag. No other test here
// reads it (the sms refusal among the config refusals is decided by the config, before the flag).
Fixture.describe(
  `notification channels (${TestDatabase.kind} database)`,
  { env, sql: ["UPDATE plans SET sms_alerts_enabled = true WHERE id = 'free'"] },
  (it) => {
    it.effect("every kind: create 201 with Location, secrets *** on create, get, list and PATCH; sealed at rest", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const created: Array<typeof Channel.Encoded> = []
        for (const { kind, config, shown, secrets } of kinds) {
          const reply = yield* createChannel(alice, { name: `${kind} alerts`, kind, config })
          expect(reply.status, `${kind}: ${reply.text}`).toBe(201)
          const body = Http.wire(reply, CreatedChannel)
          expect(reply.headers.get("location")).toBe(`/api/v1/channels/${body.id}`)
          expect(reply.headers.get("cache-control")).toBe("no-store")
          expect(body).toMatchObject({
            name: `${kind} alerts`,
            kind,
            config: shown,
            enabled: true,
            write_source: "ui",
            managed_by: null
          })
          expect(body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
          for (const value of Object.values(secrets)) expect(reply.text, kind).not.toContain(value)

          const read = yield* alice.browser.request(`/api/v1/channels/${body.id}`)
          expect(read.status).toBe(200)
          const { signing_secret: _, ...stored } = body
          expect(Http.wire(read, Channel), kind).toEqual(stored)

          // At rest: the config column is the shown one; the secrets are sealed (and open to the values sent).
          const atRest = yield* storedSecrets(server, body.id)
          expect(atRest.config, kind).toEqual(shown)
          if (kind === "webhook") {
            expect(atRest.secrets).toEqual({ ...secrets, secret: body.signing_secret })
          } else {
            expect(atRest.secrets, kind).toEqual(secrets)
            expect(atRest.sealed === null, kind).toBe(Object.keys(secrets).length === 0)
          }
          created.push(stored)
        }

        const listed = yield* alice.browser.request("/api/v1/channels?limit=500")
        expect(listed.status).toBe(200)
        const page = Http.wire(listed, ChannelPage)
        expect(page).toMatchObject({ total: kinds.length, limit: 500, offset: 0 })
        expect(page.data.map((c) => c.name)).toEqual(created.map((c) => c.name).sort())
        const secretValues = kinds.flatMap((k) => Object.values(k.secrets))
        for (const value of secretValues) expect(listed.text).not.toContain(value)

        const paged = yield* list(alice, "?limit=2&offset=2")
        expect(paged).toMatchObject({ total: kinds.length, limit: 2, offset: 2 })
        expect(paged.data.map((c) => c.name)).toEqual(
          created
            .map((c) => c.name)
            .sort()
            .slice(2, 4)
        )
        const slackOnly = yield* list(alice, "?kind=slack")
        expect(slackOnly.data.map((c) => c.kind)).toEqual(["slack"])
        const badKind = yield* alice.browser.request("/api/v1/channels?kind=pigeon")
        expect(badKind.status).toBe(400)
        expect(Http.envelope(badKind)).toMatchObject({ code: "VALIDATION_FAILED", field: "kind" })

        // A PATCH answers redacted too, and deleting leaves a 404.
        for (const c of created) {
          const renamed = yield* patch(alice, c.id, { name: `${c.name} (renamed)`, enabled: false })
          expect(renamed.status, c.kind).toBe(200)
          expect(Http.wire(renamed, Channel)).toMatchObject({
            ...c,
            name: `${c.name} (renamed)`,
            enabled: false,
            updated_at: expect.any(String)
          })
          for (const value of secretValues) expect(renamed.text).not.toContain(value)
          const deleted = yield* alice.browser.request(`/api/v1/channels/${c.id}`, { method: "DELETE" })
          expect(deleted.status).toBe(204)
          const gone = yield* alice.browser.request(`/api/v1/channels/${c.id}`)
          expect(gone.status).toBe(404)
          expect(Http.envelope(gone).code).toBe("NOT_FOUND")
        }
        expect((yield* list(alice)).total).toBe(0)
      })
    )

    it.effect("every config refusal answers its status, code and field path", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        const cases: ReadonlyArray<readonly [Record<string, unknown>, number, string, string]> = [
          [{ kind: "email", config: { addresses: [] } }, 400, "VALIDATION_FAILED", "config.addresses"],
          [
            { kind: "email", config: { addresses: ["ops@example.com", "nope"] } },
            400,
            "VALIDATION_FAILED",
            "config.addresses[1]"
          ],
          [
            { kind: "email", config: { addresses: ["a@example.com", "A@example.com"] } },
            400,
            "VALIDATION_FAILED",
            "config.addresses"
          ],
          [{ kind: "email", config: {} }, 400, "VALIDATION_FAILED", "config.addresses"],
          [{ kind: "webhook", config: { url: "ftp://files.example.com/in" } }, 400, "VALIDATION_FAILED", "config.url"],
          [
            { kind: "webhook", config: { url: "https://user:pw@hooks.example.com/" } },
            400,
            "VALIDATION_FAILED",
            "config.url"
          ],
          [
            {
              kind: "webhook",
              config: { url: "https://hooks.example.com/", headers: { "Content-Type": "text/plain" } }
            },
            400,
            "VALIDATION_FAILED",
            "config.headers"
          ],
          [
            { kind: "webhook", config: { url: "https://hooks.example.com/", headers: { "bad name": "x" } } },
            400,
            "VALIDATION_FAILED",
            "config.headers"
          ],
          [
            { kind: "webhook", config: { url: "https://hooks.example.com/", headers: { "X-A": "a\r\nX-B: b" } } },
            400,
            "VALIDATION_FAILED",
            "config.headers.X-A"
          ],
          [
            { kind: "webhook", config: { url: "https://hooks.example.com/", secret: "short" } },
            400,
            "VALIDATION_FAILED",
            "config.secret"
          ],
          [
            { kind: "webhook", config: { url: "http://127.0.0.1:9000/hook" } },
            400,
            "TARGET_ADDRESS_BLOCKED",
            "config.url"
          ],
          [
            { kind: "webhook", config: { url: "http://[::ffff:10.0.0.1]/hook" } },
            400,
            "TARGET_ADDRESS_BLOCKED",
            "config.url"
          ],
          [
            { kind: "slack", config: { webhook_url: "http://hooks.slack.com/services/T/B/x" } },
            400,
            "VALIDATION_FAILED",
            "config.webhook_url"
          ],
          [
            { kind: "slack", config: { webhook_url: "https://169.254.169.254/latest" } },
            400,
            "TARGET_ADDRESS_BLOCKED",
            "config.webhook_url"
          ],
          [{ kind: "discord", config: { webhook_url: "not a url" } }, 400, "VALIDATION_FAILED", "config.webhook_url"],
          [{ kind: "teams", config: {} }, 400, "VALIDATION_FAILED", "config.webhook_url"],
          [
            { kind: "telegram", config: { bot_token: "nope", chat_id: "42" } },
            400,
            "VALIDATION_FAILED",
            "config.bot_token"
          ],
          [
            { kind: "telegram", config: { bot_token: BOT_TOKEN, chat_id: "my chat" } },
            400,
            "VALIDATION_FAILED",
            "config.chat_id"
          ],
          [
            { kind: "telegram", config: { bot_token: BOT_TOKEN, chat_id: 42 } },
            400,
            "VALIDATION_FAILED",
            "config.chat_id"
          ],
          [{ kind: "pagerduty", config: { routing_key: "too-short" } }, 400, "VALIDATION_FAILED", "config.routing_key"],
          [
            { kind: "pagerduty", config: { routing_key: ROUTING_KEY, severity: "fatal" } },
            400,
            "VALIDATION_FAILED",
            "config.severity"
          ],
          [
            { kind: "opsgenie", config: { api_key: OPSGENIE_KEY, region: "ap" } },
            400,
            "VALIDATION_FAILED",
            "config.region"
          ],
          [{ kind: "opsgenie", config: { api_key: "" } }, 400, "VALIDATION_FAILED", "config.api_key"],
          [
            { kind: "opsgenie", config: { api_key: OPSGENIE_KEY, priority: "P9" } },
            400,
            "VALIDATION_FAILED",
            "config.priority"
          ],
          [{ kind: "ntfy", config: { topic: "has space" } }, 400, "VALIDATION_FAILED", "config.topic"],
          [{ kind: "ntfy", config: { topic: "alerts", priority: 9 } }, 400, "VALIDATION_FAILED", "config.priority"],
          [
            { kind: "ntfy", config: { topic: "alerts", server_url: "ntfy.example.com" } },
            400,
            "VALIDATION_FAILED",
            "config.server_url"
          ],
          [
            { kind: "ntfy", config: { topic: "alerts", server_url: "http://[::1]:8080" } },
            400,
            "TARGET_ADDRESS_BLOCKED",
            "config.server_url"
          ],
          [
            { kind: "sms", config: { phone_numbers: ["0155 5550123"] } },
            400,
            "VALIDATION_FAILED",
            "config.phone_numbers[0]"
          ],
          [{ kind: "carrier-pigeon", config: {} }, 400, "VALIDATION_FAILED", "kind"],
          [{ config: { webhook_url: SLACK_URL } }, 400, "VALIDATION_FAILED", "kind"],
          [
            { kind: "slack", config: { webhook_url: SLACK_URL, channel: "#ops" } },
            422,
            "INVALID_JSON",
            "config.channel"
          ],
          [{ kind: "slack", config: { webhook_url: SLACK_URL }, id: "echoed" }, 422, "INVALID_JSON", "id"],
          [
            { kind: "slack", config: { webhook_url: SLACK_URL }, write_source: "api" },
            422,
            "INVALID_JSON",
            "write_source"
          ],
          [{ kind: "slack", config: { webhook_url: "***" } }, 400, "REDACTION_SENTINEL", "config.webhook_url"],
          [
            { kind: "webhook", config: { url: "https://hooks.example.com/", headers: { Authorization: "***" } } },
            400,
            "REDACTION_SENTINEL",
            "config.headers.Authorization"
          ],
          [
            { kind: "webhook", config: { url: "https://hooks.example.com/", secret: "***" } },
            400,
            "REDACTION_SENTINEL",
            "config.secret"
          ]
        ]
        for (const [body, status, code, field] of cases) {
          const reply = yield* createChannel(alice, { name: "refused", ...body })
          const label = JSON.stringify(body)
          expect(reply.status, label).toBe(status)
          expect(Http.envelope(reply), label).toMatchObject({ code, field })
        }
        const noName = yield* createChannel(alice, { name: "  ", kind: "slack", config: { webhook_url: SLACK_URL } })
        expect(Http.envelope(noName)).toMatchObject({ code: "VALIDATION_FAILED", field: "name" })
        expect((yield* list(alice)).total).toBe(0)
      })
    )

    it.effect("webhook signing secret: generated and shown once as signing_secret; a given one is never echoed", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const generated = yield* channel(alice, {
          name: "gen",
          kind: "webhook",
          config: { url: "https://hooks.example.com/a" }
        })
        expect(generated.signing_secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/)
        expect(generated.config).toEqual({ url: "https://hooks.example.com/a", headers: {}, secret: "***" })
        const read = yield* alice.browser.request(`/api/v1/channels/${generated.id}`)
        expect(read.text).not.toContain(generated.signing_secret ?? "")
        expect(read.json).not.toHaveProperty("signing_secret")
        expect((yield* storedSecrets(server, generated.id)).secrets).toEqual({ secret: generated.signing_secret })

        const given = "a-signing-secret-of-my-own"
        const mine = yield* createChannel(alice, {
          name: "mine",
          kind: "webhook",
          config: { url: "https://hooks.example.com/b", secret: given }
        })
        expect(mine.status).toBe(201)
        expect(mine.text).not.toContain(given)
        expect(mine.json).not.toHaveProperty("signing_secret")
        expect((yield* storedSecrets(server, Http.decode(mine, CreatedChannel).id)).secrets).toEqual({ secret: given })
      })
    )

    it.effect(
      "PATCH: *** keeps the stored secret, a new value replaces it, a stored-less *** is REDACTION_SENTINEL",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const slack = yield* channel(alice, { name: "slack", kind: "slack", config: { webhook_url: SLACK_URL } })
          const before = yield* storedSecrets(server, slack.id)

          // A rename leaves the sealed secrets untouched.
          expect((yield* patch(alice, slack.id, { name: "slack #ops" })).status).toBe(200)
          expect((yield* storedSecrets(server, slack.id)).sealed).toBe(before.sealed)

          // The GET's config sent back keeps the secret.
          const kept = yield* patch(alice, slack.id, { config: slack.config })
          expect(kept.status, kept.text).toBe(200)
          expect(Http.decode(kept, Channel).config).toEqual({ webhook_url: "***" })
          expect((yield* storedSecrets(server, slack.id)).secrets).toEqual({ webhook_url: SLACK_URL })

          const rotated = "https://hooks.slack.com/services/T00000000/B00000000/rotatedslacksecret"
          const replaced = yield* patch(alice, slack.id, { config: { webhook_url: rotated } })
          expect(replaced.status).toBe(200)
          expect(replaced.text).not.toContain(rotated)
          expect((yield* storedSecrets(server, slack.id)).secrets).toEqual({ webhook_url: rotated })

          // Refusals on PATCH: the kind is fixed, the config is judged by it, unknown keys are 422.
          const refusals: ReadonlyArray<readonly [Record<string, unknown>, number, string, string]> = [
            [{ kind: "email" }, 422, "INVALID_JSON", "kind"],
            [{ config: { webhook_url: "http://hooks.slack.com/x" } }, 400, "VALIDATION_FAILED", "config.webhook_url"],
            [{ config: { webhook_url: "***", extra: 1 } }, 422, "INVALID_JSON", "config.extra"],
            [{ config: { addresses: ["ops@example.com"] } }, 422, "INVALID_JSON", "config.addresses"],
            [{ config: { webhook_url: "https://10.1.2.3/hook" } }, 400, "TARGET_ADDRESS_BLOCKED", "config.webhook_url"],
            [{ enabled: "yes" }, 400, "VALIDATION_FAILED", "enabled"]
          ]
          for (const [body, status, code, field] of refusals) {
            const reply = yield* patch(alice, slack.id, body)
            expect(reply.status, JSON.stringify(body)).toBe(status)
            expect(Http.envelope(reply), JSON.stringify(body)).toMatchObject({ code, field })
          }
          expect((yield* storedSecrets(server, slack.id)).secrets).toEqual({ webhook_url: rotated })

          // ntfy without a stored token: *** has nothing to keep.
          const ntfy = yield* channel(alice, { name: "ntfy", kind: "ntfy", config: { topic: "alerts" } })
          expect(ntfy.config["token"]).toBeNull()
          const nothingKept = yield* patch(alice, ntfy.id, { config: { topic: "alerts", token: "***" } })
          expect(nothingKept.status).toBe(400)
          expect(Http.envelope(nothingKept)).toMatchObject({ code: "REDACTION_SENTINEL", field: "config.token" })

          // Webhook: headers by name (case-insensitive), the signing secret kept when omitted or ***.
          const hook = yield* channel(alice, {
            name: "hook",
            kind: "webhook",
            config: { url: "https://hooks.example.com/a", headers: { Authorization: HEADER_SECRET } }
          })
          const edited = yield* patch(alice, hook.id, {
            config: {
              url: "https://hooks.example.com/b",
              headers: { authorization: "***", "X-Env": "prod" },
              secret: "***"
            }
          })
          expect(edited.status, edited.text).toBe(200)
          expect(Http.decode(edited, Channel).config).toEqual({
            url: "https://hooks.example.com/b",
            headers: { authorization: "***", "X-Env": "***" },
            secret: "***"
          })
          expect((yield* storedSecrets(server, hook.id)).secrets).toEqual({
            secret: hook.signing_secret,
            "headers.authorization": HEADER_SECRET,
            "headers.X-Env": "prod"
          })
          const unknownHeader = yield* patch(alice, hook.id, {
            config: { url: "https://hooks.example.com/b", headers: { "X-Other": "***" } }
          })
          expect(Http.envelope(unknownHeader)).toMatchObject({
            code: "REDACTION_SENTINEL",
            field: "config.headers.X-Other"
          })
          const bare = yield* patch(alice, hook.id, { config: { url: "https://hooks.example.com/c" } })
          expect(Http.decode(bare, Channel).config).toEqual({
            url: "https://hooks.example.com/c",
            headers: {},
            secret: "***"
          })
          expect((yield* storedSecrets(server, hook.id)).secrets).toEqual({ secret: hook.signing_secret })
          const newSecret = "a-brand-new-signing-secret"
          expect(
            (yield* patch(alice, hook.id, { config: { url: "https://hooks.example.com/c", secret: newSecret } })).status
          ).toBe(200)
          expect((yield* storedSecrets(server, hook.id)).secrets).toEqual({ secret: newSecret })
        })
    )

    it.effect(
      "scopes and write_source: read lists, write creates (api, or iac from the CLI), delete needs delete",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const org = alice.org
          const json = (body: unknown, method = "POST", headers: Record<string, string> = {}) => ({
            method,
            headers: { "content-type": "application/json", ...headers },
            body: JSON.stringify(body)
          })
          const reader = yield* mintToken(alice, { scopes: ["channels:read"], org_id: org.id })
          const writer = yield* mintToken(alice, { scopes: ["channels:write"], org_id: org.id })
          const deleter = yield* mintToken(alice, { scopes: ["channels:delete"], org_id: org.id })
          const targetsOnly = yield* mintToken(alice, { scopes: ["targets:write"], org_id: org.id })
          const body = { name: "pager", kind: "pagerduty", config: { routing_key: ROUTING_KEY } }

          const refused = yield* bearer(server, reader.token, "/api/v1/channels", json(body))
          expect(refused.status).toBe(403)
          expect(Http.envelope(refused)).toMatchObject({
            code: "INSUFFICIENT_SCOPE",
            details: { required: "channels:write" }
          })
          const created = yield* bearer(server, writer.token, "/api/v1/channels", json(body))
          expect(created.status).toBe(201)
          const made = Http.decode(created, CreatedChannel)
          expect(made.write_source).toBe("api")
          expect((yield* bearer(server, reader.token, "/api/v1/channels")).status).toBe(200)
          expect((yield* bearer(server, writer.token, `/api/v1/channels/${made.id}`)).status).toBe(200)
          expect(Http.envelope(yield* bearer(server, targetsOnly.token, "/api/v1/channels"))).toMatchObject({
            code: "INSUFFICIENT_SCOPE",
            details: { required: "channels:read" }
          })
          const readerPatch = yield* bearer(
            server,
            reader.token,
            `/api/v1/channels/${made.id}`,
            json({ name: "x" }, "PATCH")
          )
          expect(Http.envelope(readerPatch).code).toBe("INSUFFICIENT_SCOPE")

          const fromCli = yield* bearer(
            server,
            writer.token,
            `/api/v1/channels/${made.id}`,
            json({ name: "pager (iac)" }, "PATCH", { "user-agent": "signalman-cli/0.1.0" })
          )
          expect(Http.decode(fromCli, Channel).write_source).toBe("iac")
          const fromUi = yield* patch(alice, made.id, { name: "pager (ui)" })
          expect(Http.decode(fromUi, Channel).write_source).toBe("ui")

          const notDeleter = yield* bearer(server, writer.token, `/api/v1/channels/${made.id}`, { method: "DELETE" })
          expect(Http.envelope(notDeleter)).toMatchObject({
            code: "INSUFFICIENT_SCOPE",
            details: { required: "channels:delete" }
          })
          expect(Http.envelope(yield* bearer(server, deleter.token, "/api/v1/channels")).code).toBe(
            "INSUFFICIENT_SCOPE"
          )
          expect(
            (yield* bearer(server, deleter.token, `/api/v1/channels/${made.id}`, { method: "DELETE" })).status
          ).toBe(204)
        })
    )

    it.effect("another org's channel is 404 on get, PATCH and delete, absent from its list, refused as a binding", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        const mine = yield* channel(alice, {
          name: "alice",
          kind: "email",
          config: { addresses: ["alice@example.com"] }
        })
        const bob = yield* Fixture.person()
        for (const [method, json] of [
          ["GET", undefined],
          ["PATCH", { name: "bob's now" }],
          ["DELETE", undefined]
        ] as const) {
          const reply = yield* bob.browser.request(`/api/v1/channels/${mine.id}`, {
            method,
            ...(json === undefined ? {} : { json })
          })
          expect(reply.status, method).toBe(404)
          expect(Http.envelope(reply).code).toBe("NOT_FOUND")
        }
        const unknown = yield* bob.browser.request("/api/v1/channels/01234567-89ab-7def-8123-456789abcdef")
        expect(unknown.status).toBe(404)
        expect(Http.envelope(unknown).code).toBe("NOT_FOUND")
        expect((yield* bob.browser.request("/api/v1/channels")).json).toMatchObject({ total: 0, data: [] })
        const target = yield* bob.browser.request("/api/v1/targets", {
          json: { name: "bob's", check: httpCheck, alerts: [{ channel_id: mine.id }] }
        })
        expect(target.status).toBe(400)
        expect(Http.envelope(target)).toMatchObject({ code: "VALIDATION_FAILED", field: "alerts[0].channel_id" })
        expect(Http.decode(yield* alice.browser.request(`/api/v1/channels/${mine.id}`), Channel).name).toBe("alice")
      })
    )

    it.effect(
      "alert bindings: channels of the org accepted; unknown, duplicate or extra keys refused; deleting a channel unbinds it",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const a = yield* channel(alice, { name: "a", kind: "email", config: { addresses: ["a@example.com"] } })
          const b = yield* channel(alice, { name: "b", kind: "slack", config: { webhook_url: SLACK_URL } })
          const createTarget = (alerts: unknown) =>
            alice.browser.request("/api/v1/targets", { json: { name: "web", check: httpCheck, alerts } })

          const bound = yield* createTarget([{ channel_id: a.id }, { channel_id: b.id }])
          expect(bound.status, bound.text).toBe(201)
          const target = Http.wire(bound, Target)
          expect(target.alerts).toEqual([{ channel_id: a.id }, { channel_id: b.id }])

          const refusals: ReadonlyArray<readonly [unknown, number, string, string]> = [
            [
              [{ channel_id: a.id }, { channel_id: "01234567-89ab-7def-8123-456789abcdef" }],
              400,
              "VALIDATION_FAILED",
              "alerts[1].channel_id"
            ],
            [
              [{ channel_id: a.id }, { channel_id: b.id }, { channel_id: a.id.toUpperCase() }],
              400,
              "VALIDATION_FAILED",
              "alerts[2].channel_id"
            ],
            [[{ channel_id: "not-a-uuid" }], 400, "VALIDATION_FAILED", "alerts[0].channel_id"],
            [[{ channel_id: a.id, note: "x" }], 422, "INVALID_JSON", "alerts[0].note"],
            [[{}], 400, "VALIDATION_FAILED", "alerts[0].channel_id"]
          ]
          for (const [alerts, status, code, field] of refusals) {
            const reply = yield* createTarget(alerts)
            expect(reply.status, JSON.stringify(alerts)).toBe(status)
            expect(Http.envelope(reply), JSON.stringify(alerts)).toMatchObject({ code, field })
          }
          const patched = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
            method: "PATCH",
            json: { alerts: [{ channel_id: b.id }, { channel_id: "01234567-89ab-7def-8123-456789abcdef" }] }
          })
          expect(Http.envelope(patched)).toMatchObject({ code: "VALIDATION_FAILED", field: "alerts[1].channel_id" })
          const empty = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
            method: "PATCH",
            json: { alerts: [] }
          })
          expect(Http.wire(empty, Target).alerts).toEqual([])
          const rebound = yield* alice.browser.request(`/api/v1/targets/${target.id}`, {
            method: "PATCH",
            json: { alerts: [{ channel_id: b.id }, { channel_id: a.id }] }
          })
          expect(Http.wire(rebound, Target).alerts).toEqual([{ channel_id: b.id }, { channel_id: a.id }])
          const other = Http.decode(yield* createTarget([{ channel_id: a.id }]), Target).id

          // Deleting a channel removes its bindings in the same transaction; other bindings keep their order.
          expect((yield* alice.browser.request(`/api/v1/channels/${a.id}`, { method: "DELETE" })).status).toBe(204)
          const after = Http.wire(yield* alice.browser.request(`/api/v1/targets/${target.id}`), Target)
          expect(after.alerts).toEqual([{ channel_id: b.id }])
          const otherAfter = Http.wire(yield* alice.browser.request(`/api/v1/targets/${other}`), Target)
          expect(otherAfter.alerts).toEqual([])
          const dangling = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM targets WHERE alerts::text LIKE ${`%${a.id}%`}
      `
          expect(dangling[0]?.n).toBe(0)
        })
    )
  }
)

// Settings the tests above must not have, on a server of their own: internal addresses allowed (the refusals above
// expect them blocked), five channels on the free plan (the first test above makes ten) with the sms flag off,
// which the sms test turns on and off again (so plans are cached for a second only). Neither of the other two tests
// here makes an sms channel, and the internal-address test makes one channel.
Fixture.describe(
  `notification channels, plan limits and internal addresses (${TestDatabase.kind} database)`,
  {
    env: { ...env, CHECKER__ALLOW_PRIVATE_TARGETS: "true", PLAN_CACHE_TTL_SECS: "1" },
    sql: ["UPDATE plans SET max_notification_channels = 5 WHERE id = 'free'"]
  },
  (it) => {
    it.effect("an internal address is accepted when checker.allow_private_targets is on", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        const created = yield* channel(alice, {
          name: "lan",
          kind: "webhook",
          config: { url: "http://127.0.0.1:9000/hook" }
        })
        expect(created.config["url"]).toBe("http://127.0.0.1:9000/hook")
      })
    )

    it.effect("max_notification_channels: concurrent creates settle exactly at the limit, 422 QUOTA_EXCEEDED", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const body = (i: number) => ({ name: `c${i}`, kind: "email", config: { addresses: [`ops${i}@example.com`] } })
        yield* channel(alice, body(0))
        yield* channel(alice, body(1))
        const replies = yield* Effect.forEach(
          Array.from({ length: 8 }, (_, i) => i + 2),
          (i) => createChannel(alice, body(i)),
          { concurrency: "unbounded" }
        )
        expect(replies.filter((r) => r.status === 201)).toHaveLength(3)
        const refused = replies.filter((r) => r.status === 422)
        expect(refused).toHaveLength(5)
        assert.isDefined(refused[0])
        expect(Http.envelope(refused[0])).toMatchObject({
          code: "QUOTA_EXCEEDED",
          field: null,
          details: { quota: "max_notification_channels", current: 5, limit: 5, plan: "free" }
        })
        expect((yield* list(alice)).total).toBe(5)
        const events = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM quota_events
        WHERE name = 'max_notification_channels' AND account_id = ${alice.accountId}
      `
        expect(events[0]?.n).toBe(5)
        const usage = Http.decode(yield* alice.browser.request(`/api/v1/orgs/${alice.org.id}/usage`), OrgUsage)
        expect(usage.quotas["max_notification_channels"]).toEqual({ current: 5, limit: 5 })

        // A delete frees a place.
        const first = (yield* list(alice)).data[0]
        assert.isDefined(first)
        expect((yield* alice.browser.request(`/api/v1/channels/${first.id}`, { method: "DELETE" })).status).toBe(204)
        expect((yield* createChannel(alice, body(20))).status).toBe(201)
        expect((yield* createChannel(alice, body(21))).status).toBe(422)
      })
    )

    it.effect(
      "sms: 403 SMS_ALERTS_DISABLED without the plan flag; with it, created; after a downgrade only rename, pause, delete",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const sms = { name: "phones", kind: "sms", config: { phone_numbers: ["+14155550123"] } }
          const refused = yield* createChannel(alice, sms)
          expect(refused.status).toBe(403)
          expect(Http.envelope(refused)).toMatchObject({
            code: "SMS_ALERTS_DISABLED",
            field: "kind",
            details: { flag: "sms_alerts_enabled", plan: "free" }
          })

          yield* server.sql`UPDATE plans SET sms_alerts_enabled = true WHERE id = 'free'`
          expect(yield* smsFlagInForce(alice, true)).toBe(true)
          const created = yield* channel(alice, sms)
          expect(created.config).toEqual({ phone_numbers: ["+14155550123"] })

          yield* server.sql`UPDATE plans SET sms_alerts_enabled = false WHERE id = 'free'`
          expect(yield* smsFlagInForce(alice, false)).toBe(false)
          expect((yield* patch(alice, created.id, { name: "phones (old plan)", enabled: false })).status).toBe(200)
          for (const body of [{ enabled: true }, { config: { phone_numbers: ["+14155550124"] } }]) {
            const reply = yield* patch(alice, created.id, body)
            expect(reply.status, JSON.stringify(body)).toBe(403)
            expect(Http.envelope(reply).code).toBe("SMS_ALERTS_DISABLED")
          }
          expect((yield* alice.browser.request(`/api/v1/channels/${created.id}`, { method: "DELETE" })).status).toBe(
            204
          )
        })
    )
  }
)
