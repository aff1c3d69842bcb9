/// <reference lib="dom" />
/**
 * The on-call pages in real headless Chromium: a schedule of Alice and Bob made through its form (in a Berlin
 * viewer's zone), its calendar with the right person on the right days across Berlin's spring change (a 23-hour
 * Sunday, handoffs still at 09:00), today and who is on call now marked, moved by a week; an override refused on its
 * field, added (shown in the calendar) and removed. A policy made and extended through its form, bound to a monitor
 * in the monitor editor, and an incident's walk on its page (driven with explicit times as e2e/Escalation.test.ts
 * does), stopped by acknowledging. A plan without on-call says so and links billing; a member reads without any
 * form. axe and screenshots of every page.
 */
import { assert, expect } from "@effect/vitest"
import { IncidentPage } from "@signalman/core/api/Incidents"
import { EscalationPolicy } from "@signalman/core/oncall/EscalationPolicy"
import { OnCallAnswer, Schedule } from "@signalman/core/oncall/Schedule"
import { Target } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { BrowserContext, Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as IncidentWriting from "../support/IncidentWriting.js"
import * as TestDatabase from "../support/TestDatabase.js"

type Person = Fixture.Person

// No background clock: the incident engine's ticks and the walker's passes run only when the test says.
const settings = { INCIDENTS__TICK_INTERVAL_SECS: "0", NOTIFIER__POLL_INTERVAL_MS: "50" }

const Created = Schema.Struct({ id: Schema.String })

/** Alice (an owner on a plan with on-call) and Bob, a member of her org. */
const team = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice", plan: "pro" })
  const bob = yield* Fixture.person({ label: "bob" })
  yield* server.sql`
    INSERT INTO memberships (org_id, user_id, role) VALUES (${alice.org.id}, ${bob.userId}, 'member')
  `.pipe(Effect.orDie)
  return { alice, bob, a: alice.userId.toLowerCase(), b: bob.userId.toLowerCase() }
})

/** A tab in Berlin time that accepts every confirm() and keeps what the content security policy refused. */
const tabFor = (person: Person, baseUrl: string, context: BrowserContext) =>
  Effect.gen(function* () {
    const page = yield* Dashboard.tab(context, baseUrl, person)
    yield* Effect.promise(() => page.emulateTimezone("Europe/Berlin"))
    const refused: Array<string> = []
    page.on("dialog", (dialog) => void dialog.accept())
    page.on("console", (message) => {
      if (message.type() === "error" && /Content Security Policy/i.test(message.text())) refused.push(message.text())
    })
    return { page, refused }
  })

const setValue = (page: Page, selector: string, value: string) =>
  Effect.promise(() =>
    page.$eval(
      selector,
      (element, text) => {
        if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement) element.value = text
      },
      value
    )
  )

const choose = (page: Page, selector: string, value: string) =>
  Effect.promise(() => page.select(selector, value).then(() => undefined))

const text = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (element) => element.textContent?.replace(/\s+/g, " ").trim() ?? ""))

const count = (page: Page, selector: string) =>
  Effect.promise(() => page.$$eval(selector, (elements) => elements.length))

/** Clicks and waits for the navigation it causes; a refusal shown instead fails with what it said. */
const submit = (page: Page, selector: string) =>
  Effect.promise(async () => {
    const navigation = page.waitForNavigation({ waitUntil: "load" }).then(() => undefined)
    await page.click(selector)
    const refusal = page
      .waitForSelector(".form-status.error", { timeout: 30_000 })
      .then((status) => status?.evaluate((node) => node.textContent ?? ""))
      .catch(() => undefined)
    const said = await Promise.race([navigation, refusal])
    if (said !== undefined) throw new Error(`${selector} at ${page.url()} was refused: ${said}`)
    return new URL(page.url()).pathname
  })

/** The calendar's rows: each day's date, its words, and each piece as `from-to user` (user "" for nobody). */
const calendar = (page: Page) =>
  Effect.promise(() =>
    page.$$eval("table.oncall-calendar tbody tr", (rows) =>
      rows.map((row) => ({
        date: row.getAttribute("data-date") ?? "",
        head: row.querySelector("th")?.textContent?.replace(/\s+/g, " ").trim() ?? "",
        pieces: [...row.querySelectorAll("li")].map(
          (li) => `${/^\s*(\S+)/.exec(li.textContent ?? "")?.[1] ?? ""} ${li.getAttribute("data-user") ?? ""}`
        )
      }))
    )
  )

const scheduleOf = (person: Person, id: string) =>
  Effect.map(person.api(`/api/v1/oncall/schedules/${id}`), (reply) => Http.expectOk(reply, Schedule))

