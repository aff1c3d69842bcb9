/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The public status page in real headless Chromium: it renders its components, a 90-day bar per component with a
 * text alternative per day, and its incidents; with JavaScript disabled everything is still there; a screenshot
 * goes to test-artifacts/. Every wait is bounded.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import { IncidentDetail } from "@signalman/core/api/Incidents"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/infra/Ids.js"
import * as Chromium from "../support/Chromium.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ARTIFACTS = path.resolve(__dirname, "../../../../test-artifacts")

Fixture.describe(`public status page in Chromium (${TestDatabase.kind} database)`, (it) => {
  // Scoped: the browser context closes with the test.
  it.scoped("renders components, uptime bars and incidents, with and without JavaScript", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const alice = yield* Fixture.person()
      const ids: Array<string> = []
      for (const name of ["web", "api", "db"]) {
        const reply = yield* alice.browser.request("/api/v1/targets", {
          json: { name, check: { type: "http", url: `https://${name}.example.com` }, enabled: false }
        })
        ids.push(Http.expectOk(reply, Target, 201).id)
      }
      const pageId = uuidv7()
      yield* server.sql`
        INSERT INTO status_pages (id, org_id, account_id, slug, name, published, public_locale, branding, write_source)
        VALUES (${pageId}, ${alice.org.id}, ${alice.accountId}, 'browser', 'Browser Co', true, 'fr',
          ${JSON.stringify({ primary_color: "#ffdd00", theme: "light", hide_powered_by: false })}::jsonb, 'api')
      `
      for (const [i, id] of ids.entries()) {
        yield* server.sql`
          INSERT INTO status_page_components (page_id, target_id, public_name, public_group, sort_order)
          VALUES (${pageId}, ${id}, ${`Service ${i}`}, ${i === 2 ? "Data" : "Edge"}, ${i})
        `
      }
      const declared = yield* alice.browser.request("/api/v1/incidents", {
        json: { title: "x", impact: "partial_outage", components: [ids[1]] }
      })
      const incident = Http.expectOk(declared, IncidentDetail, 201)
      yield* server.sql`UPDATE incidents SET public_title = 'Slow API' WHERE id = ${incident.id}`

      const context = yield* Chromium.context
      for (const javascript of [true, false]) {
        const page = yield* Effect.promise(() => context.newPage())
        yield* Effect.promise(() => page.setJavaScriptEnabled(javascript))
        const response = yield* Effect.promise(() =>
          page.goto(`${server.baseUrl}/p/browser`, { waitUntil: "load", timeout: Chromium.WAIT_MS })
        )
        expect(response?.status()).toBe(200)
        const seen = yield* Effect.promise(() =>
          page.evaluate(() => ({
            lang: document.documentElement.lang,
            h1: document.querySelectorAll("h1").length,
            main: document.querySelectorAll("main").length,
            components: [...document.querySelectorAll("ul.components > li .name")].map((n) => n.textContent),
            barLists: document.querySelectorAll("ol.bars").length,
            bars: document.querySelectorAll("ol.bars > li").length,
            barLabel: document.querySelector("ol.bars > li")?.getAttribute("title") ?? "",
            barsHidden: document.querySelector("ol.bars")?.getAttribute("aria-hidden") ?? "",
            // The text under the bars: the history's name for screen readers, then the uptime and notable days.
            summaries: [...document.querySelectorAll("ol.bars ~ p.meta")].map((n) => n.textContent ?? ""),
            barWidth: document.querySelector<HTMLElement>("ol.bars > li")?.getBoundingClientRect().width ?? 0,
            incidents: [...document.querySelectorAll("article h3")].map((n) => n.textContent),
            banner: document.querySelector("#status h2")?.textContent ?? "",
            groups: [...document.querySelectorAll("section h3")].map((n) => n.textContent),
            // No header reads as "", which fails the colour assertion below rather than throwing in the page.
            headerColor: ((header) => (header === null ? "" : getComputedStyle(header).color))(
              document.querySelector("header")
            )
          }))
        )
        expect(seen.lang).toBe("fr")
        expect(seen.h1).toBe(1)
        expect(seen.main).toBe(1)
        expect(seen.components).toEqual(["Service 0", "Service 1", "Service 2"])
        expect(seen.barLists).toBe(3)
        expect(seen.bars).toBe(270)
        expect(seen.barLabel).toMatch(/\d/)
        expect(seen.barsHidden).toBe("true")
        expect(seen.summaries).toHaveLength(3)
        // The API's day of partial outage is told in words, not by colour alone.
        expect(seen.summaries[1]).toMatch(/jours: .*Panne partielle: \d/)
        expect(seen.barWidth).toBeGreaterThan(0)
        expect(seen.incidents).toContain("Slow API")
        expect(seen.banner).toBe("Panne partielle")
        expect(seen.groups).toEqual(expect.arrayContaining(["Edge", "Data"]))
        // Yellow brand colour: the header text falls back to black for contrast.
        expect(seen.headerColor).toBe("rgb(0, 0, 0)")
        if (javascript) {
          fs.mkdirSync(ARTIFACTS, { recursive: true })
          yield* Effect.promise(() =>
            page.screenshot({ path: path.join(ARTIFACTS, `status-page-${TestDatabase.kind}.png`), fullPage: true })
          )
        }
        yield* Effect.promise(() => page.close())
      }
    })
  )
})
