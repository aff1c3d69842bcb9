/// <reference lib="dom" />
/**
 * The OAuth parts of the pages in real headless Chromium: `/login` offering each provider as a plain link (read
 * with JavaScript off too), and the account page's sign-in providers section (a provider linked, listed with when
 * added and last used, removed with its button; the link button going to the provider's consent page). Both audited
 * with axe and captured in light and dark into test-artifacts/dashboard/.
 */
import { expect, inject, layer } from "@effect/vitest"
import { LinkStarted } from "@signalman/core/OAuth"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Dashboard from "../support/Dashboard.js"
import * as FakeOAuth from "../support/FakeOAuth.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

class Fakes extends Context.Tag("test/FakeOAuth")<Fakes, FakeOAuth.FakeOAuth>() {}

const server = Layer.scopedContext(
  Effect.gen(function* () {
    const fakes = yield* FakeOAuth.make(inject("testCa"))
    const running = yield* Fixture.start({
      env: {
        ...fakes.env(["github", "google", "microsoft", "gitlab"]),
        AUTH__ENABLED_METHODS: "magic_link,github,google,microsoft,gitlab"
      }
    })
    return Context.make(Fixture.Fixture, running).pipe(Context.add(Fakes, fakes))
  })
)

layer(server, { excludeTestServices: true })(`OAuth pages in a browser (${TestDatabase.kind} database)`, (it) => {
  it.scoped("/login: one link per provider, working without JavaScript; audited in both themes", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const context = yield* Dashboard.context
      const page = yield* Dashboard.tab(context, server.baseUrl)
      yield* Effect.promise(() => page.setJavaScriptEnabled(false))
      expect(yield* Dashboard.visit(page, `${server.baseUrl}/login?invitation=abc`)).toBe(200)
      const links = yield* Effect.promise(() =>
        page.$$eval("a.provider", (anchors) => anchors.map((a) => [a.textContent, a.getAttribute("href")]))
      )
      expect(links).toEqual([
        ["Sign in with GitHub", "/auth/github/login?invitation=abc"],
        ["Sign in with Google", "/auth/google/login?invitation=abc"],
        ["Sign in with Microsoft", "/auth/microsoft/login?invitation=abc"],
        ["Sign in with GitLab", "/auth/gitlab/login?invitation=abc"]
      ])
      // axe runs in the page, so the audit is with JavaScript back on (the page itself has no script).
      yield* Effect.promise(() => page.setJavaScriptEnabled(true))
      yield* Dashboard.visit(page, `${server.baseUrl}/login?invitation=abc`)
      yield* Dashboard.auditAndCapture(page, "login")
      // With a notice from a refused callback.
      yield* Dashboard.visit(page, `${server.baseUrl}/login?oauth=no_verified_email`)
      expect(yield* Effect.promise(() => page.$eval("[role=alert]", (e) => e.textContent ?? ""))).toContain(
        "could not vouch"
      )
      yield* Dashboard.auditAndCapture(page, "login-no-verified-email")
    })
  )

  it.scoped(
    "/settings/account: linked providers with added and last used, removed by button; linking goes to consent",
    () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture.Fixture
        const fakes = yield* Fakes
        const alice = yield* Fixture.person({ label: "providers" })
        fakes.as("github", {
          id: 4242,
          login: "alice-octo",
          emails: [{ email: alice.email, primary: true, verified: true }]
        })
        const started = Http.expectOk(
          yield* alice.browser.request("/auth/github/link", { method: "POST" }),
          LinkStarted
        )
        const consent = yield* Effect.promise(() => fetch(started.redirect, { redirect: "manual" }))
        const back = new URL(consent.headers.get("location") ?? "")
        expect((yield* alice.browser.request(`${back.pathname}${back.search}`)).status).toBe(303)

        const context = yield* Dashboard.context
        const page = yield* Dashboard.tab(context, server.baseUrl, alice)
        page.on("dialog", (dialog) => {
          void dialog.accept()
        })
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/settings/account?linked=github`)).toBe(200)
        const section = yield* Effect.promise(() =>
          page.$eval("section[aria-labelledby=providers-title]", (e) => e.textContent ?? "")
        )
        expect(section).toContain("GitHub is linked")
        expect(section).toContain("alice-octo")
        expect(section).toContain("Never")
        expect(section).toContain("Link Google")
        yield* Dashboard.auditAndCapture(page, "account-providers")

        // Linking: the button posts, then the browser goes to the provider's consent page.
        const toConsent = page.waitForRequest((request) => request.url().startsWith(`${fakes.origin}/google/`))
        yield* Effect.promise(() => page.click("button[data-action='/auth/google/link']"))
        const request = yield* Effect.promise(() => toConsent)
        expect(new URL(request.url()).searchParams.get("code_challenge_method")).toBe("S256")

        // Removing: confirmed, and the row is gone after the reload.
        yield* Dashboard.visit(page, `${server.baseUrl}/settings/account`)
        yield* Effect.promise(() =>
          Promise.all([
            page.waitForNavigation({ waitUntil: "load" }),
            page.click("button[data-action^='/api/v1/me/sign-in-methods/github']")
          ])
        )
        const after = yield* Effect.promise(() =>
          page.$eval("section[aria-labelledby=providers-title]", (e) => e.textContent ?? "")
        )
        expect(after).toContain("No provider is linked")
        expect(after).toContain("Link GitHub")
      })
  )
})
