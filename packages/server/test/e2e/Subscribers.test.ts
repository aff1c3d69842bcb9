/**
 * Status-page subscribers: subscribe (202 for every address, confirmation throttled), confirm, incident and
 * maintenance updates mailed through the outbox with List-Unsubscribe headers, the unsubscribe page that only shows a
 * button, RFC 8058 one-click unsubscribe, and no mail after it; unknown and unpublished pages; private pages.
 */
import { assert, expect } from "@effect/vitest"
import { IncidentDetail } from "@signalman/core/api/Incidents"
import { MaintenanceWindowResource } from "@signalman/core/api/Maintenance"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import { eventually as poll } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import type * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

const setup = Effect.gen(function* () {
  const { server, smtp } = yield* Fixture.Fixture
  const alice = yield* Fixture.person()
  return { server, smtp, alice }
})

const createTarget = (person: Person, name: string) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: {
        name,
        enabled: false,
        check: { type: "http", url: `https://${name}-internal.example.com/s3cr3t`, bearer_token: "tok-123456" }
      }
    }),
    (reply) => {
      return Http.expectOk(reply, Target, 201).id
    }
  )

/** A page of the target's org, straight in the database (the page API is another feature). */
// A private page's access as the management API stores it: the email code is its way in.
const privateAccess = {
  protected: true,
  email_code: { enabled: true, allow: ["@example.com"] },
  session_days: 7,
  recheck_days: null,
  password: { enabled: false }
}

const makePage = (
  server: TestServer.Running,
  targetId: string,
  slug: string,
  options: { readonly published?: boolean; readonly protected?: boolean } = {}
) =>
  Effect.gen(function* () {
    const [target] = yield* server.sql<{ org_id: string; account_id: string }>`
      SELECT org_id::text AS org_id, account_id::text AS account_id FROM targets WHERE id = ${targetId}
    `
    assert.isDefined(target)
    const id = crypto.randomUUID()
    yield* server.sql`
      INSERT INTO status_pages (id, org_id, account_id, slug, name, published, branding, access, write_source)
      VALUES (${id}, ${target.org_id}, ${target.account_id}, ${slug}, ${`${slug} status`}, ${options.published ?? true},
        ${JSON.stringify({ primary_color: null, theme: "auto", hide_powered_by: false })}::jsonb,
        ${options.protected === true ? JSON.stringify(privateAccess) : null}::jsonb, 'api')
    `
    yield* server.sql`
      INSERT INTO status_page_components (page_id, target_id, public_name, sort_order)
      VALUES (${id}, ${targetId}, 'Checkout', 0)
    `
    return id
  })

const subscribe = (server: TestServer.Running, slug: string, body: unknown) =>
  Http.request(`${server.baseUrl}/api/public/v1/subscriptions?page=${encodeURIComponent(slug)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })

const linkIn = (text: string, path: string) => {
  const link = new RegExp(`https?://\\S+${path}\\?token=[A-Za-z0-9_-]+`).exec(text)?.[0]
  if (link === undefined) throw new Error(`no ${path} link in: ${text}`)
  return new URL(link)
}

const header = (mail: SmtpCatcher.CaughtMail, name: string) =>
  mail.headerLines.find((h) => h.key === name.toLowerCase())?.line.replace(/^[^:]+:\s*/, "")

/** Polls until `check` holds (bounded), so no test depends on how fast a worker runs. */
const eventually = <A, E>(read: Effect.Effect<A, E>, check: (a: A) => boolean) =>
  poll(read, check, { timeoutMs: 15_000, intervalMs: 50 })

