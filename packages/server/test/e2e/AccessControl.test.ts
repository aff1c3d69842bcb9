/**
 * Who may do what: API tokens, sessions, CSRF, org binding, orgs and invitations, and the limits around them.
 */
import { assert, expect } from "@effect/vitest"
import { ApiToken, Invitation, Me, MeUsage, Org, OrgUsage, SessionInfo } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Browser from "../support/Browser.js"
import { awayFromMinuteEdge } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person, signIn, uniqueEmail } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

// A one-second plan cache, so a test that changes a plan row sees it take effect.
const settings = { PLAN_CACHE_TTL_SECS: "1" }

// People sign in with `signIn`, not `Fixture.person`: these tests count and list a person's API tokens, and the
// fixture's person comes with one of its own.
const environment = Fixture.Fixture

/** `/me` as the contract reads it. */
const me = (person: Person) => Effect.map(person.browser.request("/api/v1/me"), (reply) => Http.decode(reply, Me))

// `GET /me/api-tokens`, `/me/sessions` and `/orgs/{id}/invitations`: the contract declares these answers inline
// (api/Me.ts, api/Orgs.ts), so they are spelt here from its own item schemas.
const TokenList = Schema.Struct({ data: Schema.Array(ApiToken) })
const SessionList = Schema.Struct({ data: Schema.Array(SessionInfo) })
const InvitationList = Schema.Struct({ data: Schema.Array(Invitation) })

const code = (reply: Http.Reply) => Http.envelope(reply).code

