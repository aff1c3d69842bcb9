import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as PageSubscription from "../src/PageSubscription.js"

const page = { pageName: "Acme status", pageUrl: "https://status.acme.test", components: ["Checkout", "API"] }

describe("PageSubscription.render", () => {
  it("an incident update names its phase and public title and carries the message", () => {
    const mail = PageSubscription.render(
      {
        _tag: "Incident",
        kind: "update",
        publicTitle: "Checkout is slow",
        publicDescription: null,
        impact: "degraded",
        phase: "identified",
        message: "A slow database."
      },
      page
    )
    expect(mail.subject).toBe("[Acme status] Identified: Checkout is slow")
    expect(mail.body).toContain("A slow database.")
    expect(mail.body).toContain("Affected: Checkout, API")
    expect(mail.body).toContain("Status page: https://status.acme.test")
  })

  it("an incident without a public title is named by its impact, never anything else", () => {
    const opened = PageSubscription.render(
      { _tag: "Incident", kind: "opened", publicTitle: null, publicDescription: null, impact: "major_outage" },
      page
    )
    expect(opened.subject).toBe("[Acme status] New incident: Outage")
    const resolved = PageSubscription.render(
      { _tag: "Incident", kind: "resolved", publicTitle: null, publicDescription: null, impact: "partial_outage" },
      page
    )
    expect(resolved.subject).toBe("[Acme status] Resolved: Partial outage")
  })

  it("maintenance: scheduled carries the description and the times; completed only the title", () => {
    const base = {
      _tag: "Maintenance",
      title: "Upgrade",
      description: "New hardware",
      startsAt: "2026-05-01 22:00",
      endsAt: "2026-05-01 23:00"
    } as const
    const scheduled = PageSubscription.render({ ...base, kind: "scheduled" }, page)
    expect(scheduled.subject).toBe("[Acme status] Scheduled maintenance: Upgrade")
    expect(scheduled.body).toContain("New hardware")
    expect(scheduled.body).toContain("When: 2026-05-01 22:00 to 2026-05-01 23:00 (UTC)")
    const done = PageSubscription.render({ ...base, kind: "completed" }, page)
    expect(done.subject).toBe("[Acme status] Maintenance completed: Upgrade")
    expect(done.body).not.toContain("When:")
    const update = PageSubscription.render({ ...base, kind: "update", message: "Half done" }, page)
    expect(update.body).toContain("Half done")
  })

  it("the page notice round-trips through its schema (the outbox payload)", () => {
    const notice: PageSubscription.PageNotice = {
      event: { _tag: "Incident", kind: "opened", publicTitle: "x", publicDescription: "y", impact: "degraded" },
      page: { name: "Acme", slug: "acme", custom_domain: null },
      components: ["Checkout"]
    }
    const encoded = JSON.parse(JSON.stringify(Schema.encodeSync(PageSubscription.PageNotice)(notice)))
    expect(Schema.decodeUnknownSync(PageSubscription.PageNotice)(encoded)).toEqual(notice)
  })
})

describe("PageSubscription addresses and links", () => {
  it("addresses are trimmed and lower-cased; plausibility is loose", () => {
    expect(PageSubscription.normalizeEmail("  Ann@Example.COM ")).toBe("ann@example.com")
    expect(PageSubscription.isPlausibleEmail("ann@example.com")).toBe(true)
    expect(PageSubscription.isPlausibleEmail("ann@example")).toBe(false)
    expect(PageSubscription.isPlausibleEmail("ann example@x.com")).toBe(false)
    expect(PageSubscription.isPlausibleEmail(`${"a".repeat(250)}@x.com`)).toBe(false)
  })

  it("a page's address is its custom domain, else <origin>/p/<slug>", () => {
    expect(PageSubscription.pageUrl("https://sm.test", { name: "A", slug: "acme", custom_domain: null })).toBe(
      "https://sm.test/p/acme"
    )
    expect(
      PageSubscription.pageUrl("https://sm.test", { name: "A", slug: "acme", custom_domain: "status.acme.com" })
    ).toBe("https://status.acme.com")
  })

  it("the footer says why the mail came and links the unsubscribe page", () => {
    expect(PageSubscription.footer("Acme", "https://sm.test/subscriptions/unsubscribe?token=t")).toContain(
      "Unsubscribe: https://sm.test/subscriptions/unsubscribe?token=t"
    )
  })
})
