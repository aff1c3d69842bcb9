/**
 * Share links over HTTP: create, list and revoke; label and expiry refusals; both quotas at their limits (concurrent
 * creates settle exactly); foreign monitors and links; the targets:write scope; the /m/<token> page with the
 * monitor's data and none of its check; revoked and expired links 404; the token sealed in the database.
 */
import { assert, expect } from "@effect/vitest"
import { MonitorShareList } from "@signalman/core/api/Shares"
import { OrgUsage } from "@signalman/core/Identity"
import { MonitorShare } from "@signalman/core/MonitorShare"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

const fromNow = (secs: number) => new Date(Date.now() + secs * 1000).toISOString()

const createTarget = (person: Person, name: string, check: Record<string, unknown> = {}) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: { name, check: { type: "http", url: `https://${name}.example.com/health`, ...check } }
    }),
    (reply) => {
      return Http.expectOk(reply, Target, 201).id
    }
  )

const share = (person: Person, targetId: string, body: Record<string, unknown> = {}) =>
  person.browser.request(`/api/v1/targets/${targetId}/shares`, { json: body })

const shared = (person: Person, targetId: string, body: Record<string, unknown> = {}) =>
  Effect.map(share(person, targetId, body), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return Http.wire(reply, MonitorShare)
  })

const list = (person: Person, targetId: string) =>
  Effect.map(person.browser.request(`/api/v1/targets/${targetId}/shares`), (reply) => {
    expect(reply.status, reply.text).toBe(200)
    return Http.wire(reply, MonitorShareList).data
  })

const revoke = (person: Person, targetId: string, shareId: string) =>
  person.browser.request(`/api/v1/targets/${targetId}/shares/${shareId}`, { method: "DELETE" })

const open = (server: TestServer.Running, token: string) => Http.request(`${server.baseUrl}/m/${token}`)