Fixture.describe(`access control (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect("no credentials, a malformed, unknown, revoked or expired token, or a bad cookie is 401", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      // The failure log is the server's: this test's failures are what it gains while the test runs.
      const failures = server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM auth_attempts WHERE method = 'api_token' AND NOT success AND failure_reason = 'invalid_token'
      `
      const failedBefore = (yield* failures)[0]?.n ?? 0
      const alice = yield* signIn(server, smtp)
      const token = yield* mintToken(alice)
      const short = yield* mintToken(alice, { name: "short", expires_in_days: 1 })

      expect(code(yield* Http.request(`${server.baseUrl}/api/v1/me`))).toBe("UNAUTHENTICATED")
      for (const value of [
        "sm_live_short",
        `sm_live_${"A".repeat(43)}`,
        `${token.token.slice(0, -1)}${token.token.endsWith("A") ? "B" : "A"}`,
        token.token.replace("sm_live_", "sm_agent_"),
        ""
      ]) {
        const reply = yield* bearer(server, value, "/api/v1/me")
        expect(reply.status, value).toBe(401)
        expect(code(reply)).toBe("UNAUTHENTICATED")
      }
      for (const cookie of ["_sm_session=garbage", `_sm_session=${"a".repeat(43)}`, "_sm_session="]) {
        const reply = yield* Http.request(`${server.baseUrl}/api/v1/me`, { headers: { cookie } })
        expect(reply.status, cookie).toBe(401)
      }

      // A token works until revoked, and the revoke takes effect at once (the verification cache drops it).
      expect((yield* bearer(server, token.token, "/api/v1/me")).status).toBe(200)
      expect((yield* alice.browser.request(`/api/v1/me/api-tokens/${token.id}`, { method: "DELETE" })).status).toBe(204)
      expect(code(yield* bearer(server, token.token, "/api/v1/me"))).toBe("UNAUTHENTICATED")

      // Expiry: an expired token authenticates as invalid. (Expiry is fixed at creation; the test moves it back
      // before the token's first use, as time would.)
      yield* server.sql`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = ${short.id}`
      expect(code(yield* bearer(server, short.token, "/api/v1/me"))).toBe("UNAUTHENTICATED")

      const failed = yield* failures
      expect((failed[0]?.n ?? 0) - failedBefore).toBeGreaterThanOrEqual(7)
    })
  )

  it.effect("last_used_at is written once a minute at most, however often the token is used", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const token = yield* mintToken(alice)
      const lastUsed = () =>
        Effect.map(
          server.sql<{ last_used_at: Date | null }>`SELECT last_used_at FROM api_tokens WHERE id = ${token.id}`,
          (rows) => rows[0]?.last_used_at?.getTime() ?? null
        )
      expect(yield* lastUsed()).toBeNull()
      yield* bearer(server, token.token, "/api/v1/me")
      const first = yield* lastUsed()
      expect(first).not.toBeNull()
      for (let i = 0; i < 5; i++) yield* bearer(server, token.token, "/api/v1/me")
      expect(yield* lastUsed()).toBe(first)
      const listed = Http.wire(yield* alice.browser.request("/api/v1/me/api-tokens"), TokenList)
      expect(Date.parse(listed.data[0]?.last_used_at ?? "")).toBe(first)
    })
  )

  it.effect("token management is session-only: a bearer token cannot list, mint, rename or revoke tokens", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const token = yield* mintToken(alice)
      const json = { "content-type": "application/json" }
      for (const [method, path, body] of [
        ["GET", "/api/v1/me/api-tokens", undefined],
        ["POST", "/api/v1/me/api-tokens", JSON.stringify({ name: "x", scopes: [] })],
        ["PATCH", `/api/v1/me/api-tokens/${token.id}`, JSON.stringify({ name: "y" })],
        ["DELETE", `/api/v1/me/api-tokens/${token.id}`, undefined],
        ["GET", "/api/v1/me/sessions", undefined],
        ["DELETE", "/api/v1/me", undefined]
      ] as const) {
        const reply = yield* bearer(server, token.token, path, {
          method,
          ...(body === undefined ? {} : { body, headers: json })
        })
        expect(reply.status, `${method} ${path}`).toBe(403)
        expect(code(reply)).toBe("SESSION_REQUIRED")
      }
    })
  )

  it.effect("a state-changing cookie request without X-Requested-With: signalman is 403 CSRF_REQUIRED", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      for (const header of [undefined, "XMLHttpRequest", "Signalman", "signalmanx", ""]) {
        const reply = yield* alice.browser.request("/api/v1/me/api-tokens", {
          csrf: false,
          json: { name: "x", scopes: [] },
          ...(header === undefined ? {} : { headers: { "x-requested-with": header } })
        })
        expect(reply.status, String(header)).toBe(403)
        expect(code(reply)).toBe("CSRF_REQUIRED")
      }
      // Reads need no header; bearer requests never do.
      expect((yield* alice.browser.request("/api/v1/me", { csrf: false })).status).toBe(200)
      const token = yield* mintToken(alice)
      const viaBearer = yield* bearer(server, token.token, "/api/v1/support", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ subject: "hi", message: "hello" })
      })
      expect(viaBearer.status).toBe(204)
    })
  )

  it.effect(
    "a token lacking the scope its endpoint declares is 403 INSUFFICIENT_SCOPE naming it, in every group, before ORG_REQUIRED",
    () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* environment
        const alice = yield* signIn(server, smtp)
        const org = (yield* me(alice)).orgs[0]
        assert.isDefined(org)
        // A scope no sampled endpoint takes, and one that takes them all.
        const lacking = yield* mintToken(alice, { scopes: ["oncall:read"], org_id: org?.id })
        const full = yield* mintToken(alice, { org_id: org?.id })
        const id = crypto.randomUUID()
        // [method, path, the scope the contract declares, the answer once admitted]
        const sample = [
          ["GET", "/api/v1/targets", "targets:read", 200],
          ["DELETE", `/api/v1/targets/${id}`, "targets:delete", 404],
          ["GET", `/api/v1/targets/${id}/uptime`, "targets:read", 404],
          ["POST", `/api/v1/targets/${id}/check-now`, "targets:execute", 404],
          ["GET", `/api/v1/targets/${id}/heartbeat`, "targets:write", 404],
          ["GET", `/api/v1/targets/${id}/shares`, "targets:write", 404],
          ["GET", "/api/v1/incidents", "incidents:read", 200],
          ["POST", `/api/v1/incidents/${id}/acknowledge`, "incidents:execute", 404],
          ["GET", "/api/v1/channels", "channels:read", 200],
          ["DELETE", `/api/v1/variables/${id}`, "variables:delete", 404],
          ["DELETE", `/api/v1/maintenance/${id}`, "maintenance:delete", 404],
          ["GET", "/api/v1/status-pages", "status_page:read", 200]
        ] as const
        for (const [method, path, scope, admitted] of sample) {
          const refused = yield* bearer(server, lacking.token, path, { method })
          expect(refused.status, `${method} ${path}`).toBe(403)
          expect(Http.envelope(refused), `${method} ${path}`).toMatchObject({
            code: "INSUFFICIENT_SCOPE",
            message: `This token lacks the ${scope} scope`,
            details: { required: scope }
          })
          expect((yield* bearer(server, full.token, path, { method })).status, `${method} ${path}`).toBe(admitted)
        }
        // Session-only routes refuse any token, whatever its scopes.
        const tokens = yield* bearer(server, full.token, "/api/v1/me/api-tokens")
        expect(tokens.status).toBe(403)
        expect(code(tokens)).toBe("SESSION_REQUIRED")
        // The scope is checked before the org: an unbound token naming no org hears about its scope first.
        const unbound = yield* mintToken(alice, { scopes: ["oncall:read"] })
        expect(Http.envelope(yield* bearer(server, unbound.token, "/api/v1/targets"))).toMatchObject({
          code: "INSUFFICIENT_SCOPE",
          details: { required: "targets:read" }
        })
        const unboundFull = yield* mintToken(alice)
        expect(code(yield* bearer(server, unboundFull.token, "/api/v1/targets"))).toBe("ORG_REQUIRED")
      })
  )

  it.effect("token create: expiry 1 to 365 days, a foreign org is 404, unknown scopes are dropped", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const bob = yield* signIn(server, smtp)
      for (const days of [0, 366, 1.5]) {
        const reply = yield* alice.browser.request("/api/v1/me/api-tokens", {
          json: { name: "x", scopes: [], expires_in_days: days }
        })
        expect(reply.status, String(days)).toBe(400)
        expect(Http.envelope(reply)).toMatchObject({ code: "VALIDATION_FAILED", field: "expires_in_days" })
      }
      const bobsOrg = (yield* me(bob)).orgs[0]?.id
      const foreign = yield* alice.browser.request("/api/v1/me/api-tokens", {
        json: { name: "x", scopes: [], org_id: bobsOrg }
      })
      expect(foreign.status).toBe(404)
      expect(Http.envelope(foreign)).toMatchObject({ code: "NOT_FOUND", field: "org_id" })
      const unknownKey = yield* alice.browser.request("/api/v1/me/api-tokens", {
        json: { name: "x", scopes: [], scope: "x" }
      })
      expect(unknownKey.status).toBe(422)
      expect(Http.envelope(unknownKey)).toMatchObject({ code: "INVALID_JSON", field: "scope" })
      // Someone else's token id is the same 404 as a missing one.
      const bobs = yield* mintToken(bob)
      const renamed = yield* alice.browser.request(`/api/v1/me/api-tokens/${bobs.id}`, {
        method: "PATCH",
        json: { name: "mine now" }
      })
      expect(renamed.status).toBe(404)
    })
  )

  it.effect("concurrent token creation at the per-user cap settles exactly at the cap", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const replies = yield* Effect.forEach(
        Array.from({ length: 9 }, (_, i) => i),
        (i) => alice.browser.request("/api/v1/me/api-tokens", { json: { name: `t${i}`, scopes: [] } }),
        { concurrency: "unbounded" }
      )
      const created = replies.filter((r) => r.status === 201)
      const other = replies.filter((r) => r.status !== 201 && r.status !== 422)
      expect(other.map((r) => `${r.status} ${r.text}`)).toEqual([])
      const refused = replies.filter((r) => r.status === 422)
      expect(created).toHaveLength(5)
      expect(refused).toHaveLength(4)
      const error = Http.envelope(refused[0] ?? replies[0]!)
      expect(error).toMatchObject({
        code: "QUOTA_EXCEEDED",
        field: null,
        details: { quota: "max_api_tokens_per_user", current: 5, limit: 5, plan: "free" }
      })
      expect(error.message).toContain("max_api_tokens_per_user")
      const usage = yield* alice.browser.request("/api/v1/me/usage")
      expect(Http.wire(usage, MeUsage)).toEqual({
        api_tokens: { current: 5, limit: 5 },
        owned_orgs: { current: 1, limit: 1 }
      })
      // Alice's account's refusals: the log is the server's.
      const account = (yield* me(alice)).account_id
      const events = yield* server.sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM quota_events WHERE name = 'max_api_tokens_per_user' AND account_id = ${account}`
      expect(events[0]?.n).toBe(4)
    })
  )

  it.effect(
    "a bound token naming any other well-formed slug is 403 ORG_HEADER_MISMATCH, whether it exists or not; malformed is 400",
    () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* environment
        const alice = yield* signIn(server, smtp)
        const bob = yield* signIn(server, smtp)
        const slugOf = (person: typeof alice) => Effect.map(me(person), (m) => m.orgs[0])
        const own = yield* slugOf(alice)
        const bobs = yield* slugOf(bob)
        assert.isDefined(own)
        assert.isDefined(bobs)
        const bound = yield* mintToken(alice, { org_id: own?.id })
        const withOrg = (slug: string) =>
          bearer(server, bound.token, "/api/v1/targets", { headers: { "x-signalman-org": slug } })

        expect((yield* withOrg(own?.slug ?? "")).status).toBe(200)
        // Someone else's org and no org at all answer alike: the answer tells nothing about other orgs.
        const foreign = yield* withOrg(bobs?.slug ?? "")
        const missing = yield* withOrg("no-such-org-anywhere")
        for (const reply of [foreign, missing]) {
          expect(reply.status, reply.text).toBe(403)
          expect(Http.envelope(reply)).toMatchObject({ code: "ORG_HEADER_MISMATCH", field: "X-Signalman-Org" })
        }
        expect(Http.envelope(foreign).message).toBe(Http.envelope(missing).message)
        // A malformed slug stays what the spec's table says for either kind of token.
        for (const slug of ["NOT A SLUG", "-x-", "a".repeat(64)]) {
          const malformed = yield* withOrg(slug)
          expect(malformed.status, slug).toBe(400)
          expect(Http.envelope(malformed)).toMatchObject({ code: "ORG_HEADER_INVALID", field: "X-Signalman-Org" })
        }
      })
  )

  it.effect("sessions: list, revoke one, logout, logout-all", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const laptop = yield* signIn(server, smtp, alice.email)
      const phone = yield* signIn(server, smtp, alice.email)
      const listed = Http.decode(yield* alice.browser.request("/api/v1/me/sessions"), SessionList)
      expect(listed.data).toHaveLength(3)
      expect(listed.data.filter((s) => s.current)).toHaveLength(1)
      const laptopId = Http.decode(yield* laptop.browser.request("/api/v1/me/sessions"), SessionList).data.find(
        (s) => s.current
      )?.id
      expect((yield* alice.browser.request(`/api/v1/me/sessions/${laptopId}`, { method: "DELETE" })).status).toBe(204)
      expect((yield* laptop.browser.request("/api/v1/me")).status).toBe(401)
      expect((yield* alice.browser.request(`/api/v1/me/sessions/${laptopId}`, { method: "DELETE" })).status).toBe(404)

      expect((yield* phone.browser.request("/auth/logout", { method: "POST" })).status).toBe(204)
      expect(phone.browser.cookies.has("_sm_session")).toBe(false)
      const token = yield* mintToken(alice)
      expect((yield* alice.browser.request("/auth/logout-all", { method: "POST" })).status).toBe(204)
      expect((yield* alice.browser.request("/api/v1/me")).status).toBe(401)
      // Signing out ends sessions, not API tokens.
      expect((yield* bearer(server, token.token, "/api/v1/me")).status).toBe(200)
    })
  )

  it.effect("org reads and usage: a non-member gets the same 404 as for no org at all", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const bob = yield* signIn(server, smtp)
      const aliceOrg = (yield* me(alice)).orgs[0]?.id
      const usage = yield* alice.browser.request(`/api/v1/orgs/${aliceOrg}/usage`)
      expect(usage.status).toBe(200)
      const body = Http.wire(usage, OrgUsage)
      expect(body.plan.id).toBe("free")
      expect(body.quotas["max_orgs"]).toEqual({ current: 1, limit: 1 })
      expect(body.quotas["max_members"]).toEqual({ current: 1, limit: 3 })
      expect(body.quotas["max_targets"]).toEqual({ current: 0, limit: 20 })
      expect(body.policy["min_check_interval_secs"]).toBe(180)
      expect(body.rates["api_writes_per_minute"]).toBe(600)
      expect(body.flags["private_pages_enabled"]).toBe(false)

      const foreign = yield* bob.browser.request(`/api/v1/orgs/${aliceOrg}/usage`)
      const missing = yield* bob.browser.request("/api/v1/orgs/01234567-89ab-7def-8123-456789abcdef/usage")
      expect(foreign.status).toBe(404)
      expect(missing.status).toBe(404)
      expect(Http.envelope(foreign).message).toBe(Http.envelope(missing).message)
      expect((yield* bob.browser.request(`/api/v1/orgs/${aliceOrg}`)).status).toBe(404)
      expect(code(yield* bob.browser.request("/api/v1/orgs/not-a-uuid"))).toBe("VALIDATION_FAILED")
    })
  )

  it.effect(
    "invitations: issue, list, dedupe, revoke, accept with the matching address, decline, the pending cap",
    () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* environment
        const owner = yield* signIn(server, smtp)
        const orgId = (yield* me(owner)).orgs[0]?.id
        const inviteeEmail = uniqueEmail("invitee")
        const invite = (email: string) =>
          owner.browser.request(`/api/v1/orgs/${orgId}/invitations`, { json: { email } })

        const first = yield* invite(inviteeEmail.toUpperCase())
        expect(first.status).toBe(201)
        expect(Http.decode(first, Invitation).email).toBe(inviteeEmail)
        expect((yield* invite(inviteeEmail)).status).toBe(201)
        const mails = yield* Effect.promise(() => smtp.waitFor(inviteeEmail, 2))
        const listed = Http.decode(yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations`), InvitationList)
        expect(listed.data).toHaveLength(1)
        const token = /accept\?token=([A-Za-z0-9_-]+)/.exec(mails[1]?.text ?? "")?.[1]
        const staleToken = /accept\?token=([A-Za-z0-9_-]+)/.exec(mails[0]?.text ?? "")?.[1]
        assert.isDefined(token)

        // A member cannot invite; the wrong person cannot accept; the answer never says whether a token exists.
        const stranger = yield* signIn(server, smtp)
        const wrong = yield* stranger.browser.request("/api/v1/invitations/accept", { json: { token } })
        expect(wrong.status).toBe(404)
        expect(
          code(yield* stranger.browser.request("/api/v1/invitations/accept", { json: { token: "nonsense" } }))
        ).toBe("NOT_FOUND")
        expect(Http.envelope(wrong).message).toBe("No such invitation")

        const invitee = yield* signIn(server, smtp, inviteeEmail)
        expect(
          (yield* invitee.browser.request("/api/v1/invitations/accept", { json: { token: staleToken } })).status
        ).toBe(404)
        const joined = yield* invitee.browser.request("/api/v1/invitations/accept", { json: { token } })
        expect(joined.status).toBe(200)
        const membership = Http.decode(joined, Org)
        expect(membership.id).toBe(orgId)
        expect(membership.role).toBe("member")
        expect((yield* me(invitee)).active_org?.id).toBe(orgId)
        expect((yield* invitee.browser.request("/api/v1/invitations/accept", { json: { token } })).status).toBe(404)

        const memberInvites = yield* invitee.browser.request(`/api/v1/orgs/${orgId}/invitations`, {
          json: { email: uniqueEmail("x") }
        })
        expect(memberInvites.status).toBe(403)
        expect(code(memberInvites)).toBe("OWNER_REQUIRED")
        expect(code(yield* invite(inviteeEmail))).toBe("ALREADY_MEMBER")

        // Decline needs no account and answers alike for any token.
        const declinable = uniqueEmail("decliner")
        yield* invite(declinable)
        const declineToken = /decline\?token=([A-Za-z0-9_-]+)/.exec(
          (yield* Effect.promise(() => smtp.waitFor(declinable)))[0]?.text ?? ""
        )?.[1]
        for (const t of [declineToken, "nonsense"]) {
          const reply = yield* Http.request(`${server.baseUrl}/api/v1/invitations/decline`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ token: t })
          })
          expect(reply.status).toBe(204)
        }
        const pending = Http.decode(yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations`), InvitationList)
        expect(pending.data).toHaveLength(0)

        // The pending cap is per account (free: 10).
        for (let i = 0; i < 10; i++) expect((yield* invite(uniqueEmail(`p${i}`))).status).toBe(201)
        const over = yield* invite(uniqueEmail("eleventh"))
        expect(over.status).toBe(409)
        expect(Http.envelope(over)).toMatchObject({
          code: "INVITATIONS_LIMIT",
          details: { quota: "max_pending_invitations", current: 10, limit: 10 }
        })
        const anyPending = Http.decode(
          yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations`),
          InvitationList
        ).data[0]
        expect(
          (yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations/${anyPending?.id}`, { method: "DELETE" }))
            .status
        ).toBe(204)
        expect((yield* invite(uniqueEmail("now-fits"))).status).toBe(201)
      })
  )

  it.effect("a seat race: two invitees accepting for the last seat, one joins and the other keeps its invitation", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const owner = yield* signIn(server, smtp)
      const orgId = (yield* me(owner)).orgs[0]?.id
      // free: 3 people. The owner and one member leave one seat.
      const member = uniqueEmail("member")
      yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations`, { json: { email: member } })
      const memberToken = /accept\?token=([A-Za-z0-9_-]+)/.exec(
        (yield* Effect.promise(() => smtp.waitFor(member)))[0]?.text ?? ""
      )?.[1]
      const m = yield* signIn(server, smtp, member)
      expect((yield* m.browser.request("/api/v1/invitations/accept", { json: { token: memberToken } })).status).toBe(
        200
      )

      const racers = [uniqueEmail("r1"), uniqueEmail("r2")]
      const tokens: Array<string> = []
      for (const email of racers) {
        yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations`, { json: { email } })
        tokens.push(
          /accept\?token=([A-Za-z0-9_-]+)/.exec(
            (yield* Effect.promise(() => smtp.waitFor(email)))[0]?.text ?? ""
          )?.[1] ?? ""
        )
      }
      const people = yield* Effect.forEach(racers, (email) => signIn(server, smtp, email))
      const replies = yield* Effect.forEach(
        people,
        (p, i) => p.browser.request("/api/v1/invitations/accept", { json: { token: tokens[i] } }),
        { concurrency: "unbounded" }
      )
      expect(replies.map((r) => r.status).sort()).toEqual([200, 422])
      const loser = replies.find((r) => r.status === 422)
      expect(Http.envelope(loser!)).toMatchObject({
        code: "QUOTA_EXCEEDED",
        details: { quota: "max_members", limit: 3 }
      })
      const unconsumed = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM invitations WHERE org_id = ${orgId ?? ""} AND accepted_at IS NULL AND revoked_at IS NULL
      `
      expect(unconsumed[0]?.n).toBe(1)
    })
  )

  it.effect("deleting the account: 30-day grace, everything but /me and restore refused, restore brings it back", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const token = yield* mintToken(alice)
      const deleted = yield* alice.browser.request("/api/v1/me", { method: "DELETE" })
      expect(deleted.status).toBe(200)
      const when = Date.parse(Http.wire(deleted, Me).deletion_scheduled_for ?? "")
      expect(Math.round((when - Date.now()) / 86_400_000)).toBe(30)
      expect(code(yield* alice.browser.request("/api/v1/me/api-tokens"))).toBe("ACCOUNT_PENDING_DELETION")
      expect(code(yield* bearer(server, token.token, "/api/v1/me"))).toBe("UNAUTHENTICATED")
      expect((yield* alice.browser.request("/api/v1/me")).status).toBe(200)

      // Signing in again lands on the restore page.
      const again = Browser.make(server.baseUrl)
      yield* again.request("/auth/magic-link/request", { json: { email: alice.email } })
      const mails = yield* Effect.promise(() => smtp.waitFor(alice.email, 2))
      const link = new URL(SmtpCatcher.magicLinkOf(mails[1]!).link)
      const landed = yield* again.request(`${link.pathname}${link.search}`)
      expect(landed.headers.get("location")).toBe("/account/restore")

      const restored = yield* alice.browser.request("/api/v1/me/restore", { method: "POST" })
      expect(restored.status).toBe(200)
      expect(Http.decode(restored, Me).deletion_scheduled_for).toBeNull()
      expect((yield* bearer(server, token.token, "/api/v1/me")).status).toBe(200)
      expect((yield* me(alice)).orgs).toHaveLength(1)
    })
  )
})

