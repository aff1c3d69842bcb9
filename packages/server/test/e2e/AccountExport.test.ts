/**
 * `GET /api/v1/me/export`: the account's data as one JSON document offered as a file, session only, with nothing
 * secret in it.
 */
import { expect } from "@effect/vitest"
import { AccountExport } from "@signalman/core/api/AccountExport"
import { CreatedChannel } from "@signalman/core/Channel"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { uuidv7 } from "../../src/infra/Ids.js"
import { sha256 } from "../../src/infra/Secrets.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const CHANNEL_SECRET = "Bearer export-channel-secret-9f3a"
const SIGNING_SECRET = "whsec-export-signing-secret-4c1d27"
const VARIABLE_SECRET = "export-variable-secret-77b2"

/** What a create answers, read for its id alone. */
const Created = Schema.Struct({ id: Schema.String })

let slugs = 0
const slug = (label: string) => `${label}-${Date.now().toString(36)}-${slugs++}`

Fixture.describe(`account export (${TestDatabase.kind} database)`, {}, (it) => {
  it.effect("the export is one JSON file with the account's orgs, resources, sessions, tokens and history", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      // On a plan with on-call, so her org has a schedule and an escalation policy to export.
      const alice = yield* Fixture.person({ label: "export", plan: "pro" })
      const bob = yield* Fixture.person({ label: "export-other" })
      const monitor = yield* alice.browser.request("/api/v1/targets", {
        json: { name: "Website", check: { type: "http", url: "https://example.com/health" } }
      })
      expect(monitor.status, monitor.text).toBe(201)
      const channel = Http.expectOk(
        yield* alice.browser.request("/api/v1/channels", {
          json: {
            name: "hook",
            kind: "webhook",
            config: {
              url: "https://hooks.example.com/export",
              headers: { Authorization: CHANNEL_SECRET },
              secret: SIGNING_SECRET
            }
          }
        }),
        CreatedChannel,
        201
      )
      const page = yield* alice.browser.request("/api/v1/status-pages", {
        json: { slug: slug("export"), name: "Status" }
      })
      expect(page.status, page.text).toBe(201)
      for (const body of [
        { key: "region", is_secret: false, value: "eu-west" },
        { key: "api_key", is_secret: true, value: VARIABLE_SECRET }
      ]) {
        const created = yield* alice.browser.request("/api/v1/variables", { json: body })
        expect(created.status, created.text).toBe(201)
      }
      const schedule = Http.expectOk(
        yield* alice.browser.request("/api/v1/oncall/schedules", {
          json: {
            name: "Primary",
            time_zone: "Europe/Berlin",
            layers: [
              {
                name: "weekly",
                starts_at: "2026-01-05T08:00:00Z",
                rotation: { length: { unit: "weeks", count: 1 }, handoff: "09:00" },
                participants: [alice.userId],
                restrictions: []
              }
            ]
          }
        }),
        Created,
        201
      )
      const policy = yield* alice.browser.request("/api/v1/oncall/escalation-policies", {
        json: { name: "Page the rota", steps: [{ delay_minutes: 0, targets: [{ type: "schedule", id: schedule.id }] }] }
      })
      expect(policy.status, policy.text).toBe(201)
      // Bob's org, which Alice joins: she belongs to it, her account does not own it, so it is not hers to export.
      yield* server.sql`
        INSERT INTO memberships (org_id, user_id, role) VALUES (${bob.org.id}, ${alice.userId}, 'member')
      `
      // A credential change (the providers and passkeys that write them are tested in their own files) and two
      // attempts: one inside the 90 days, one outside.
      yield* server.sql`
        INSERT INTO credential_events (id, user_id, change, method, origin, label, ip_hash, user_agent_hash)
        VALUES (${uuidv7()}, ${alice.userId}, 'added', 'github', 'session', 'alice-gh', 'iphash', 'uahash')
      `
      yield* server.sql`
        INSERT INTO auth_attempts (id, method, success, failure_reason, user_id, created_at) VALUES
          (${uuidv7()}, 'github_oauth', false, 'oauth_denied', ${alice.userId}, now() - interval '89 days'),
          (${uuidv7()}, 'magic_link', false, 'token_expired', ${alice.userId}, now() - interval '91 days')
      `

      const reply = yield* alice.browser.request("/api/v1/me/export")
      expect(reply.status, reply.text).toBe(200)
      expect(reply.headers.get("content-type")).toContain("application/json")
      const today = new Date().toISOString().slice(0, 10)
      expect(reply.headers.get("content-disposition")).toMatch(
        new RegExp(`^attachment; filename="signalman-export-(${today}|\\d{4}-\\d{2}-\\d{2})\\.json"$`)
      )
      const exported = Http.decode(reply, AccountExport)

      expect(exported.user).toMatchObject({ id: alice.userId, email: alice.email, email_verified: true })
      expect(exported.user.deletion_scheduled_for).toBeNull()
      expect(exported.orgs.map((o) => o.id)).toEqual([alice.org.id])
      const [org] = exported.orgs
      expect(org?.monitors.map((m) => m.name)).toEqual(["Website"])
      expect(org?.channels.map((c) => [c.id, c.kind])).toEqual([[channel.id, "webhook"]])
      expect(org?.status_pages.map((p) => p.name)).toEqual(["Status"])
      expect(org?.on_call_schedules.map((o) => [o.id, o.name, o.time_zone])).toEqual([
        [schedule.id, "Primary", "Europe/Berlin"]
      ])
      expect(org?.escalation_policies.map((o) => [o.name, o.steps[0]?.targets[0]?.id])).toEqual([
        ["Page the rota", schedule.id]
      ])
      expect(org?.variables.map((v) => [v.key, v.is_secret, v.value]).sort()).toEqual([
        ["api_key", true, null],
        ["region", false, "eu-west"]
      ])
      // The fixture's person has one session (this browser) and one token.
      expect(exported.sessions.map((s) => s.current)).toEqual([true])
      expect(exported.api_tokens.map((t) => t.name)).toEqual(["fixture"])
      expect(exported.api_tokens[0]?.prefix).toBe(alice.token.slice(0, 16))
      expect(exported.credential_changes.map((c) => [c.change, c.method, c.origin, c.label])).toEqual([
        ["added", "github", "session", "alice-gh"]
      ])
      expect(exported.sign_in_attempts.map((a) => [a.method, a.success, a.failure_reason])).toEqual([
        ["magic_link", true, null],
        ["github_oauth", false, "oauth_denied"]
      ])
    })
  )

  it.effect("no secret is in the export: channel secrets, secret values, token hashes, the session cookie", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const carol = yield* Fixture.person({ label: "export-secrets" })
      const channel = yield* carol.browser.request("/api/v1/channels", {
        json: {
          name: "hook",
          kind: "webhook",
          config: {
            url: "https://hooks.example.com/secrets",
            headers: { Authorization: CHANNEL_SECRET },
            secret: SIGNING_SECRET
          }
        }
      })
      expect(channel.status, channel.text).toBe(201)
      const variable = yield* carol.browser.request("/api/v1/variables", {
        json: { key: "password", is_secret: true, value: VARIABLE_SECRET }
      })
      expect(variable.status, variable.text).toBe(201)
      const [stored] = yield* server.sql<{ hash: string }>`SELECT hash FROM api_tokens WHERE user_id = ${carol.userId}`
      const cookie = carol.browser.cookies.get("_sm_session")
      if (stored === undefined || cookie === undefined) return yield* Effect.dieMessage("no token or session")
      const [session] = yield* server.sql<{ ip_hash: string | null; user_agent_hash: string | null }>`
        SELECT ip_hash, user_agent_hash FROM sessions WHERE user_id = ${carol.userId}
      `

      const reply = yield* carol.browser.request("/api/v1/me/export")
      expect(reply.status).toBe(200)
      const forbidden = [
        CHANNEL_SECRET,
        SIGNING_SECRET,
        VARIABLE_SECRET,
        stored.hash,
        carol.token,
        cookie,
        sha256(cookie).toString("hex"),
        sha256(cookie).toString("base64")
      ]
      for (const secret of forbidden) expect(reply.text).not.toContain(secret)
      // Device hashes are not the person's data to read either.
      for (const hash of [session?.ip_hash, session?.user_agent_hash]) if (hash) expect(reply.text).not.toContain(hash)
      expect(Http.decode(reply, AccountExport).orgs[0]?.channels[0]?.config).toMatchObject({
        headers: { Authorization: "***" },
        secret: "***"
      })
    })
  )

  it.effect("a bearer token gets the session-only refusal, and no one signed in gets 401", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const dave = yield* Fixture.person({ label: "export-token" })
      const byToken = yield* dave.api("/api/v1/me/export")
      expect(byToken.status).toBe(403)
      expect(Http.envelope(byToken).code).toBe("SESSION_REQUIRED")
      const anonymous = yield* Http.request(`${server.baseUrl}/api/v1/me/export`)
      expect(anonymous.status).toBe(401)
      expect(Http.envelope(anonymous).code).toBe("UNAUTHENTICATED")
    })
  )

  it.effect("an account inside its deletion grace can still export, with the date it is purged", () =>
    Effect.gen(function* () {
      const erin = yield* Fixture.person({ label: "export-grace" })
      const deleted = yield* erin.browser.request("/api/v1/me", { method: "DELETE" })
      expect(deleted.status, deleted.text).toBe(200)
      const reply = yield* erin.browser.request("/api/v1/me/export")
      expect(reply.status, reply.text).toBe(200)
      const exported = Http.decode(reply, AccountExport)
      expect(exported.user.deletion_scheduled_for).not.toBeNull()
      expect(exported.orgs.map((o) => [o.id, o.deleted_at === null])).toEqual([[erin.org.id, false]])
    })
  )
})
