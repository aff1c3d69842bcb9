/**
 * The sign-in pages work as plain HTML forms, without JavaScript.
 */
import { assert, expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Browser from "../support/Browser.js"
import * as Fixture from "../support/Fixture.js"
import { uniqueEmail } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

const form = (fields: Record<string, string>) => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
  csrf: false
})

Fixture.describe(`login pages (${TestDatabase.kind} database)`, (it) => {
  it.effect("GET /login, POST /login, POST /login/code: signed in with forms alone", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* Fixture.Fixture
      const browser = Browser.make(server.baseUrl)

      const home = yield* browser.request("/")
      expect(home.status).toBe(303)
      expect(home.headers.get("location")).toBe("/login")

      const login = yield* browser.request("/login?redirect_after=/settings/account")
      expect(login.status).toBe(200)
      expect(login.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(login.text).toContain('<form method="post" action="/login">')
      expect(login.text).toContain('name="redirect_after" value="/settings/account"')
      expect(login.text).not.toContain("<script")

      const email = uniqueEmail("forms")
      const asked = yield* browser.request("/login", form({ email, redirect_after: "/settings/account" }))
      expect(asked.status).toBe(200)
      expect(asked.text).toContain('action="/login/code"')
      expect(browser.cookies.has("_sm_ml_code")).toBe(true)
      const [mail] = yield* Effect.promise(() => smtp.waitFor(email))
      assert.isDefined(mail)
      const { code } = SmtpCatcher.magicLinkOf(mail)

      const malformed = yield* browser.request("/login/code", form({ code: "abc" }))
      expect(malformed.status).toBe(200)
      expect(malformed.text).toContain('role="alert"')
      const signedIn = yield* browser.request("/login/code", form({ code }))
      expect(signedIn.status).toBe(303)
      expect(signedIn.headers.get("location")).toBe("/settings/account")
      const dashboard = yield* browser.request("/")
      expect(dashboard.status).toBe(200)
      expect(dashboard.text).toContain(email)
    })
  )

  it.effect("markup in what a page shows is escaped", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const page = yield* Browser.make(server.baseUrl).request('/login?invitation="><script>alert(1)</script>')
      expect(page.text).not.toContain("<script>alert(1)</script>")
      expect(page.text).toContain("&quot;&gt;&lt;script&gt;")
    })
  )
})