Fixture.describe(
  `status-page subscribers (${TestDatabase.kind} database)`,
  {
    env: { NOTIFIER__POLL_INTERVAL_MS: "50", NOTIFIER__MAINTENANCE_SWEEP_SECS: "1" },
    // An incident's public title and its updates need the plan's incident narration, which free lacks.
    sql: ["UPDATE plans SET incident_narration_enabled = true WHERE id = 'free'"]
  },
  (it) => {
    it.effect(
      "subscribe, confirm, incident and maintenance updates mailed with List-Unsubscribe, one-click unsubscribe, then silence",
      () =>
        Effect.gen(function* () {
          const { server, smtp, alice } = yield* setup
          const target = yield* createTarget(alice, "checkout")
          const page = yield* makePage(server, target, "acme")
          const address = "sub-one@example.com"

          const first = yield* subscribe(server, "acme", { email: "  Sub-One@Example.com " })
          expect(first.status, first.text).toBe(202)
          expect(first.headers.get("cache-control")).toBe("no-store")
          const [confirmation] = yield* Effect.promise(() => smtp.waitFor(address, 1))
          assert.isDefined(confirmation)
          expect(confirmation.subject).toBe("Confirm your subscription to acme status")
          const confirmLink = linkIn(confirmation.text, "/subscriptions/confirm")

          // Asked again at once: the same answer, and no second mail (the throttle is decided in the database).
          const [before] = yield* server.sql<{ hash: Uint8Array }>`
          SELECT confirm_token_hash AS hash FROM status_page_subscribers WHERE page_id = ${page} AND email = ${address}
        `
          const again = yield* subscribe(server, "acme", { email: address })
          expect([again.status, again.json]).toEqual([first.status, first.json])
          const [after] = yield* server.sql<{ hash: Uint8Array }>`
          SELECT confirm_token_hash AS hash FROM status_page_subscribers WHERE page_id = ${page} AND email = ${address}
        `
          expect(Buffer.from(after?.hash ?? []).equals(Buffer.from(before?.hash ?? []))).toBe(true)
          // An address nobody knows gets exactly the same answer.
          const stranger = yield* subscribe(server, "acme", { email: "nobody-yet@example.com" })
          expect([stranger.status, stranger.json]).toEqual([first.status, first.json])

          const confirmed = yield* Http.request(`${server.baseUrl}${confirmLink.pathname}${confirmLink.search}`)
          expect(confirmed.status).toBe(200)
          expect(confirmed.text).toContain("You are subscribed")
          expect(confirmed.headers.get("cache-control")).toBe("no-store")
          // The link works once.
          expect((yield* Http.request(`${server.baseUrl}${confirmLink.pathname}${confirmLink.search}`)).status).toBe(
            410
          )

          // An incident on the page's monitor: declared, then an update.
          const declared = yield* alice.browser.request("/api/v1/incidents", {
            json: {
              title: "internal: db-7 failover",
              public_title: "Checkout is slow",
              impact: "degraded",
              components: [target]
            }
          })
          expect(declared.status, declared.text).toBe(201)
          const incidentId = Http.decode(declared, IncidentDetail).id
          const posted = yield* alice.browser.request(`/api/v1/incidents/${incidentId}/updates`, {
            json: { phase: "identified", message: "A slow database; we are moving traffic." }
          })
          expect(posted.status, posted.text).toBe(201)
          // A maintenance window on it: scheduled, then an update.
          const starts = new Date(Date.now() + 3_600_000).toISOString()
          const window = yield* alice.browser.request("/api/v1/maintenance", {
            json: {
              title: "Payment provider upgrade",
              starts_at: starts,
              ends_at: new Date(Date.now() + 7_200_000).toISOString(),
              components: [target]
            }
          })
          expect(window.status, window.text).toBe(201)
          const windowId = Http.decode(window, MaintenanceWindowResource).id
          expect(
            (yield* alice.browser.request(`/api/v1/maintenance/${windowId}/updates`, {
              json: { message: "Moved by 15 minutes." }
            })).status
          ).toBe(201)

          // Confirmation, incident opened, incident update, window scheduled, window update: five mails, each once.
          const mails = yield* Effect.promise(() => smtp.waitFor(address, 5, 20_000))
          expect(mails.map((m) => m.subject).sort()).toEqual(
            [
              "Confirm your subscription to acme status",
              "[acme status] Identified: Checkout is slow",
              "[acme status] Maintenance update: Payment provider upgrade",
              "[acme status] New incident: Checkout is slow",
              "[acme status] Scheduled maintenance: Payment provider upgrade"
            ].sort()
          )
          const update = mails.find((m) => m.subject.includes("Identified"))
          assert.isDefined(update)
          expect(update.text).toContain("A slow database; we are moving traffic.")
          expect(update.text).toContain("Affected: Checkout")
          expect(update.text).toContain("/p/acme")
          const maintenance = mails.find((m) => m.subject.includes("Maintenance update"))
          assert.isDefined(maintenance)
          expect(maintenance.text).toContain("Moved by 15 minutes.")
          for (const mail of mails.slice(1)) {
            expect(mail.text).not.toContain("internal")
            expect(mail.text).not.toContain("s3cr3t")
            expect(mail.text).not.toContain("tok-123456")
            expect(header(mail, "List-Unsubscribe-Post")).toBe("List-Unsubscribe=One-Click")
            expect(header(mail, "List-Unsubscribe")).toMatch(
              /^<https?:\/\/\S+\/subscriptions\/unsubscribe\?token=[A-Za-z0-9_-]+>$/
            )
          }
          const unsubscribeLink = linkIn(maintenance.text, "/subscriptions/unsubscribe")
          expect(header(maintenance, "List-Unsubscribe")).toBe(`<${unsubscribeLink.href}>`)
          // Links are built on the server's own origin.
          expect(unsubscribeLink.port).toBe(new URL(server.baseUrl).port)
          expect(confirmLink.port).toBe(new URL(server.baseUrl).port)
          const unsubscribeUrl = `${server.baseUrl}${unsubscribeLink.pathname}${unsubscribeLink.search}`

          // A GET (a mail scanner) only shows the button.
          const shown = yield* Http.request(unsubscribeUrl)
          expect(shown.status).toBe(200)
          expect(shown.text).toContain('method="post"')
          const [still] = yield* server.sql<{ unsubscribed: boolean }>`
          SELECT unsubscribed_at IS NOT NULL AS unsubscribed FROM status_page_subscribers
          WHERE page_id = ${page} AND email = ${address}
        `
          expect(still?.unsubscribed).toBe(false)

          // RFC 8058 one-click: a POST with no session.
          const oneClick = yield* Http.request(unsubscribeUrl, {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded" },
            body: "List-Unsubscribe=One-Click"
          })
          expect(oneClick.status, oneClick.text).toBe(200)
          expect(oneClick.text).toContain("You are unsubscribed")

          // A later update fans out to nobody: once its notice is fanned out, no delivery exists for it.
          const later = yield* alice.browser.request(`/api/v1/incidents/${incidentId}/updates`, {
            json: { phase: "monitoring", message: "Watching it." }
          })
          expect(later.status).toBe(201)
          const fanned = yield* eventually(
            server.sql<{ fanned: boolean; deliveries: number }>`
            SELECT n.fanned_out_at IS NOT NULL AS fanned,
              (SELECT count(*)::int FROM deliveries d WHERE d.notice_id = n.id) AS deliveries
            FROM notices n WHERE n.page_id = ${page} AND n.payload->'event'->>'message' = 'Watching it.'
          `,
            (rows) => rows[0]?.fanned === true
          )
          expect(fanned).toEqual([{ fanned: true, deliveries: 0 }])
          // Every earlier delivery was sent once (its outcome is recorded just after the SMTP server takes it).
          const [sent] = yield* eventually(
            server.sql<{ n: number; delivered: number }>`
            SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'delivered')::int AS delivered
            FROM deliveries
            WHERE subscriber_id IN (SELECT id FROM status_page_subscribers WHERE page_id = ${page})
          `,
            (rows) => rows[0]?.delivered === 4
          )
          expect(sent).toEqual({ n: 4, delivered: 4 })
          expect(smtp.mails().filter((m) => m.to === address)).toHaveLength(5)
        })
    )

    it.effect(
      "a monitor-opened incident and its recovery, and a window starting and completing, are mailed once each",
      () =>
        Effect.gen(function* () {
          const { server, smtp, alice } = yield* setup
          const made = yield* alice.browser.request("/api/v1/targets", {
            json: { name: "office wifi", check: { type: "manual" } }
          })
          expect(made.status, made.text).toBe(201)
          const target = Http.decode(made, Target).id
          const page = yield* makePage(server, target, "office")
          const address = "sub-two@example.com"
          expect((yield* subscribe(server, "office", { email: address })).status).toBe(202)
          const [confirmation] = yield* Effect.promise(() => smtp.waitFor(address, 1))
          assert.isDefined(confirmation)
          const link = linkIn(confirmation.text, "/subscriptions/confirm")
          expect((yield* Http.request(`${server.baseUrl}${link.pathname}${link.search}`)).status).toBe(200)

          const subjects = (count: number) =>
            Effect.map(
              Effect.promise(() => smtp.waitFor(address, count, 20_000)),
              (mails) => mails.slice(1).map((m) => m.subject)
            )
          const state = (status: string) =>
            alice.browser.request(`/api/v1/targets/${target}/state`, { method: "PUT", json: { status } })
          expect((yield* state("down")).status).toBe(200)
          expect(yield* subjects(2)).toEqual(["[office status] New incident: Outage"])
          expect((yield* state("up")).status).toBe(200)
          expect(yield* subjects(3)).toEqual([
            "[office status] New incident: Outage",
            "[office status] Resolved: Outage"
          ])

          // A window that is due: its start is announced by the sweep, then its end.
          const window = yield* alice.browser.request("/api/v1/maintenance", {
            json: {
              title: "Router swap",
              starts_at: new Date(Date.now() + 3_600_000).toISOString(),
              ends_at: new Date(Date.now() + 7_200_000).toISOString(),
              components: [target]
            }
          })
          expect(window.status, window.text).toBe(201)
          const windowId = Http.decode(window, MaintenanceWindowResource).id
          expect((yield* subjects(4))[2]).toBe("[office status] Scheduled maintenance: Router swap")
          yield* server.sql`UPDATE maintenance_windows SET starts_at = now() - interval '1 minute' WHERE id = ${windowId}`
          expect((yield* subjects(5))[3]).toBe("[office status] Maintenance in progress: Router swap")
          yield* server.sql`UPDATE maintenance_windows SET ends_at = now() - interval '1 second' WHERE id = ${windowId}`
          expect((yield* subjects(6))[4]).toBe("[office status] Maintenance completed: Router swap")
          // Later sweeps announce nothing again.
          const notices = yield* eventually(
            server.sql<{ n: number; pending: number }>`
            SELECT count(*)::int AS n, count(*) FILTER (WHERE fanned_out_at IS NULL)::int AS pending
            FROM notices WHERE page_id = ${page}
          `,
            (rows) => rows[0]?.pending === 0
          )
          expect(notices[0]?.n).toBe(5)
          const [keys] = yield* server.sql<{ n: number }>`
          SELECT count(DISTINCT dedupe_key)::int AS n FROM notices WHERE page_id = ${page}
        `
          expect(keys?.n).toBe(5)
        })
    )

    it.effect("bad addresses, unknown and unpublished pages, and a private page for a stranger are refused", () =>
      Effect.gen(function* () {
        const { server, alice } = yield* setup
        const target = yield* createTarget(alice, "api")
        yield* makePage(server, target, "public-one")
        yield* makePage(server, target, "draft-one", { published: false })
        yield* makePage(server, target, "private-one", { protected: true })
        expect(Http.refusal(yield* subscribe(server, "public-one", { email: "not-an-address" }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "email"
        })
        expect(Http.refusal(yield* subscribe(server, "public-one", { email: "a@example.com", extra: 1 }))).toEqual({
          status: 422,
          code: "INVALID_JSON",
          field: "extra"
        })
        expect(Http.refusal(yield* subscribe(server, "no-such-page", { email: "a@example.com" }))).toEqual({
          status: 404,
          code: "NOT_FOUND",
          field: null
        })
        expect(Http.refusal(yield* subscribe(server, "draft-one", { email: "a@example.com" }))).toEqual({
          status: 404,
          code: "NOT_FOUND",
          field: null
        })
        expect(Http.refusal(yield* subscribe(server, "private-one", { email: "a@example.com" }))).toEqual({
          status: 401,
          code: "PAGE_SIGN_IN_REQUIRED",
          field: null
        })
        const rows = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM status_page_subscribers s JOIN status_pages p ON p.id = s.page_id
        WHERE p.org_id = ${alice.org.id}
      `
        expect(rows[0]?.n).toBe(0)
        // Unknown links: the same page, no hint.
        for (const path of ["/subscriptions/unsubscribe?token=nope", "/subscriptions/confirm?token=nope"]) {
          const reply = yield* Http.request(`${server.baseUrl}${path}`)
          expect([404, 410]).toContain(reply.status)
          expect(reply.text).toContain("This link cannot be used")
        }
        const post = yield* Http.request(`${server.baseUrl}/subscriptions/unsubscribe?token=nope`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "List-Unsubscribe=One-Click"
        })
        expect(post.status).toBe(404)
      })
    )
  }
)