// Plan rows are the server's: each test that changes one, or needs one changed, has a server of its own.
Fixture.describe(
  `access control with three orgs a person (${TestDatabase.kind} database)`,
  { env: settings, sql: ["UPDATE plans SET max_orgs = 3 WHERE id = 'free'"] },
  (it) => {
    it.effect("org binding: bound tokens act on their org only; the header must name an org of the caller", () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* environment
        const alice = yield* signIn(server, smtp)
        const bob = yield* signIn(server, smtp)
        const second = yield* alice.browser.request("/api/v1/orgs", {
          json: { name: "Second", slug: `second-${Date.now()}` }
        })
        expect(second.status).toBe(201)
        const secondOrg = Http.decode(second, Org)
        const first = (yield* me(alice)).orgs.find((o) => o.id !== secondOrg.id)
        assert.isDefined(first)
        const bobsSlug = (yield* me(bob)).orgs[0]?.slug

        const bound = yield* mintToken(alice, { org_id: first?.id })
        const unbound = yield* mintToken(alice)
        const active = (reply: Http.Reply) => Http.decode(reply, Me).active_org?.slug

        expect(active(yield* bearer(server, bound.token, "/api/v1/me"))).toBe(first?.slug)
        expect(
          active(
            yield* bearer(server, bound.token, "/api/v1/me", { headers: { "x-signalman-org": first?.slug ?? "" } })
          )
        ).toBe(first?.slug)
        const mismatch = yield* bearer(server, bound.token, "/api/v1/me", {
          headers: { "x-signalman-org": secondOrg.slug }
        })
        expect(mismatch.status).toBe(403)
        expect(Http.envelope(mismatch)).toMatchObject({ code: "ORG_HEADER_MISMATCH", field: "X-Signalman-Org" })

        expect(active(yield* bearer(server, unbound.token, "/api/v1/me"))).toBeUndefined()
        expect(
          active(yield* bearer(server, unbound.token, "/api/v1/me", { headers: { "x-signalman-org": secondOrg.slug } }))
        ).toBe(secondOrg.slug)
        for (const header of ["NOT A SLUG", "no-such-org-anywhere", bobsSlug ?? "x"]) {
          const reply = yield* bearer(server, unbound.token, "/api/v1/me", { headers: { "x-signalman-org": header } })
          expect(reply.status, header).toBe(400)
          expect(Http.envelope(reply)).toMatchObject({ code: "ORG_HEADER_INVALID", field: "X-Signalman-Org" })
        }
      })
    )
  }
)

