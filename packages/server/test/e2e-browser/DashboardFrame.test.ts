/// <reference lib="dom" />
/**
 * The dashboard's frame in real headless Chromium: the sign-in redirect, the navigation, the assets served by
 * Signalman itself under a strict content security policy, forms that write through the JSON API with errors on the
 * field the API names, the org switcher, and an axe audit with screenshots in both themes.
 */
import { expect } from "@effect/vitest"
import { Org } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Browser from "../support/Browser.js"
import * as Dashboard from "../support/Dashboard.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

Fixture.describe(`dashboard frame (${TestDatabase.kind} database)`, (it) => {
  it.effect("without a session a page sends to sign in, carrying where to come back to", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const browser = Browser.make(server.baseUrl)
      const home = yield* browser.request("/")
      expect(home.status).toBe(303)
      expect(home.headers.get("location")).toBe("/login")
      const forged = yield* browser.request("/", { headers: { cookie: "sm_session=not-a-session" } })
      expect(forged.status).toBe(303)
    })
  )

  it.effect("assets: served with a hash in their name, cached for a year; any other name is 404", () =>
    Effect.gen(function* () {
      const alice = yield* Fixture.person()
      const home = yield* alice.browser.request("/")
      expect(home.status).toBe(200)
      expect(home.headers.get("content-security-policy")).toContain("script-src 'self'")
      expect(home.headers.get("cache-control")).toBe("no-store")
      // Compressed in the coding asked for, and not when none is.
      expect(home.headers.get("vary")).toContain("accept-encoding")
      const gzipped = yield* alice.browser.request("/", { headers: { "accept-encoding": "gzip" } })
      expect(gzipped.headers.get("content-encoding")).toBe("gzip")
      expect(gzipped.text).toBe(home.text)
      const plain = yield* alice.browser.request("/", { headers: { "accept-encoding": "identity" } })
      expect(plain.headers.get("content-encoding")).toBeNull()
      expect(plain.text).toBe(home.text)
      const script = /<script src="(\/assets\/dashboard\.[0-9a-f]{16}\.js)" defer><\/script>/.exec(home.text)?.[1]
      const style = /<link rel="stylesheet" href="(\/assets\/dashboard\.[0-9a-f]{16}\.css)">/.exec(home.text)?.[1]
      expect(script).toBeDefined()
      expect(style).toBeDefined()
      const js = yield* alice.browser.request(script ?? "")
      expect(js.status).toBe(200)
      expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
      expect(js.text).toContain("signalman")
      const css = yield* alice.browser.request(style ?? "")
      expect(css.status).toBe(200)
      expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
      expect((yield* alice.browser.request("/assets/dashboard.0000000000000000.js")).status).toBe(404)
    })
  )

  it.effect("the org switch: CSRF header required, only the viewer's own orgs, then pages act on the new org", () =>
    Effect.gen(function* () {
      // A plan with room for a second org.
      const alice = yield* Fixture.person({ plan: "pro" })
      const slug = `second-${Date.now().toString(36)}`
      Http.expectOk(yield* alice.browser.request("/api/v1/orgs", { json: { name: "Second & Co", slug } }), Org, 201)
      const withoutCsrf = yield* alice.browser.request("/dashboard/active-org", { json: { slug }, csrf: false })
      expect(withoutCsrf.status).toBe(403)
      expect(withoutCsrf.json).toMatchObject({ error: { code: "CSRF_REQUIRED" } })
      const stranger = yield* alice.browser.request("/dashboard/active-org", { json: { slug: "someone-elses" } })
      expect(stranger.status).toBe(404)
      expect(stranger.json).toMatchObject({ error: { code: "NOT_FOUND", field: "slug" } })
      const anonymous = yield* Browser.make((yield* Fixture.server).baseUrl).request("/dashboard/active-org", {
        json: { slug }
      })
      expect(anonymous.status).toBe(401)
      expect((yield* alice.browser.request("/")).text).toContain(
        `<meta name="signalman-org" content="${alice.org.slug}">`
      )
      expect((yield* alice.browser.request("/dashboard/active-org", { json: { slug } })).status).toBe(204)
      const after = yield* alice.browser.request("/")
      expect(after.text).toContain(`<meta name="signalman-org" content="${slug}">`)
      expect(after.text).toContain("Second &amp; Co")
    })
  )

  it.scoped(
    "in Chromium: the frame, its script running under the policy, a form writing through the API with its error on the field, axe and screenshots",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        Http.expectOk(
          yield* alice.api("/api/v1/targets", {
            json: { name: "Existing <b>one</b>", check: { type: "http", url: "https://example.com" }, enabled: false }
          }),
          Target,
          201
        )
        const context = yield* Dashboard.context
        const page = yield* Dashboard.tab(context, server.baseUrl, alice)
        const refused: Array<string> = []
        page.on("console", (message) => {
          if (message.type() === "error") refused.push(message.text())
        })
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/`)).toBe(200)
        const frame = yield* Effect.promise(() =>
          page.evaluate(() => ({
            scripted: document.documentElement.classList.contains("js"),
            current: document.querySelector('nav a[aria-current="page"]')?.textContent ?? null,
            navigation: [...document.querySelectorAll("nav.sidenav a")].map((a) => a.textContent),
            rows: [...document.querySelectorAll('tbody tr th[scope="row"] a')].map((a) => a.textContent),
            bold: document.querySelectorAll("tbody b").length
          }))
        )
        expect(frame.scripted).toBe(true)
        expect(frame.current).toBe("Monitors")
        expect(frame.navigation).toEqual(
          expect.arrayContaining(["Monitors", "Incidents", "Status pages", "API tokens"])
        )
        expect(frame.rows).toEqual(["Existing <b>one</b>"])
        expect(frame.bold).toBe(0)
        yield* Dashboard.auditAndCapture(page, "frame")

        // A form of the dashboard's kind, posted by its script to the API: the error lands on the field it names...
        yield* Effect.promise(() =>
          page.evaluate(() => {
            document.querySelector("main")?.insertAdjacentHTML(
              "beforeend",
              `<form id="probe" data-api="/api/v1/targets" data-method="POST" data-redirect="/?created={id}">
                <div class="field"><label for="n">Name</label><input id="n" name="name" value="From the form"></div>
                <input type="hidden" name="check.type" value="http">
                <div class="field"><label for="u">URL</label><input id="u" name="check.url" value="ftp://example.com"></div>
                <div class="field"><label for="i">Interval</label><input id="i" name="interval" data-type="number" value="300"></div>
                <div class="field"><label><input type="checkbox" name="enabled" data-type="boolean"> Enabled</label></div>
                <p data-form-status role="status"></p>
                <button type="submit">Create</button>
              </form>`
            )
          })
        )
        yield* Effect.promise(() => page.click("#probe button[type=submit]"))
        yield* Dashboard.until(page, `document.querySelector("#probe .field-error") !== null`)
        const error = yield* Effect.promise(() =>
          page.evaluate(() => {
            const url = document.querySelector<HTMLInputElement>("#u")
            const note = document.querySelector("#probe .field-error")
            return {
              invalid: url?.getAttribute("aria-invalid") ?? null,
              describedBy: url?.getAttribute("aria-describedby") ?? "",
              noteId: note?.id ?? "",
              text: note?.textContent ?? "",
              focused: document.activeElement?.id ?? null,
              status: document.querySelector("#probe [data-form-status]")?.textContent ?? ""
            }
          })
        )
        expect(error.invalid).toBe("true")
        expect(error.describedBy).toContain(error.noteId)
        expect(error.text).not.toBe("")
        expect(error.focused).toBe("u")
        expect(error.status).toContain("Check the highlighted field")
        // ...and once corrected, the monitor is created (with the form's types) and the page goes where it says.
        yield* Effect.promise(async () => {
          await page.$eval("#u", (input) => {
            if (input instanceof HTMLInputElement) input.value = "https://example.org/health"
          })
          await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("#probe button[type=submit]")])
        })
        const created = new URL(page.url()).searchParams.get("created")
        expect(created).not.toBeNull()
        const stored = Http.expectOk(yield* alice.api(`/api/v1/targets/${created}`), Target)
        expect(stored.name).toBe("From the form")
        expect(stored.interval).toBe(300)
        expect(stored.enabled).toBe(false)
        expect(stored.write_source).toBe("ui")
        // Nothing the page did was refused by its content security policy.
        expect(refused.filter((text) => /Content Security Policy/i.test(text))).toEqual([])
      }),
    90_000
  )
})
