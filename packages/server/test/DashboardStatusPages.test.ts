import { describe, expect, it } from "@effect/vitest"
import * as PublicStatus from "@signalman/core/PublicStatus"
import * as StatusPage from "@signalman/core/StatusPage"
import { TargetId } from "@signalman/core/Target"
import * as Describe from "../src/dashboard/statuspages/Describe.js"
import * as Preview from "../src/dashboard/statuspages/Preview.js"
import { stateOf } from "../src/subscribers/Subscribers.js"

const web = TargetId.make("01900000-0000-7000-8000-0000000000e1")
const db = TargetId.make("01900000-0000-7000-8000-0000000000e2")
const api = TargetId.make("01900000-0000-7000-8000-0000000000e3")

const component = (
  targetId: TargetId,
  sortOrder: number,
  fields: Partial<Pick<StatusPage.Component, "public_name" | "public_group" | "public_description">> = {}
) =>
  new StatusPage.Component({
    target_id: targetId,
    public_name: fields.public_name ?? null,
    public_description: fields.public_description ?? null,
    public_group: fields.public_group ?? null,
    sort_order: sortOrder
  })

const access = (over: Partial<StatusPage.Access>): StatusPage.Access => ({
  protected: true,
  email_code: { enabled: false, allow: [] },
  session_days: null,
  recheck_days: null,
  password: { enabled: false },
  ...over
})

describe("dashboard status pages: what the screens say", () => {
  it("access in words: public unless protected; a private page names its ways in", () => {
    expect(Describe.accessLabel(null)).toBe("Public")
    expect(Describe.accessLabel(access({ protected: false, password: { enabled: true } }))).toBe("Public")
    expect(Describe.accessLabel(access({ password: { enabled: true } }))).toBe("Private: password")
    expect(
      Describe.accessLabel(
        access({ email_code: { enabled: true, allow: ["@example.com"] }, password: { enabled: true } })
      )
    ).toBe("Private: email code or password")
    expect(Describe.accessLabel(access({}))).toBe("Private")
  })

  it("components in their sort order, shown by public name else the monitor's; ids match in any case", () => {
    const views = Describe.componentViews(
      [component(db, 2, { public_group: "Core" }), component(web, 1, { public_name: "Website" }), component(api, 3)],
      [
        { id: web.toUpperCase(), name: "web-prod" },
        { id: db, name: "Database" }
      ]
    )
    expect(views.map((v) => [v.shownName, v.monitorName, v.group])).toEqual([
      ["Website", "web-prod", null],
      ["Database", "Database", "Core"],
      ["Unnamed monitor", null, null]
    ])
  })

  it("the monitors to add are those not on the page, by name whatever the case", () => {
    const monitors = [
      { id: web, name: "zeta" },
      { id: db, name: "Alpha" },
      { id: api, name: "beta" }
    ]
    expect(Describe.monitorsToAdd(monitors, [component(db, 1)]).map((m) => m.name)).toEqual(["beta", "zeta"])
    expect(Describe.monitorsToAdd(monitors, [])).toHaveLength(3)
  })

  it("groups in the order of their first component, the ungrouped counted where the first of them stands", () => {
    const views = Describe.componentViews(
      [component(web, 1, { public_group: "Edge" }), component(db, 2), component(api, 3, { public_group: "Edge" })],
      []
    )
    expect(Describe.groupOrder(views)).toEqual(["Edge", null])
  })

  it("paths: the public page's escapes its slug; an absolute URL of this service becomes its path", () => {
    expect(Describe.publicPath("acme")).toBe("/p/acme")
    expect(Describe.publicPath("a b")).toBe("/p/a%20b")
    expect(Describe.pathOf("https://signalman.example/api/public/v1/logos/x/abc?v=1")).toBe(
      "/api/public/v1/logos/x/abc?v=1"
    )
    expect(Describe.pathOf("/already/a/path")).toBe("/already/a/path")
  })

  it("instants in UTC, zero-padded", () => {
    expect(Describe.formatInstant(new Date(Date.UTC(2025, 2, 1, 4, 5)))).toBe("2025-03-01 04:05 UTC")
  })

  it("a subscription's state: ended wins over confirmed; never confirmed is awaiting", () => {
    const at = new Date(0)
    expect(stateOf({ confirmed_at: null, unsubscribed_at: null })).toBe("pending")
    expect(stateOf({ confirmed_at: at, unsubscribed_at: null })).toBe("confirmed")
    expect(stateOf({ confirmed_at: at, unsubscribed_at: at })).toBe("unsubscribed")
    expect(Describe.subscriberStateLabel("pending")).toBe("Awaiting confirmation")
    expect(Describe.admittedLabel("password")).toBe("Page password")
  })
})

describe("dashboard status pages: the branding preview's colours", () => {
  it("no colour is the public page's default; text on the brand is the contrasting one", () => {
    const none = Preview.palette(null, "light")
    expect(none.brand).toBe(PublicStatus.safeColor(null))
    expect(none.onBrand).toBe("#ffffff")
    expect(Preview.palette("#ffd33d", "light").onBrand).toBe("#000000")
  })

  it("links take the brand colour only where it reads at 4.5:1, else the look's own link colour", () => {
    // Pale yellow: unreadable on white, fine on the dark background; dark navy the other way round.
    expect(Preview.palette("#ffd33d", "light").link).toBe("#0550ae")
    expect(Preview.palette("#ffd33d", "dark").link).toBe("#ffd33d")
    expect(Preview.palette("#0b1f44", "light").link).toBe("#0b1f44")
    expect(Preview.palette("#0b1f44", "dark").link).toBe("#79c0ff")
    for (const variant of ["light", "dark"] as const) {
      const colours = Preview.palette("#0b1f44", variant)
      expect(PublicStatus.contrastRatio(colours.link, colours.background)).toBeGreaterThanOrEqual(4.5)
    }
  })

  it("a theme shows one look, or both when it follows the visitor", () => {
    expect(Preview.variantsOf("light")).toEqual(["light"])
    expect(Preview.variantsOf("dark")).toEqual(["dark"])
    expect(Preview.variantsOf("auto")).toEqual(["light", "dark"])
  })
})