Fixture.describe(`access control, org creation (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect("orgs: create with SLUG_TAKEN, OWNER_ORG_LIMIT at max_orgs, concurrent creates settle at the limit", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const full = yield* alice.browser.request("/api/v1/orgs", {
        json: { name: "More", slug: `more-${Date.now()}` }
      })
      expect(full.status).toBe(422)
      expect(Http.envelope(full)).toMatchObject({
        code: "OWNER_ORG_LIMIT",
        details: { quota: "max_orgs", current: 1, limit: 1, plan: "free" }
      })
      yield* server.sql`UPDATE plans SET max_orgs = 3 WHERE id = 'free'`
      yield* Effect.sleep("1100 millis")
      const taken = (yield* me(alice)).orgs[0]?.slug
      const clash = yield* alice.browser.request("/api/v1/orgs", { json: { name: "Clash", slug: taken } })
      expect(clash.status).toBe(409)
      expect(Http.envelope(clash)).toMatchObject({ code: "SLUG_TAKEN", field: "slug" })
      const bad = yield* alice.browser.request("/api/v1/orgs", { json: { name: "Bad", slug: "Not_A_Slug" } })
      expect(Http.envelope(bad)).toMatchObject({ code: "VALIDATION_FAILED", field: "slug" })

      const stamp = Date.now()
      const replies = yield* Effect.forEach(
        Array.from({ length: 6 }, (_, i) => i),
        (i) => alice.browser.request("/api/v1/orgs", { json: { name: `Org ${i}`, slug: `race-${stamp}-${i}` } }),
        { concurrency: "unbounded" }
      )
      expect(replies.filter((r) => r.status === 201)).toHaveLength(2)
      expect(replies.filter((r) => r.status === 422).every((r) => code(r) === "OWNER_ORG_LIMIT")).toBe(true)
      const orgs = yield* server.sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM orgs o JOIN users u ON u.account_id = o.account_id WHERE u.email = ${alice.email}`
      expect(orgs[0]?.n).toBe(3)
    })
  )
})

