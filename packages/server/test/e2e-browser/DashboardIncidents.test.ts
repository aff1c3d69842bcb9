/// <reference lib="dom" />
/**
 * The incident and maintenance pages in real headless Chromium: an incident opened by a manual monitor set down is
 * listed, narrated (public title, an update, shown on the status page that lists its monitor), acknowledged, its
 * notification logged, given a postmortem and resolved, with an over-long update refused on its field; one is
 * declared from the list. A plan without narration says so and refuses it on the field. The list filters and pages
 * with plain links, read with JavaScript off. A running maintenance window is ended now; another is scheduled in the
 * viewer's time zone (refused first on `ends_at`), edited, updated and cancelled through its pages. axe and
 * screenshots of every page.
 */
import { assert, expect } from "@effect/vitest"
import { IncidentDetail, IncidentPage } from "@signalman/core/api/Incidents"
import { MaintenanceWindowResource } from "@signalman/core/api/Maintenance"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { BrowserContext, Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { uniqueEmail } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const Created = Schema.Struct({ id: Schema.String })
const Deliveries = Schema.Struct({ data: Schema.Array(Schema.Struct({ status: Schema.String })) })

type Person = Fixture.Person

const manualMonitor = (person: Person, name: string, extra: Record<string, unknown> = {}) =>
  Effect.map(
    person.api("/api/v1/targets", { json: { name, check: { type: "manual" }, ...extra } }),
    (reply) => Http.expectOk(reply, Target, 201).id
  )

const setDown = (person: Person, target: string, note: string) =>
  Effect.map(
    person.api(`/api/v1/targets/${target}/state`, { method: "PUT", json: { status: "down", note } }),
    (reply) => expect(reply.status, reply.text).toBe(200)
  )

const incidentsOf = (person: Person, target: string) =>
  Effect.map(person.api(`/api/v1/incidents?target_id=${target}`), (reply) => Http.expectOk(reply, IncidentPage).data)

const incident = (person: Person, id: string) =>
  Effect.map(person.api(`/api/v1/incidents/${id}`), (reply) => Http.expectOk(reply, IncidentDetail))

/** Runs `action` in the page and waits for the navigation it causes (a form's reload or redirect, a link). */
const navigating = (page: Page, action: (page: Page) => Promise<unknown>) =>
  Effect.promise(() => Promise.all([page.waitForNavigation({ waitUntil: "load" }), action(page)]))

const setValue = (page: Page, selector: string, value: string) =>
  Effect.promise(() =>
    page.$eval(
      selector,
      (element, text) => {
        if (
          element instanceof HTMLInputElement ||
          element instanceof HTMLTextAreaElement ||
          element instanceof HTMLSelectElement
        ) {
          element.value = text
        }
      },
      value
    )
  )

const text = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (element) => element.textContent ?? ""))

const texts = (page: Page, selector: string) =>
  Effect.promise(() => page.$$eval(selector, (elements) => elements.map((e) => e.textContent?.trim() ?? "")))

/** The refusal a form shows on a field: the field is invalid, described by the note, and focused. */
const fieldError = (page: Page, selector: string) =>
  Effect.gen(function* () {
    yield* Dashboard.until(
      page,
      `document.querySelector(${JSON.stringify(selector)})?.getAttribute("aria-invalid") === "true"`
    )
    return yield* Effect.promise(() =>
      page.$eval(selector, (field) => {
        const ids = (field.getAttribute("aria-describedby") ?? "").split(" ")
        const note = ids.map((id) => document.getElementById(id)).find((e) => e?.classList.contains("field-error"))
        return { focused: document.activeElement === field, message: note?.textContent ?? "" }
      })
    )
  })

/** A tab that accepts every confirm() and keeps what the content security policy refused. */
const tabFor = (person: Person, baseUrl: string, context: BrowserContext) =>
  Effect.gen(function* () {
    const page = yield* Dashboard.tab(context, baseUrl, person)
    const refused: Array<string> = []
    page.on("dialog", (dialog) => void dialog.accept())
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/i.test(message.text())) refused.push(message.text())
    })
    return { page, refused }
  })