Fixture.describe(`dashboard on-call (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.scoped(
    "a schedule made through its form: its calendar across Berlin's spring change, now marked, an override added and removed",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const { alice, bob, a, b } = yield* team
        const { page, refused } = yield* tabFor(alice, server.baseUrl, yield* Dashboard.context)

        // The navigation's entry; an org with nothing yet.
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/on-call`)).toBe(200)
        expect(yield* text(page, "nav a[aria-current=page]")).toBe("On-call")
        expect(yield* text(page, "main")).toContain("No schedules yet.")
        yield* Dashboard.auditAndCapture(page, "oncall-list-empty")

        // The form: Berlin, one layer of a day each, Alice then Bob, from Monday 23 March 2026 09:00 Berlin time.
        yield* submit(page, "a[href='/on-call/schedules/new']")
        yield* Dashboard.auditAndCapture(page, "oncall-schedule-new")
        yield* setValue(page, "#schedule-name", "Primary")
        yield* choose(page, "#schedule-zone", "Europe/Berlin")
        yield* setValue(page, "[name='layers[0].name']", "Days")
        yield* setValue(page, "[name='layers[0].starts_at']", "2026-03-23T09:00")
        yield* setValue(page, "[name='layers[0].rotation.length.count']", "1")
        yield* choose(page, "[name='layers[0].rotation.length.unit']", "days")
        yield* setValue(page, "[name='layers[0].rotation.handoff']", "09:00")
        yield* choose(page, "[name='layers[0].participants[0]']", a)
        yield* choose(page, "[name='layers[0].participants[1]']", b)
        const path = yield* submit(page, "form[data-oncall=schedule] button[type=submit]")
        const id = /^\/on-call\/schedules\/([0-9a-f-]{36})$/.exec(path)?.[1]
        assert.isDefined(id)
        const stored = yield* scheduleOf(alice, id)
        expect(stored.time_zone).toBe("Europe/Berlin")
        expect(
          stored.layers.map((l) => [l.name, DateTime.formatIso(l.starts_at), l.participants, l.restrictions])
        ).toEqual([["Days", "2026-03-23T08:00:00.000Z", [a, b], []]])
        expect(stored.layers[0]?.rotation).toEqual({ length: { unit: "days", count: 1 }, handoff: "09:00" })

        // Today's calendar: today's row marked, one piece "now", and the person the API says is on call now.
        const now = Http.expectOk(yield* alice.api(`/api/v1/oncall/schedules/${id}/on-call`), OnCallAnswer)
        expect(yield* text(page, "#on-call-now")).toContain(now.user_id === a ? alice.email : bob.email)
        expect(yield* count(page, "tr.oncall-today")).toBe(1)
        expect(yield* count(page, "li.oncall-now")).toBe(1)
        expect(yield* text(page, "li.oncall-now")).toContain(now.user_id === a ? alice.email : bob.email)
        expect(yield* text(page, "tr.oncall-today th")).toContain("Today")
        expect((yield* calendar(page)).length).toBe(14)
        yield* Dashboard.auditAndCapture(page, "oncall-schedule")

        // The week of the change: turns alternate daily at 09:00 Berlin time, on the 23-hour Sunday as on any day.
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/on-call/schedules/${id}?from=2026-03-23`)).toBe(200)
        const week = (yield* calendar(page)).slice(0, 8)
        expect(week.map((d) => [d.date, d.pieces])).toEqual([
          ["2026-03-23", ["00:00–09:00 ", `09:00–24:00 ${a}`]],
          ["2026-03-24", [`00:00–09:00 ${a}`, `09:00–24:00 ${b}`]],
          ["2026-03-25", [`00:00–09:00 ${b}`, `09:00–24:00 ${a}`]],
          ["2026-03-26", [`00:00–09:00 ${a}`, `09:00–24:00 ${b}`]],
          ["2026-03-27", [`00:00–09:00 ${b}`, `09:00–24:00 ${a}`]],
          ["2026-03-28", [`00:00–09:00 ${a}`, `09:00–24:00 ${b}`]],
          ["2026-03-29", [`00:00–09:00 ${b}`, `09:00–24:00 ${a}`]],
          ["2026-03-30", [`00:00–09:00 ${a}`, `09:00–24:00 ${b}`]]
        ])
        expect(week[6]?.head).toContain("Sun 29 Mar")
        expect(week[6]?.head).toContain("23 hours")
        expect(week[5]?.head).not.toContain("hours")
        // Not this week: nothing is "now".
        expect(yield* count(page, "li.oncall-now")).toBe(0)
        // A week on, by its link.
        yield* submit(page, "a[rel=next]")
        expect((yield* calendar(page))[0]?.date).toBe("2026-03-30")

        // An override refused on its field (it ends before it starts), then Bob from 12:00 to 15:00 on the 25th.
        yield* Dashboard.visit(page, `${server.baseUrl}/on-call/schedules/${id}?from=2026-03-23`)
        yield* choose(page, "#override-user", b)
        yield* setValue(page, "#override-starts", "2026-03-25T12:00")
        yield* setValue(page, "#override-ends", "2026-03-25T11:00")
        yield* Effect.promise(() => page.click("form.oncall-override button[type=submit]"))
        yield* Dashboard.until(
          page,
          `document.querySelector("#override-ends")?.getAttribute("aria-invalid") === "true"`
        )
        expect(yield* Effect.promise(() => page.evaluate(() => document.activeElement?.id))).toBe("override-ends")
        expect((yield* scheduleOf(alice, id)).overrides).toEqual([])
        yield* setValue(page, "#override-ends", "2026-03-25T15:00")
        yield* submit(page, "form.oncall-override button[type=submit]")
        const overridden = yield* scheduleOf(alice, id)
        expect(
          overridden.overrides.map((o) => [o.user_id, DateTime.formatIso(o.starts_at), DateTime.formatIso(o.ends_at)])
        ).toEqual([[b, "2026-03-25T11:00:00.000Z", "2026-03-25T14:00:00.000Z"]])
        const wednesday = (yield* calendar(page)).find((d) => d.date === "2026-03-25")
        expect(wednesday?.pieces).toEqual([
          `00:00–09:00 ${b}`,
          `09:00–12:00 ${a}`,
          `12:00–15:00 ${b}`,
          `15:00–24:00 ${a}`
        ])
        expect(yield* text(page, "tr[data-date='2026-03-25'] td:last-child")).toContain("(override)")
        expect(yield* text(page, "table.oncall-overrides tbody")).toContain(bob.email)
        yield* Dashboard.auditAndCapture(page, "oncall-schedule-override")

        // Removed: gone from the schedule and the calendar.
        yield* submit(page, "table.oncall-overrides button[data-action]")
        expect((yield* scheduleOf(alice, id)).overrides).toEqual([])
        expect((yield* calendar(page)).find((d) => d.date === "2026-03-25")?.pieces).toEqual([
          `00:00–09:00 ${b}`,
          `09:00–24:00 ${a}`
        ])

        // The list names it with who is on call now.
        yield* Dashboard.visit(page, `${server.baseUrl}/on-call`)
        expect(yield* text(page, "table.oncall-schedules tbody")).toContain("Primary")
        expect(yield* text(page, "table.oncall-schedules tbody")).toContain("Europe/Berlin")
        yield* Dashboard.auditAndCapture(page, "oncall-list")
        expect(refused).toEqual([])
      })
  )

  it.scoped(
    "a policy made and extended through its form, bound in the monitor editor, and an incident's walk on its page",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const { alice, a } = yield* team
        const writer = yield* IncidentWriting.writer(server)
        const walker = yield* IncidentWriting.walker(server)
        const scheduleId = Http.expectOk(
          yield* alice.api("/api/v1/oncall/schedules", {
            json: {
              name: "Primary",
              time_zone: "Europe/Berlin",
              layers: [
                {
                  name: "Weeks",
                  starts_at: "2025-01-06T08:00:00Z",
                  rotation: { length: { unit: "weeks", count: 1 }, handoff: "09:00" },
                  participants: [a]
                }
              ]
            }
          }),
          Created,
          201
        ).id
        const { page, refused } = yield* tabFor(alice, server.baseUrl, yield* Dashboard.context)

        // Made with one step paging Alice at once.
        yield* Dashboard.visit(page, `${server.baseUrl}/on-call/policies/new`)
        yield* Dashboard.auditAndCapture(page, "oncall-policy-new")
        yield* setValue(page, "#policy-name", "Primary escalation")
        yield* setValue(page, "[name='steps[0].delay_minutes']", "0")
        yield* Effect.promise(() => page.click(`input[name='steps[0].targets'][value='user:${a}']`))
        const path = yield* submit(page, "form[data-oncall=policy] button[type=submit]")
        const policyId = /^\/on-call\/policies\/([0-9a-f-]{36})$/.exec(path)?.[1]
        assert.isDefined(policyId)

        // Extended by its spare step (ten minutes later, whoever the schedule has on call) and walked twice.
        yield* setValue(page, "[name='steps[1].delay_minutes']", "10")
        yield* setValue(page, "#policy-repeat", "1")
        yield* Effect.promise(() => page.click(`input[name='steps[1].targets'][value='schedule:${scheduleId}']`))
        yield* submit(page, "form[data-oncall=policy] button[type=submit]")
        const policy = Http.expectOk(
          yield* alice.api(`/api/v1/oncall/escalation-policies/${policyId}`),
          EscalationPolicy
        )
        expect(policy.steps).toEqual([
          { delay_minutes: 0, targets: [{ type: "user", id: a }] },
          { delay_minutes: 10, targets: [{ type: "schedule", id: scheduleId }] }
        ])
        expect(policy.repeat).toBe(1)
        expect(yield* text(page, "ol.oncall-steps")).toContain(alice.email)
        expect(yield* text(page, "ol.oncall-steps")).toContain("whoever Primary has on call")
        yield* Dashboard.auditAndCapture(page, "oncall-policy")

        // Bound to a monitor in its editor.
        const target = Http.expectOk(
          yield* alice.api("/api/v1/targets", {
            json: {
              name: "shop",
              alert_confirmations: 1,
              recovery_period_secs: 0,
              check: { type: "http", url: "https://shop.example.com" }
            }
          }),
          Target,
          201
        )
        expect(target.escalation_policy_id).toBeNull()
        yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${target.id}/edit`)
        expect(
          yield* Effect.promise(() =>
            page.$eval("#f-escalation-policy-id", (s) => s instanceof HTMLSelectElement && s.disabled)
          )
        ).toBe(false)
        yield* choose(page, "#f-escalation-policy-id", policyId)
        yield* submit(page, "form.monitor-form button[type=submit]")
        const bound = Http.expectOk(yield* alice.api(`/api/v1/targets/${target.id}`), Target)
        expect(bound.escalation_policy_id).toBe(policyId)

        // An incident opens (at a time of the test's own) and its first page goes out.
        const t0 = DateTime.unsafeMake("2025-03-11T10:00:00.000Z")
        yield* writer.observe(
          target.id,
          { _tag: "Result", region: "local", status: "down", error: "connection refused", checked_at: t0 },
          { now: t0 }
        )
        const incidentId = Http.expectOk(yield* alice.api(`/api/v1/incidents?target_id=${target.id}`), IncidentPage)
          .data[0]?.id
        assert.isDefined(incidentId)
        expect(yield* walker.walkDue({ now: t0 })).toBe(1)
        yield* Dashboard.visit(page, `${server.baseUrl}/incidents/${incidentId}`)
        expect(yield* text(page, "#escalation-status")).toBe("Escalating")
        expect(yield* text(page, "#escalation dd a")).toBe("Primary escalation")
        expect(yield* text(page, "#escalation-next")).toContain("Page 2 (step 2) due")
        expect(
          yield* Effect.promise(() => page.$eval("#escalation-next time", (t) => t.getAttribute("datetime")))
        ).toBe("2025-03-11T10:10:00.000Z")
        expect(yield* text(page, "table.escalation-pages tbody")).toContain(`${alice.email}: paged`)
        yield* Dashboard.auditAndCapture(page, "oncall-incident-escalating")

        // The second page: whoever the schedule has on call (Alice); then acknowledged on the page, the walk stops.
        expect(yield* walker.walkDue({ now: DateTime.add(t0, { minutes: 10 }) })).toBe(1)
        yield* Dashboard.visit(page, `${server.baseUrl}/incidents/${incidentId}`)
        expect(yield* text(page, "table.escalation-pages tbody tr:nth-child(2)")).toContain(
          `whoever Primary has on call (${alice.email}): paged`
        )
        expect(yield* text(page, "#escalation-next")).toContain("Page 3 (step 1, round 2) due")
        yield* submit(page, "button[data-action$='/acknowledge']")
        expect(yield* text(page, "#escalation-status")).toBe("Stopped: acknowledged")
        expect(yield* text(page, "#escalation-next")).toContain("nothing more will be paged")
        expect(yield* walker.walkDue({ now: DateTime.add(t0, { hours: 1 }) })).toBe(0)
        yield* Dashboard.auditAndCapture(page, "oncall-incident-acknowledged")
        expect(refused).toEqual([])
      })
  )

  it.scoped("a plan without on-call says so and links billing; a member reads without any form", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const context = yield* Dashboard.context
      const { alice, bob, a, b } = yield* team

      // Carol's plan has no on-call: the page says so, offers nothing, and the editor's choice is disabled.
      const carol = yield* Fixture.person({ label: "carol", plan: "free" })
      const carolTab = yield* tabFor(carol, server.baseUrl, context)
      yield* Dashboard.visit(carolTab.page, `${server.baseUrl}/on-call`)
      expect(yield* text(carolTab.page, "#oncall-plan-notice")).toContain("not part of the")
      expect(
        yield* Effect.promise(() => carolTab.page.$eval("#oncall-plan-notice a", (link) => link.getAttribute("href")))
      ).toBe("/settings/billing")
      expect(yield* count(carolTab.page, "a[href='/on-call/schedules/new'], a[href='/on-call/policies/new']")).toBe(0)
      expect(yield* count(carolTab.page, "form.oncall-default button")).toBe(0)
      yield* Dashboard.auditAndCapture(carolTab.page, "oncall-plan-gate")
      expect(yield* Dashboard.visit(carolTab.page, `${server.baseUrl}/on-call/schedules/new`)).toBe(403)
      expect(yield* count(carolTab.page, "main form")).toBe(0)
      const carolMonitor = Http.decode(
        yield* carol.api("/api/v1/targets", { json: { name: "blog", check: { type: "manual" } } }),
        Created
      ).id
      yield* Dashboard.visit(carolTab.page, `${server.baseUrl}/monitors/${carolMonitor}/edit`)
      expect(
        yield* Effect.promise(() =>
          carolTab.page.$eval("#f-escalation-policy-id", (s) => s instanceof HTMLSelectElement && s.disabled)
        )
      ).toBe(true)
      expect(yield* text(carolTab.page, "#f-escalation-policy-id-hint")).toContain("On-call")

      // Bob, a member of Alice's org, reads her schedule and policy without any form or button.
      const scheduleId = Http.expectOk(
        yield* alice.api("/api/v1/oncall/schedules", {
          json: {
            name: "Primary",
            time_zone: "Europe/Berlin",
            layers: [
              {
                name: "Days",
                starts_at: "2026-03-23T08:00:00Z",
                rotation: { length: { unit: "days", count: 1 }, handoff: "09:00" },
                participants: [a, b]
              }
            ]
          }
        }),
        Created,
        201
      ).id
      const policyId = Http.expectOk(
        yield* alice.api("/api/v1/oncall/escalation-policies", {
          json: {
            name: "Primary escalation",
            steps: [{ delay_minutes: 0, targets: [{ type: "schedule", id: scheduleId }] }]
          }
        }),
        Created,
        201
      ).id
      // His memberships, read at sign-in, stay in the process's cache for up to 10 s after the SQL made him a
      // member (a real invitation drops them at once), so the switch to her org is asked until it is granted.
      const switched = yield* eventually(
        bob.browser.request("/dashboard/active-org", { json: { slug: alice.org.slug } }),
        (reply) => reply.status !== 404
      )
      expect(switched.status, switched.text).toBe(204)
      const bobTab = yield* tabFor(bob, server.baseUrl, context)
      yield* Dashboard.visit(bobTab.page, `${server.baseUrl}/on-call`)
      expect(yield* text(bobTab.page, "#oncall-read-only")).toContain("owner")
      expect(yield* text(bobTab.page, "table.oncall-schedules tbody")).toContain("Primary")
      expect(yield* count(bobTab.page, "a[href='/on-call/schedules/new'], form.oncall-default button")).toBe(0)
      yield* Dashboard.auditAndCapture(bobTab.page, "oncall-list-member")
      yield* Dashboard.visit(bobTab.page, `${server.baseUrl}/on-call/schedules/${scheduleId}?from=2026-03-23`)
      expect((yield* calendar(bobTab.page))[1]?.pieces).toEqual([`00:00–09:00 ${a}`, `09:00–24:00 ${b}`])
      expect(yield* count(bobTab.page, "main form, main button[data-action]")).toBe(0)
      yield* Dashboard.auditAndCapture(bobTab.page, "oncall-schedule-member")
      yield* Dashboard.visit(bobTab.page, `${server.baseUrl}/on-call/policies/${policyId}`)
      expect(yield* text(bobTab.page, "ol.oncall-steps")).toContain("whoever Primary has on call")
      expect(yield* count(bobTab.page, "main form, main button[data-action]")).toBe(0)
      expect(yield* Dashboard.visit(bobTab.page, `${server.baseUrl}/on-call/policies/new`)).toBe(403)
      // The API refuses the member the same: the page offered nothing it would refuse.
      const write = yield* bob.browser.request(`/api/v1/oncall/schedules/${scheduleId}`, {
        method: "DELETE",
        headers: { "x-signalman-org": alice.org.slug }
      })
      expect(write.status, write.text).toBe(403)
    })
  )
})