Fixture.describe(`access control, rate budgets (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.effect("rate budgets: 429 RATE_LIMITED with Retry-After and RateLimit-*, per account then per user", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* environment
      const alice = yield* signIn(server, smtp)
      const token = yield* mintToken(alice)
      yield* server.sql`UPDATE plans SET api_reads_per_minute = 5 WHERE id = 'free'`
      yield* Effect.sleep("1100 millis")
      // The budgets count per wall-clock minute: the reads and support posts below must fall in one window, or the
      // next window admits them again.
      yield* awayFromMinuteEdge(10)
      const statuses: Array<number> = []
      let limited: Http.Reply | undefined
      for (let i = 0; i < 8; i++) {
        const reply = yield* bearer(server, token.token, "/api/v1/me")
        statuses.push(reply.status)
        if (reply.status === 429) limited = reply
      }
      expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5)
      assert.isDefined(limited)
      const error = Http.envelope(limited!)
      expect(error.code).toBe("RATE_LIMITED")
      expect(error.details["scope"]).toBe("per_account_api_reads")
      const retry = Number(limited!.headers.get("retry-after"))
      expect(retry).toBeGreaterThanOrEqual(1)
      expect(retry).toBeLessThanOrEqual(60)
      expect(error.details["retry_after_secs"]).toBe(retry)
      expect(limited!.headers.get("ratelimit-limit")).toBe("5")
      expect(limited!.headers.get("ratelimit-remaining")).toBe("0")
      // Writes have their own budget, and the support form its fixed one of 2 a minute.
      const support = (i: number) =>
        bearer(server, token.token, "/api/v1/support", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ subject: `s${i}`, message: "help" })
        })
      expect((yield* support(1)).status).toBe(204)
      expect((yield* support(2)).status).toBe(204)
      const third = yield* support(3)
      expect(third.status).toBe(429)
      expect(Http.envelope(third).details["scope"]).toBe("per_account_support")
      const logged = yield* server.sql<{
        name: string
      }>`SELECT DISTINCT name FROM quota_events WHERE kind = 'rate' ORDER BY name`
      expect(logged.map((r) => r.name)).toEqual(["per_account_api_reads", "per_account_support"])
    })
  )
})