Fixture.describe(
  `dashboard incidents and maintenance (${TestDatabase.kind} database)`,
  { env: { NOTIFIER__POLL_INTERVAL_MS: "50" } },
  (it) => {
    it.scoped(
      "an incident listed, narrated onto its status page, acknowledged, logged, postmortem'd and resolved; one declared",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person({ plan: "pro" })
          const channel = Http.decode(
            yield* alice.api("/api/v1/channels", {
              json: { name: "ops mail", kind: "email", config: { addresses: [uniqueEmail("oncall")] } }
            }),
            Created
          ).id
          const target = yield* manualMonitor(alice, "Checkout API", { alerts: [{ channel_id: channel }] })
          const slug = `acme-${Date.now().toString(36)}`
          const statusPage = yield* alice.api("/api/v1/status-pages", {
            json: { slug, name: "Acme status", published: true }
          })
          const pageId = Http.decode(statusPage, Created).id
          const component = yield* alice.api(`/api/v1/status-pages/${pageId}/components`, {
            json: { target_id: target }
          })
          expect(component.status, component.text).toBe(201)
          yield* setDown(alice, target, "Payments failing")
          const [opened] = yield* incidentsOf(alice, target)
          assert.isDefined(opened)

          const { page, refused } = yield* tabFor(alice, server.baseUrl, yield* Dashboard.context)

          // The list: the incident with its state in words, its monitor linked, its own page linked.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/incidents`)).toBe(200)
          const listed = yield* Effect.promise(() =>
            page.evaluate(() =>
              [...document.querySelectorAll("tbody tr")].map((row) => ({
                title: row.querySelector("th a")?.textContent ?? "",
                href: row.querySelector("th a")?.getAttribute("href") ?? "",
                state: row.querySelector(".state")?.textContent ?? "",
                monitor: row.querySelector("td a[href^='/monitors/']")?.getAttribute("href") ?? ""
              }))
            )
          )
          expect(listed).toEqual([
            { title: "Checkout API", href: `/incidents/${opened.id}`, state: "Open", monitor: `/monitors/${target}` }
          ])
          expect(yield* text(page, "nav a[aria-current=page]")).toBe("Incidents")
          yield* Dashboard.auditAndCapture(page, "incidents-list")
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/incidents?status=closed`)).toBe(200)
          expect(yield* text(page, "main")).toContain("No incidents match these filters.")

          // The detail page, reached by its link.
          yield* Dashboard.visit(page, `${server.baseUrl}/incidents`)
          yield* navigating(page, (p) => p.click(`a[href="/incidents/${opened.id}"]`))
          expect(yield* text(page, "h1")).toBe("Checkout API")
          const timeline = (yield* texts(page, ".timeline-message")).join("\n")
          expect(timeline).toContain("Incident opened")
          yield* Dashboard.auditAndCapture(page, "incident-detail")

          // Public narration, then an update: too long first (refused on its field), then posted.
          yield* setValue(page, "#incident-public-title", "Checkout is slow")
          yield* setValue(page, "#incident-public-description", "Some payments time out.")
          yield* navigating(page, (p) => p.click(".incident-public button[type=submit]"))
          expect(yield* text(page, ".public-title")).toBe("Checkout is slow")
          yield* setValue(page, "#update-message", "x".repeat(2001))
          yield* Effect.promise(() => page.click(".incident-update button[type=submit]"))
          const tooLong = yield* fieldError(page, "#update-message")
          expect(tooLong.focused).toBe(true)
          expect(tooLong.message).not.toBe("")
          expect(yield* text(page, ".incident-update [data-form-status]")).toContain("Check the highlighted field")
          expect((yield* incident(alice, opened.id)).updates.some((u) => u.kind === "update")).toBe(false)
          yield* Effect.promise(() => page.select("#update-phase", "identified"))
          yield* setValue(page, "#update-message", "A bad deploy; rolling back.")
          yield* navigating(page, (p) => p.click(".incident-update button[type=submit]"))
          expect(yield* texts(page, ".timeline-update .timeline-kind")).toEqual(["Update: Identified"])
          expect(yield* texts(page, ".timeline-update .timeline-message")).toEqual(["A bad deploy; rolling back."])

          // The status page that lists the monitor tells the same story.
          const publicPage = yield* eventually(
            Http.request(`${server.baseUrl}/p/${slug}/incidents/${opened.id}`),
            (reply) => reply.text.includes("A bad deploy; rolling back.")
          )
          expect(publicPage.status).toBe(200)
          expect(publicPage.text).toContain("Checkout is slow")
          expect(publicPage.text).toContain("A bad deploy; rolling back.")
          expect((yield* Http.request(`${server.baseUrl}/p/${slug}`)).text).toContain("Checkout is slow")

          // Acknowledge: the state and the timeline say so, and so does the API.
          yield* navigating(page, (p) => p.click("button[data-action$='/acknowledge']"))
          expect(yield* text(page, ".incident-summary .state")).toBe("Acknowledged")
          expect(yield* texts(page, "button[data-action$='/acknowledge']")).toEqual([])
          expect((yield* incident(alice, opened.id)).acknowledged_by).toBe(alice.userId)

          // The delivery log: the opening notice, delivered by mail.
          const log = yield* eventually(
            Effect.map(alice.api(`/api/v1/incidents/${opened.id}/deliveries`), (reply) =>
              Http.decode(reply, Deliveries)
            ),
            (body) => body.data.length > 0 && body.data.every((d) => d.status === "delivered")
          )
          expect(log.data.map((d) => d.status)).toEqual(["delivered"])
          yield* Dashboard.visit(page, page.url())
          const delivery = yield* texts(page, "section[aria-labelledby=deliveries-heading] tbody tr > *")
          expect(delivery.slice(0, 2)).toEqual(["Incident opened", "ops mail (email)"])
          expect(delivery[2]).toMatch(/^Delivered\s+after 1 attempt$/)

          // The postmortem, written and shown.
          yield* setValue(page, "#postmortem-text", "## What happened\nA deploy broke payments <script>.")
          yield* navigating(page, (p) => p.click(".incident-postmortem button[type=submit]"))
          expect(yield* text(page, "#postmortem-body")).toBe("## What happened\nA deploy broke payments <script>.")

          // Resolve (after the confirm): closed by a person.
          yield* navigating(page, (p) => p.click("button[data-action$='/resolve']"))
          expect(yield* text(page, ".incident-summary .state")).toBe("Resolved")
          const resolved = yield* incident(alice, opened.id)
          expect([resolved.status, resolved.close_reason, resolved.resolved_by]).toEqual([
            "closed",
            "resolved",
            alice.userId
          ])
          expect(yield* texts(page, "button[data-action]:not([data-action='/auth/logout'])")).toEqual([])

          // Declared from the list page, naming the monitor; the form goes to the new incident's page.
          yield* Dashboard.visit(page, `${server.baseUrl}/incidents`)
          yield* setValue(page, "#declare-title", "Slow logins")
          yield* Effect.promise(() => page.select("#declare-impact", "degraded"))
          yield* Effect.promise(() => page.click(`input[name=components][value="${target}"]`))
          yield* setValue(page, "#declare-public-title", "Logins are slow")
          yield* navigating(page, (p) => p.click(".incident-declare button[type=submit]"))
          const declaredId = new URL(page.url()).pathname.split("/").pop() ?? ""
          expect(yield* text(page, "h1")).toBe("Slow logins")
          const declared = yield* incident(alice, declaredId)
          expect(declared).toMatchObject({
            origin: "declared",
            impact: "degraded",
            components: [target],
            public_title: "Logins are slow"
          })
          expect(refused).toEqual([])
        }),
      150_000
    )

    it.scoped(
      "a plan without narration says so and refuses it on the field; the list pages and filters with JavaScript off",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const bob = yield* Fixture.person({ label: "bob" })
          const target = yield* manualMonitor(bob, "Mail relay")
          yield* setDown(bob, target, "Queue stuck")
          const [opened] = yield* incidentsOf(bob, target)
          assert.isDefined(opened)
          // 26 incidents in all: a second page. Four of the declared ones are minor.
          for (let i = 0; i < 25; i++) {
            const reply = yield* bob.api("/api/v1/incidents", {
              json: {
                title: `Notice ${i}`,
                impact: "degraded",
                components: [],
                ...(i < 4 ? { severity: "minor" } : {})
              }
            })
            expect(reply.status, reply.text).toBe(201)
          }

          // The plan lacks narration: the page says so, and the API's refusal lands on the public title.
          const context = yield* Dashboard.context
          const { page, refused } = yield* tabFor(bob, server.baseUrl, context)
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/incidents/${opened.id}`)).toBe(200)
          expect(yield* text(page, "#narration-plan")).toContain("does not include public incident narration")
          yield* setValue(page, "#incident-public-title", "Mail is late")
          yield* Effect.promise(() => page.click(".incident-public button[type=submit]"))
          const gated = yield* fieldError(page, "#incident-public-title")
          expect(gated.focused).toBe(true)
          expect(gated.message).not.toBe("")
          // Private details stay writable on this plan.
          yield* Effect.promise(() => page.select("#incident-severity", "critical"))
          yield* navigating(page, (p) => p.click(".incident-details button[type=submit]"))
          expect((yield* incident(bob, opened.id)).severity).toBe("critical")
          // An unknown or malformed id is the same 404 page.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/incidents/not-an-id`)).toBe(404)
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/incidents/${crypto.randomUUID()}`)).toBe(404)
          expect(refused).toEqual([])

          // With JavaScript off: the list reads, pages by links and filters by a plain GET form.
          const plain = yield* Dashboard.tab(context, server.baseUrl, bob)
          yield* Effect.promise(() => plain.setJavaScriptEnabled(false))
          expect(yield* Dashboard.visit(plain, `${server.baseUrl}/incidents`)).toBe(200)
          expect(yield* text(plain, ".pager span")).toBe("Page 1 of 2")
          expect((yield* texts(plain, "tbody tr")).length).toBe(25)
          yield* navigating(plain, (p) => p.click(".pager a[rel=next]"))
          expect(new URL(plain.url()).search).toBe("?page=2")
          expect((yield* texts(plain, "tbody tr")).length).toBe(1)
          expect(yield* texts(plain, ".pager a")).toEqual(["Previous page"])
          yield* Effect.promise(() => plain.select("#filter-severity", "minor"))
          yield* navigating(plain, (p) => p.click(".filters button[type=submit]"))
          expect(new URL(plain.url()).searchParams.get("severity")).toBe("minor")
          // Declared concurrently: in whatever order they started.
          expect([...(yield* texts(plain, "tbody th a"))].sort()).toEqual([
            "Notice 0",
            "Notice 1",
            "Notice 2",
            "Notice 3"
          ])
          yield* Effect.promise(() => plain.select("#filter-severity", "critical"))
          yield* navigating(plain, (p) => p.click(".filters button[type=submit]"))
          expect(yield* texts(plain, "tbody th a")).toEqual(["Mail relay"])
        }),
      120_000
    )

    it.scoped(
      "maintenance: one ended now; one scheduled in the viewer's time zone, refused on ends_at, edited, updated and cancelled",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const carol = yield* Fixture.person({ label: "carol", plan: "pro" })
          const database = yield* manualMonitor(carol, "Primary database")
          yield* manualMonitor(carol, "Search")
          // One running and one upcoming window beside the one the pages make.
          const hour = 3600_000
          for (const [title, from, to] of [
            ["Network change", -hour, hour],
            ["Storage move", 48 * hour, 50 * hour]
          ] as const) {
            const reply = yield* carol.api("/api/v1/maintenance", {
              json: {
                title,
                starts_at: new Date(Date.now() + from).toISOString(),
                ends_at: new Date(Date.now() + to).toISOString(),
                components: [database]
              }
            })
            expect(reply.status, reply.text).toBe(201)
          }

          const { page, refused } = yield* tabFor(carol, server.baseUrl, yield* Dashboard.context)
          yield* Effect.promise(() => page.emulateTimezone("Asia/Kolkata"))
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/maintenance`)).toBe(200)
          expect(yield* texts(page, "#maintenance-active tbody th")).toEqual(["Network change"])
          expect(yield* texts(page, "#maintenance-upcoming tbody th")).toEqual(["Storage move"])
          // The running one ended now, from its page (after the confirm).
          yield* navigating(page, (p) => p.click("#maintenance-active tbody th a"))
          yield* navigating(page, (p) => p.click("button[data-method=PATCH]"))
          expect(yield* text(page, "main .state")).toBe("Completed")
          yield* Dashboard.visit(page, `${server.baseUrl}/maintenance`)
          expect(yield* text(page, "section[aria-labelledby=active-heading] p")).toBe("Nothing is in progress.")
          yield* navigating(page, (p) => p.click("a[href='/maintenance/new']"))
          expect(yield* text(page, "h1")).toBe("Schedule maintenance")
          // Chromium may name the zone by its older alias.
          expect(yield* text(page, "#new-starts-hint [data-time-zone]")).toMatch(
            /^your time zone \(Asia\/(Kolkata|Calcutta)\)$/
          )
          yield* Dashboard.auditAndCapture(page, "maintenance-new")

          // Ends before it starts: refused on ends_at.
          yield* setValue(page, "#new-title", "Database upgrade")
          yield* setValue(page, "#new-description", "Postgres 17; a minute of read-only.")
          yield* setValue(page, "#new-starts", "2030-01-01T10:00")
          yield* setValue(page, "#new-ends", "2030-01-01T09:00")
          yield* Effect.promise(() => page.click(`input[name=components][value="${database}"]`))
          yield* Effect.promise(() => page.click(".maintenance-form button[type=submit]"))
          const early = yield* fieldError(page, "#new-ends")
          expect(early.focused).toBe(true)
          expect(early.message).toContain("after starts_at")
          yield* setValue(page, "#new-ends", "2030-01-01T12:00")
          yield* navigating(page, (p) => p.click(".maintenance-form button[type=submit]"))
          const id = new URL(page.url()).pathname.split("/").pop() ?? ""
          const read = (id: string) =>
            Effect.map(carol.api(`/api/v1/maintenance/${id}`), (reply) =>
              Http.expectOk(reply, MaintenanceWindowResource)
            )
          const created = yield* read(id)
          // 10:00 in Kolkata is 04:30 UTC.
          expect([created.starts_at, created.ends_at].map((t) => t.toJSON())).toEqual([
            "2030-01-01T04:30:00.000Z",
            "2030-01-01T06:30:00.000Z"
          ])
          expect(created).toMatchObject({
            title: "Database upgrade",
            components: [database],
            suppress_alerts: true,
            write_source: "ui"
          })
          expect(yield* text(page, "h1")).toBe("Database upgrade")
          expect(
            yield* Effect.promise(() =>
              page.$eval("#edit-starts", (e) => (e instanceof HTMLInputElement ? e.value : ""))
            )
          ).toBe("2030-01-01T10:00")
          const shown = yield* Effect.promise(() =>
            page.$eval(".facts time", (t) => ({ when: t.getAttribute("datetime"), text: t.textContent ?? "" }))
          )
          expect(shown.when).toBe("2030-01-01T04:30:00.000Z")
          expect(shown.text).toContain("10:00")
          yield* Dashboard.auditAndCapture(page, "maintenance-detail")

          // Edited: a new title and a later end, and alerts no longer suppressed.
          yield* setValue(page, "#edit-title", "Database upgrade (extended)")
          yield* setValue(page, "#edit-ends", "2030-01-01T13:00")
          yield* Effect.promise(() => page.click("input[name=suppress_alerts]"))
          yield* navigating(page, (p) => p.click(".maintenance-form button[type=submit]"))
          const edited = yield* read(id)
          expect([edited.title, edited.ends_at.toJSON(), edited.suppress_alerts]).toEqual([
            "Database upgrade (extended)",
            "2030-01-01T07:30:00.000Z",
            false
          ])

          // An update, then the cancel (after the confirm): kept as history, no longer editable.
          yield* Effect.promise(() => page.select("#update-status", "scheduled"))
          yield* setValue(page, "#update-message", "Confirmed for New Year's morning.")
          yield* navigating(page, (p) => p.click(".maintenance-update button[type=submit]"))
          expect(yield* texts(page, ".timeline-message")).toContain("Confirmed for New Year's morning.")
          yield* navigating(page, (p) => p.click("button[data-method=DELETE]"))
          const cancelled = yield* read(id)
          expect(cancelled.status).toBe("cancelled")
          expect(cancelled.deleted_by).toBe(carol.userId)
          expect(yield* text(page, "main .state")).toBe("Cancelled")
          expect(yield* Effect.promise(() => page.$$(".maintenance-form, .maintenance-update"))).toHaveLength(0)

          yield* Dashboard.visit(page, `${server.baseUrl}/maintenance`)
          expect(yield* texts(page, "#maintenance-past tbody th")).toEqual([
            "Database upgrade (extended)",
            "Network change"
          ])
          expect(yield* texts(page, "#maintenance-past .state")).toEqual(["Cancelled", "Completed"])
          yield* Dashboard.auditAndCapture(page, "maintenance-list")
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/maintenance/${crypto.randomUUID()}`)).toBe(404)
          expect(refused).toEqual([])
        }),
      120_000
    )
  }
)