Fixture.describe(
  `share links (${TestDatabase.kind} database)`,
  {
    // Three live links a monitor on the free plan (it has one), before anyone signs in: the tests that make several
    // links on a monitor need them. The max_shared_monitors test (which asked for two) puts two on one monitor at
    // most, and the others one, so no other test meets the limit.
    sql: ["UPDATE plans SET max_share_links_per_monitor = 3 WHERE id = 'free'"]
  },
  (it) => {
    it.effect("create 201 with the token and its URL; list shows live links; revoke 204 and the page 404s", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const web = yield* createTarget(alice, "web")
        const reply = yield* share(alice, web, { label: "  for the client  ", expires_at: "2999-01-01T00:00:00+01:00" })
        expect(reply.status, reply.text).toBe(201)
        expect(reply.headers.get("cache-control")).toBe("no-store")
        const first = Http.wire(reply, MonitorShare)
        assert.isNotNull(first.token)
        expect(first.token).toMatch(/^sm_share_[A-Za-z0-9_-]{43}$/)
        expect(first).toMatchObject({
          label: "for the client",
          expires_at: "2998-12-31T23:00:00.000Z",
          url: `${server.baseUrl.replace("127.0.0.1", "localhost")}/m/${first.token}`
        })
        const plain = yield* shared(alice, web, {})
        expect(plain).toMatchObject({ label: null, expires_at: null })
        expect(plain.token).not.toBe(first.token)
        const nulls = yield* shared(alice, web, { label: null, expires_at: null })
        expect(nulls).toMatchObject({ label: null, expires_at: null })

        const listed = yield* list(alice, web)
        expect(listed).toEqual([first, plain, nulls])

        const page = yield* open(server, plain.token ?? "")
        expect(page.status).toBe(200)

        const revoked = yield* revoke(alice, web, plain.id)
        expect(revoked.status, revoked.text).toBe(204)
        // The next request already sees it.
        expect((yield* open(server, plain.token ?? "")).status).toBe(404)
        expect((yield* list(alice, web)).map((s) => s.id)).toEqual([first.id, nulls.id])
        // Revoking again, or a link of another monitor, or an unknown one: 404.
        expect(Http.refusal(yield* revoke(alice, web, plain.id))).toEqual({
          status: 404,
          code: "NOT_FOUND",
          field: null
        })
        const db = yield* createTarget(alice, "db")
        expect((yield* revoke(alice, db, first.id)).status).toBe(404)
        expect((yield* revoke(alice, web, "01890000-0000-7000-8000-000000000000")).status).toBe(404)
        expect((yield* open(server, first.token ?? "")).status).toBe(200)
      })
    )

    it.effect("a label over 80 characters is 400 SHARE_LABEL_INVALID; a past expiry 400 INVALID_EXPIRY", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person()
        const web = yield* createTarget(alice, "web")
        expect(Http.refusal(yield* share(alice, web, { label: "x".repeat(81) }))).toEqual({
          status: 400,
          code: "SHARE_LABEL_INVALID",
          field: "label"
        })
        expect(Http.refusal(yield* share(alice, web, { expires_at: fromNow(-60) }))).toEqual({
          status: 400,
          code: "INVALID_EXPIRY",
          field: "expires_at"
        })
        expect(Http.refusal(yield* share(alice, web, { expires_at: "tomorrow" }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "expires_at"
        })
        expect(Http.refusal(yield* share(alice, web, { label: 7 }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "label"
        })
        expect(Http.refusal(yield* share(alice, web, { label: "ok", token: "mine" }))).toEqual({
          status: 422,
          code: "INVALID_JSON",
          field: "token"
        })
        // Nothing was made by the refusals; 80 characters is fine.
        expect(yield* list(alice, web)).toEqual([])
        expect((yield* shared(alice, web, { label: "y".repeat(80) })).label).toBe("y".repeat(80))
      })
    )

    it.effect("max_share_links_per_monitor: concurrent creates on one monitor settle at the limit", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const web = yield* createTarget(alice, "web")
        const replies = yield* Effect.forEach([1, 2, 3, 4, 5, 6], () => share(alice, web, {}), {
          concurrency: "unbounded"
        })
        expect(replies.filter((r) => r.status === 201)).toHaveLength(3)
        const refused = replies.filter((r) => r.status === 422)
        expect(refused).toHaveLength(3)
        assert.isDefined(refused[0])
        expect(Http.refusal(refused[0])).toEqual({ status: 422, code: "QUOTA_EXCEEDED", field: null })
        expect(Http.envelope(refused[0]).details).toEqual({
          quota: "max_share_links_per_monitor",
          current: 3,
          limit: 3,
          plan: "free"
        })
        const [events] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM quota_events
        WHERE name = 'max_share_links_per_monitor' AND account_id = ${alice.accountId}
      `
        expect(events?.n).toBe(3)
        // A revoked link frees its place, and so does one that has expired.
        const live = yield* list(alice, web)
        expect(live).toHaveLength(3)
        expect((yield* revoke(alice, web, live[0]?.id ?? "")).status).toBe(204)
        const again = yield* shared(alice, web, { expires_at: fromNow(3600) })
        expect((yield* share(alice, web, {})).status).toBe(422)
        yield* server.sql`UPDATE monitor_shares SET expires_at = now() - interval '1 second' WHERE id = ${again.id}`
        expect((yield* list(alice, web)).map((s) => s.id)).not.toContain(again.id)
        expect((yield* share(alice, web, {})).status).toBe(201)
      })
    )

    it.effect(
      "max_shared_monitors: concurrent creates on many monitors settle at the limit; a shared one still takes links",
      () =>
        Effect.gen(function* () {
          const alice = yield* Fixture.person()
          const ids = yield* Effect.forEach(["a", "b", "c", "d", "e"], (name) => createTarget(alice, `m-${name}`))
          const replies = yield* Effect.forEach(ids, (id) => share(alice, id, {}), { concurrency: "unbounded" })
          // The free plan shares 2 monitors.
          expect(replies.filter((r) => r.status === 201)).toHaveLength(2)
          const refused = replies.filter((r) => r.status === 422)
          expect(refused).toHaveLength(3)
          assert.isDefined(refused[0])
          expect(Http.envelope(refused[0]).details).toEqual({
            quota: "max_shared_monitors",
            current: 2,
            limit: 2,
            plan: "free"
          })
          const sharedIds = ids.filter((_, i) => replies[i]?.status === 201)
          const others = ids.filter((_, i) => replies[i]?.status !== 201)
          // A monitor already shared takes its second link: the shared count does not grow.
          expect((yield* share(alice, sharedIds[0] ?? "", {})).status).toBe(201)
          expect(Http.refusal(yield* share(alice, others[0] ?? "", {}))).toMatchObject({ code: "QUOTA_EXCEEDED" })
          // The usage of the org counts shared monitors.
          const usage = Http.decode(yield* alice.browser.request(`/api/v1/orgs/${alice.org.id}/usage`), OrgUsage)
          expect(usage.quotas["max_shared_monitors"]).toEqual({ current: 2, limit: 2 })
          // Revoking every link of a monitor frees its place.
          for (const s of yield* list(alice, sharedIds[1] ?? "")) {
            expect((yield* revoke(alice, sharedIds[1] ?? "", s.id)).status).toBe(204)
          }
          expect((yield* share(alice, others[0] ?? "", {})).status).toBe(201)
        })
    )

    it.effect("a monitor of another org is 404 on every route; a token without targets:write is 403", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const web = yield* createTarget(alice, "web")
        const mine = yield* shared(alice, web, {})
        const bob = yield* Fixture.person()
        for (const reply of [
          yield* share(bob, web, {}),
          yield* bob.browser.request(`/api/v1/targets/${web}/shares`),
          yield* revoke(bob, web, mine.id)
        ]) {
          expect(Http.refusal(reply)).toEqual({ status: 404, code: "NOT_FOUND", field: null })
        }
        expect((yield* share(alice, "01890000-0000-7000-8000-000000000000", {})).status).toBe(404)
        expect(Http.refusal(yield* alice.browser.request(`/api/v1/targets/not-a-uuid/shares`))).toMatchObject({
          status: 400,
          code: "VALIDATION_FAILED"
        })
        expect((yield* open(server, mine.token ?? "")).status).toBe(200)

        const orgId = alice.org.id
        const reader = yield* mintToken(alice, { scopes: ["targets:read"], org_id: orgId })
        const writer = yield* mintToken(alice, { scopes: ["targets:write"], org_id: orgId })
        const post = (token: string) =>
          bearer(server, token, `/api/v1/targets/${web}/shares`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: "{}"
          })
        const refused = yield* post(reader.token)
        expect(refused.status).toBe(403)
        expect(Http.envelope(refused)).toMatchObject({
          code: "INSUFFICIENT_SCOPE",
          details: { required: "targets:write" }
        })
        expect(Http.envelope(yield* bearer(server, reader.token, `/api/v1/targets/${web}/shares`))).toMatchObject({
          code: "INSUFFICIENT_SCOPE"
        })
        const made = yield* post(writer.token)
        expect(made.status, made.text).toBe(201)
        const listed = yield* bearer(server, writer.token, `/api/v1/targets/${web}/shares`)
        expect(listed.status).toBe(200)
        expect(listed.headers.get("cache-control")).toBe("private, max-age=10")
      })
    )

    it.effect(
      "the /m page shows name, kind, status, uptime, latency, results and incidents, and none of the check",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const web = yield* createTarget(alice, "Checkout API", {
            url: "https://shop-internal.example.com/health/s3cr3t-path-7f9a",
            headers: { "X-Api-Key": "header-secret-5150" },
            basic_auth: { username: "basic-user-77", password: "basic-pass-88" },
            bearer_token: "bearer-secret-9999"
          })
          // Paused, so the scheduler adds no result of its own to the figures below.
          const paused = yield* alice.browser.request(`/api/v1/targets/${web}`, {
            method: "PATCH",
            json: { enabled: false }
          })
          expect(paused.status, paused.text).toBe(200)
          const link = yield* shared(alice, web, { label: "status for the client" })
          const now = Date.now()
          // Results as the engine writes them; one failure's error quotes the address, as real errors do.
          for (const [i, status, ms, error] of [
            [1, "up", 120, null],
            [2, "up", 140, null],
            [3, "down", 3000, "connect ECONNREFUSED shop-internal.example.com/health/s3cr3t-path-7f9a"],
            [4, "up", 160, null]
          ] as const) {
            yield* server.sql`
          INSERT INTO check_results (target_id, region, checked_at, status, duration_ms, error, details, weight_secs)
          VALUES (${web}, 'local', ${new Date(now - (5 - i) * 60_000)}, ${status}, ${ms}, ${error},
            ${JSON.stringify({ url: "https://shop-internal.example.com/health/s3cr3t-path-7f9a" })}::jsonb, 60)
        `
          }
          const orgId = (yield* server.sql<{ org_id: string }>`SELECT org_id::text FROM targets WHERE id = ${web}`)[0]
            ?.org_id
          // A declared incident with a public title, and one with an internal title only.
          for (const [id, title, publicTitle, impact] of [
            [
              "01890000-0000-7000-8000-0000000000a1",
              "internal: shop-internal db failover",
              "Checkout slowed down",
              "degraded"
            ],
            ["01890000-0000-7000-8000-0000000000a2", "internal: s3cr3t-path-7f9a refused", null, "major_outage"]
          ] as const) {
            yield* server.sql`
          INSERT INTO incidents (id, org_id, origin, title, public_title, impact, counts_as_downtime, started_at, ended_at)
          VALUES (${id}, ${orgId}, 'declared', ${title}, ${publicTitle}, ${impact}, true,
            ${new Date(now - 3 * 3_600_000)}, ${new Date(now - 2 * 3_600_000)})
        `
            yield* server.sql`INSERT INTO incident_components (incident_id, target_id) VALUES (${id}, ${web})`
          }

          const page = yield* open(server, link.token ?? "")
          expect(page.status).toBe(200)
          expect(page.headers.get("content-type")).toMatch(/^text\/html/)
          expect(page.headers.get("cache-control")).toBe("private, no-store")
          expect(page.headers.get("x-robots-tag")).toMatch(/noindex/)
          expect(page.headers.get("referrer-policy")).toBe("no-referrer")
          const html = page.text
          expect(html).toContain("Checkout API")
          expect(html).toContain("HTTP monitor")
          expect(html).toContain("Paused")
          expect(html).toContain("Last 24 hours")
          expect(html).toContain("Last 30 days")
          expect(html).toMatch(/75(\.00)?%/)
          expect(html).toContain("Average")
          expect(html).toContain("3000 ms")
          expect(html).toContain("Checkout slowed down")
          expect(html).toContain("Outage")
          for (const secret of [
            "shop-internal",
            "s3cr3t-path-7f9a",
            "header-secret-5150",
            "X-Api-Key",
            "basic-user-77",
            "basic-pass-88",
            "bearer-secret-9999",
            "ECONNREFUSED",
            "status for the client"
          ]) {
            expect(html).not.toContain(secret)
          }
        })
    )

    it.effect("unknown, malformed, revoked and expired tokens get the same 404 page; the token is sealed at rest", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const web = yield* createTarget(alice, "web")
        const expiring = yield* shared(alice, web, { expires_at: fromNow(3600) })
        const revoked = yield* shared(alice, web, {})
        expect((yield* revoke(alice, web, revoked.id)).status).toBe(204)
        yield* server.sql`UPDATE monitor_shares SET expires_at = now() - interval '1 second' WHERE id = ${expiring.id}`
        const pages = yield* Effect.forEach(
          [expiring.token ?? "", revoked.token ?? "", `sm_share_${"A".repeat(43)}`, "nope", "%3Cscript%3E"],
          (token) => open(server, token)
        )
        for (const page of pages) {
          expect(page.status).toBe(404)
          expect(page.headers.get("cache-control")).toBe("private, no-store")
          expect(page.headers.get("x-robots-tag")).toMatch(/noindex/)
          expect(page.text).toBe(pages[0]?.text)
        }
        expect(pages[0]?.text).toContain("This link does not work")

        // Sealed and hashed: no column holds the token in the clear.
        const live = yield* shared(alice, web, {})
        const rows = yield* server.sql<{ row: string }>`
          SELECT row_to_json(s)::text AS row FROM monitor_shares s WHERE target_id = ${web}
        `
        expect(rows).toHaveLength(3)
        for (const { row } of rows) {
          for (const token of [expiring.token, revoked.token, live.token]) expect(row).not.toContain(token ?? "-")
          expect(row).not.toContain("sm_share_")
        }
        // A row whose seal no key can open still works as a link; it is listed with a null token.
        yield* server.sql`UPDATE monitor_shares SET token_sealed = 'v1.AAAA.AAAA.AAAA' WHERE id = ${live.id}`
        const listed = yield* list(alice, web)
        expect(listed.find((s) => s.id === live.id)).toMatchObject({ token: null, url: null })
        expect((yield* open(server, live.token ?? "")).status).toBe(200)
      })
    )
  }
)
