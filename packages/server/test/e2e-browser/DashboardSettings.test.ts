/// <reference lib="dom" />
/**
 * The settings pages in real headless Chromium, each walked as a person would: an alert channel made in the form
 * (its once-shown signing secret, a refusal on the field the API names), a test send that reaches a loopback
 * receiver, its delivery settings changed with the stored secrets kept; variables created, refused on the key,
 * rotated and deleted (refused while in use); an API token made (shown once, then only its prefix), used and revoked;
 * an invitation mailed, accepted, and a member's invitation refused; a second session revoked; usage, billing and
 * tags. Every page is audited with axe and captured in both themes; the tags and account pages are read with
 * JavaScript off too.
 */
import { createHmac } from "node:crypto"
import { assert, expect } from "@effect/vitest"
import { VariablePage } from "@signalman/core/api/Variables"
import { Channel } from "@signalman/core/Channel"
import { ApiToken, Invitation } from "@signalman/core/Identity"
import { Target } from "@signalman/core/Target"
import { Variable } from "@signalman/core/Variable"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as Identity from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** Sets a field's value as typing would leave it. */
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

/** Clicks and waits for the page the click leads to (a redirect or a reload) to load. */
const clickAndLoad = (page: Page, selector: string) =>
  Effect.promise(() =>
    Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]).then(() => undefined)
  )

const click = (page: Page, selector: string) => Effect.promise(() => page.click(selector))

const textOf = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (element) => element.textContent ?? ""))

const mainText = (page: Page) => textOf(page, "main")

/** The error the form script put on a field: marked invalid, focused, and the message it is described by. */
const errorOn = (page: Page, selector: string) =>
  Effect.gen(function* () {
    yield* Dashboard.until(
      page,
      `document.querySelector(${JSON.stringify(`${selector}[aria-invalid="true"]`)}) !== null`
    )
    return yield* Effect.promise(() =>
      page.$eval(selector, (element) => ({
        focused: document.activeElement === element,
        message: (element.getAttribute("aria-describedby") ?? "")
          .split(" ")
          .filter((id) => id.startsWith("err-"))
          .map((id) => document.getElementById(id)?.textContent ?? "")
          .join(" ")
      }))
    )
  })

/** The page's status line once it says something. */
const flash = (page: Page) =>
  Effect.gen(function* () {
    yield* Dashboard.until(page, `(document.getElementById("flash")?.textContent ?? "") !== ""`)
    return yield* textOf(page, "#flash")
  })

/** Was the webhook delivery signed with this secret (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`)? */
const signedWith = (secret: string, received: FakeReceiver.Received | undefined) => {
  const header = received?.headers["x-signalman-signature"]
  const parts = new Map(
    (typeof header === "string" ? header : "").split(",").map((part) => [part.split("=")[0], part.split("=")[1]])
  )
  const expected = createHmac("sha256", secret)
    .update(`${parts.get("t")}.${received?.body}`)
    .digest("hex")
  return parts.get("v1") === expected
}

/** A tab signed in as the person, every confirmation answered yes. */
const signedInTab = (person: Identity.Person) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const context = yield* Dashboard.context
    const page = yield* Dashboard.tab(context, server.baseUrl, person)
    page.on("dialog", (dialog) => {
      void dialog.accept()
    })
    return { page, at: (path: string) => `${server.baseUrl}${path}` }
  })

Fixture.describe(
  `dashboard settings (${TestDatabase.kind} database)`,
  // The test's webhook receiver listens on loopback, which channels may reach only with this on.
  { env: { CHECKER__ALLOW_PRIVATE_TARGETS: "true" } },
  (it) => {
    it.scoped(
      "alert channels: a webhook made in the form, its secret shown once, a test that arrives, settings changed with secrets kept, disabled and deleted",
      () =>
        Effect.gen(function* () {
          const receiver = yield* FakeReceiver.make()
          const alice = yield* Fixture.person()
          const { page, at } = yield* signedInTab(alice)

          expect(yield* Dashboard.visit(page, at("/channels"))).toBe(200)
          expect(yield* mainText(page)).toContain("No alert channels yet")
          yield* clickAndLoad(page, `main a[href="/channels/new"]`)
          yield* Dashboard.auditAndCapture(page, "channel-kinds")
          yield* clickAndLoad(page, `a[href="/channels/new?kind=webhook"]`)
          yield* Dashboard.auditAndCapture(page, "channel-new-webhook")

          // A URL the API refuses: the error is on the URL field, focused.
          yield* setValue(page, "#channel-name", "Ops <hook>")
          yield* setValue(page, "#config-url", "ftp://127.0.0.1/hook")
          yield* setValue(page, "#config-headers", JSON.stringify({ Authorization: "Bearer header-s3cret" }))
          yield* click(page, "form[data-api] button[type=submit]")
          const refused = yield* errorOn(page, "#config-url")
          expect(refused.focused).toBe(true)
          expect(refused.message).toContain("http or https")

          // Corrected: created, and the signing secret the service made is shown this once.
          yield* setValue(page, "#config-url", `${receiver.url}/hook`)
          yield* click(page, "form[data-api] button[type=submit]")
          yield* Dashboard.until(page, `document.getElementById("signing-secret")?.hidden === false`)
          const signingSecret = yield* textOf(page, "#signing-secret [data-reveal-value]")
          expect(signingSecret).toMatch(/^whsec_/)
          yield* Dashboard.auditAndCapture(page, "channel-created")
          yield* clickAndLoad(page, "#signing-secret a[data-reveal-continue]")
          const id = new URL(page.url()).pathname.split("/").pop() ?? ""
          const stored = Http.expectOk(yield* alice.api(`/api/v1/channels/${id}`), Channel)
          expect(stored.name).toBe("Ops <hook>")
          expect(stored.write_source).toBe("ui")

          // The channel's page shows no secret, and its test send arrives, signed, with the header.
          const html = yield* Effect.promise(() => page.content())
          expect(html).not.toContain("header-s3cret")
          expect(html).not.toContain(signingSecret)
          expect(yield* textOf(page, "h1")).toBe("Ops <hook>")
          yield* Dashboard.auditAndCapture(page, "channel-edit")
          yield* click(page, `button[data-action$="/test"]`)
          expect(yield* flash(page)).toMatch(/^Test delivered to Ops <hook> in \d+ ms \(HTTP 200\)\.$/)
          const first = yield* receiver.waitFor(1)
          expect(first[0]?.path).toBe("/hook")
          expect(first[0]?.headers["authorization"]).toBe("Bearer header-s3cret")
          expect(signedWith(signingSecret, first[0])).toBe(true)

          // Both forms of the page have their refusals on the field the API names.
          const settingsForm = `form[data-method="PATCH"]:has(#config-url) button[type=submit]`
          yield* setValue(page, "#channel-name", "   ")
          yield* click(page, `form[data-method="PATCH"]:has(#channel-name) button[type=submit]`)
          expect((yield* errorOn(page, "#channel-name")).focused).toBe(true)
          yield* setValue(page, "#config-url", "ftp://127.0.0.1/moved")
          yield* click(page, settingsForm)
          expect((yield* errorOn(page, "#config-url")).focused).toBe(true)

          // Only the URL changed: the stored header and signing secret are kept, so the next test carries them.
          yield* setValue(page, "#config-url", `${receiver.url}/moved`)
          yield* clickAndLoad(page, settingsForm)
          yield* click(page, `button[data-action$="/test"]`)
          expect(yield* flash(page)).toContain("Test delivered")
          const second = yield* receiver.waitFor(2)
          expect(second[1]?.path).toBe("/moved")
          expect(second[1]?.headers["authorization"]).toBe("Bearer header-s3cret")
          expect(signedWith(signingSecret, second[1])).toBe(true)

          // Listed with where it sends; disabled, then deleted.
          yield* Dashboard.visit(page, at("/channels"))
          expect(yield* mainText(page)).toContain(`${receiver.url}/moved`)
          yield* Dashboard.auditAndCapture(page, "channels")
          yield* clickAndLoad(page, `button[data-body='{"enabled":false}']`)
          expect(yield* textOf(page, "tbody .state")).toBe("Disabled")
          expect(Http.expectOk(yield* alice.api(`/api/v1/channels/${id}`), Channel).enabled).toBe(false)
          yield* clickAndLoad(page, `tbody button.danger`)
          expect(yield* mainText(page)).toContain("No alert channels yet")
          expect((yield* alice.api(`/api/v1/channels/${id}`)).status).toBe(404)
          expect(yield* Dashboard.visit(page, at(`/channels/${id}`))).toBe(404)
          expect(yield* Dashboard.visit(page, at("/channels/not-an-id"))).toBe(404)
        }),
      120_000
    )

    it.scoped(
      "variables: created, refused on the key (bad pattern, taken), a secret never shown, rotated, refused while in use, deleted",
      () =>
        Effect.gen(function* () {
          const alice = yield* Fixture.person()
          const { page, at } = yield* signedInTab(alice)
          expect(yield* Dashboard.visit(page, at("/variables"))).toBe(200)
          expect(yield* mainText(page)).toContain("No variables yet")

          const create = `form[data-api="/api/v1/variables"] button[type=submit]`
          yield* setValue(page, "#variable-key", "Health-Path")
          yield* setValue(page, "#variable-value", "healthz")
          yield* click(page, create)
          const badKey = yield* errorOn(page, "#variable-key")
          expect(badKey.focused).toBe(true)
          expect(badKey.message).toContain("lowercase letter")

          yield* setValue(page, "#variable-key", "health_path")
          yield* clickAndLoad(page, create)
          yield* setValue(page, "#variable-key", "api_token")
          yield* setValue(page, "#variable-value", "tok-very-s3cret")
          yield* click(page, `input[name="is_secret"]`)
          yield* clickAndLoad(page, create)

          // The same key again: refused on the key field.
          yield* setValue(page, "#variable-key", "health_path")
          yield* setValue(page, "#variable-value", "other")
          yield* click(page, create)
          expect((yield* errorOn(page, "#variable-key")).message).toContain("already has a variable health_path")

          yield* Dashboard.visit(page, at("/variables"))
          const html = yield* Effect.promise(() => page.content())
          expect(html).not.toContain("tok-very-s3cret")
          expect(yield* mainText(page)).toContain("Hidden (secret)")
          yield* Dashboard.auditAndCapture(page, "variables")

          // Rotation through the row's form.
          const list = Http.expectOk(yield* alice.api("/api/v1/variables"), VariablePage)
          const health = list.data.find((v) => v.key === "health_path")
          assert.isDefined(health)
          yield* click(page, `tr:has(#rotate-${health.id}) summary`)
          yield* setValue(page, `#rotate-${health.id}`, "x".repeat(5000))
          yield* click(page, `form:has(#rotate-${health.id}) button[type=submit]`)
          expect((yield* errorOn(page, `#rotate-${health.id}`)).focused).toBe(true)
          yield* setValue(page, `#rotate-${health.id}`, "livez")
          yield* clickAndLoad(page, `form:has(#rotate-${health.id}) button[type=submit]`)
          expect(Http.expectOk(yield* alice.api(`/api/v1/variables/${health.id}`), Variable).value).toBe("livez")

          // In use by a monitor: the delete is refused and the page says why.
          Http.expectOk(
            yield* alice.api("/api/v1/targets", {
              json: {
                name: "uses it",
                check: { type: "http", url: "https://example.com/{{health_path}}" },
                enabled: false
              }
            }),
            Target,
            201
          )
          yield* Dashboard.visit(page, at("/variables"))
          yield* click(page, `tr:has(#rotate-${health.id}) button.danger`)
          expect(yield* flash(page)).toContain("reference {{health_path}}")
          expect((yield* alice.api(`/api/v1/variables/${health.id}`)).status).toBe(200)

          const secret = list.data.find((v) => v.key === "api_token")
          assert.isDefined(secret)
          yield* clickAndLoad(page, `tr:has(#rotate-${secret.id}) button.danger`)
          expect((yield* alice.api(`/api/v1/variables/${secret.id}`)).status).toBe(404)
          expect(yield* mainText(page)).not.toContain("api_token")
        }),
      90_000
    )

    it.scoped(
      "API tokens: made with scopes and an org, shown once, then only its prefix; it works; revoked",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const { page, at } = yield* signedInTab(alice)
          expect(yield* Dashboard.visit(page, at("/settings/tokens"))).toBe(200)
          expect(yield* textOf(page, "tbody")).toContain("fixture")

          const submit = "#token-form button[type=submit]"
          yield* setValue(page, "#token-name", "CI <deploy>")
          yield* click(page, `input[value="targets:read"]`)
          yield* click(page, `input[value="channels:read"]`)
          yield* setValue(page, "#token-expiry", "400")
          yield* click(page, submit)
          expect((yield* errorOn(page, "#token-expiry")).focused).toBe(true)

          yield* setValue(page, "#token-expiry", "30")
          yield* click(page, submit)
          yield* Dashboard.until(page, `document.getElementById("new-token-secret")?.hidden === false`)
          const token = yield* textOf(page, "#new-token-secret [data-reveal-value]")
          expect(token).toMatch(/^sm_live_/)
          yield* Dashboard.auditAndCapture(page, "token-created")

          // Back to the list: the token is there by name and prefix, never in full.
          yield* clickAndLoad(page, "#new-token-secret a[data-reveal-continue]")
          const html = yield* Effect.promise(() => page.content())
          expect(html).not.toContain(token)
          const tokens = Http.expectOk(
            yield* alice.browser.request("/api/v1/me/api-tokens"),
            Schema.Struct({ data: Schema.Array(ApiToken) })
          )
          const made = tokens.data.find((t) => t.name === "CI <deploy>")
          assert.isDefined(made)
          expect(made.scopes).toEqual(["targets:read", "channels:read"])
          expect(made.org_id).toBe(alice.org.id)
          expect(made.expires_at).not.toBeNull()
          const revoke = `button[data-action="/api/v1/me/api-tokens/${made.id}"]`
          const row = yield* textOf(page, `tr:has(${revoke})`)
          expect(row).toContain("CI <deploy>")
          expect(row).toContain(made.prefix)
          expect(token.startsWith(made.prefix)).toBe(true)
          yield* Dashboard.auditAndCapture(page, "tokens")

          // It works against the API, within its scopes and org.
          expect((yield* Identity.bearer(server, token, "/api/v1/targets")).status).toBe(200)
          const beyond = yield* Identity.bearer(server, token, "/api/v1/channels", { json: { name: "x" } })
          expect(Http.envelope(beyond).code).toBe("INSUFFICIENT_SCOPE")

          // Revoked from its row: refused at once.
          yield* clickAndLoad(page, revoke)
          expect(yield* mainText(page)).not.toContain("CI <deploy>")
          expect((yield* Identity.bearer(server, token, "/api/v1/targets")).status).toBe(401)
        }),
      90_000
    )

    it.scoped(
      "organization: members and usage; an invitation mailed and accepted, one revoked; a member's invitation refused by the API",
      () =>
        Effect.gen(function* () {
          const smtp = yield* Fixture.smtp
          const alice = yield* Fixture.person()
          const bob = yield* Fixture.person({ label: "bob" })
          const { page, at } = yield* signedInTab(alice)
          expect(yield* Dashboard.visit(page, at("/settings/org"))).toBe(200)
          expect(yield* textOf(page, "h1")).toBe(alice.org.name)
          expect(yield* textOf(page, `section[aria-labelledby="members-title"] tbody`)).toContain(alice.email)
          expect(yield* textOf(page, "table.usage")).toContain("Monitors")

          // Inviting a member already in is refused on the email field.
          const invite = `form[data-api$="/invitations"] button[type=submit]`
          yield* setValue(page, "#invite-email", alice.email)
          yield* click(page, invite)
          expect((yield* errorOn(page, "#invite-email")).message).toContain("already a member")

          const mailsBefore = smtp.mails().filter((m) => m.to === bob.email).length
          yield* setValue(page, "#invite-email", bob.email)
          yield* clickAndLoad(page, invite)
          expect(yield* textOf(page, `section[aria-labelledby="invitations-title"] tbody`)).toContain(bob.email)
          const carol = Identity.uniqueEmail("carol")
          yield* setValue(page, "#invite-email", carol)
          yield* clickAndLoad(page, invite)
          yield* Dashboard.auditAndCapture(page, "org")
          const pending = Http.expectOk(
            yield* alice.browser.request(`/api/v1/orgs/${alice.org.id}/invitations`),
            Schema.Struct({ data: Schema.Array(Invitation) })
          )
          const toCarol = pending.data.find((i) => i.email === carol)
          assert.isDefined(toCarol)
          yield* clickAndLoad(page, `button[data-action$="/invitations/${toCarol.id}"]`)
          expect(yield* mainText(page)).not.toContain(carol)

          // The mail reaches bob; he accepts, and the org's page lists him as a member.
          const mails = yield* Effect.promise(() => smtp.waitFor(bob.email, mailsBefore + 1))
          const token = /\/invitations\/accept\?token=([A-Za-z0-9_-]+)/.exec(mails[mailsBefore]?.text ?? "")?.[1]
          assert.isDefined(token)
          expect((yield* bob.browser.request("/api/v1/invitations/accept", { json: { token } })).status).toBe(200)
          yield* Dashboard.visit(page, at("/settings/org"))
          expect(yield* textOf(page, `section[aria-labelledby="members-title"] tbody`)).toContain(bob.email)

          // Bob, a member, sees the org but not its invitations, and the API refuses his invitation.
          const bobs = yield* signedInTab(bob)
          yield* Dashboard.visit(bobs.page, bobs.at("/settings/org"))
          expect(yield* textOf(bobs.page, "h1")).toBe(alice.org.name)
          expect(yield* mainText(bobs.page)).toContain("Only owners see the invitations")
          yield* setValue(bobs.page, "#invite-email", Identity.uniqueEmail("dave"))
          yield* click(bobs.page, invite)
          yield* Dashboard.until(bobs.page, `document.querySelector("[data-form-status].error") !== null`)
          expect(yield* textOf(bobs.page, "[data-form-status]")).toBe("Only an owner of the org may do this")
        }),
      90_000
    )

    it.scoped(
      "account, billing and tags: a second session listed and revoked; the plan and its usage; tags with their monitors; read without JavaScript; the account deleted",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const smtp = yield* Fixture.smtp
          const alice = yield* Fixture.person()
          const elsewhere = yield* Identity.signIn(server, smtp, alice.email)
          for (const [name, tags] of [
            ["web", ["prod", "web & api"]],
            ["db", ["prod"]]
          ] as const) {
            Http.expectOk(
              yield* alice.api("/api/v1/targets", {
                json: { name, check: { type: "http", url: "https://example.com/" }, tags, enabled: false }
              }),
              Target,
              201
            )
          }
          const { page, at } = yield* signedInTab(alice)

          expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
          expect(yield* mainText(page)).toContain(alice.email)
          const sessions = `section[aria-labelledby="sessions-title"] tbody tr`
          expect(yield* Effect.promise(() => page.$$eval(sessions, (rows) => rows.length))).toBe(2)
          yield* Dashboard.auditAndCapture(page, "account")
          yield* clickAndLoad(page, `${sessions} button.danger`)
          expect(yield* Effect.promise(() => page.$$eval(sessions, (rows) => rows.length))).toBe(1)
          expect(yield* textOf(page, sessions)).toContain("This browser")
          expect((yield* elsewhere.browser.request("/api/v1/me")).status).toBe(401)

          expect(yield* Dashboard.visit(page, at("/settings/billing"))).toBe(200)
          expect(yield* textOf(page, ".plan-name")).toBe("Free")
          const billing = yield* mainText(page)
          expect(billing).toContain("Monitors")
          expect(billing).toContain("Your API tokens")
          yield* Dashboard.auditAndCapture(page, "billing")

          expect(yield* Dashboard.visit(page, at("/tags"))).toBe(200)
          const tags = yield* Effect.promise(() =>
            page.$$eval("tbody tr", (rows) =>
              rows.map((row) => ({
                tag: row.querySelector("a")?.textContent ?? "",
                href: row.querySelector("a")?.getAttribute("href") ?? "",
                count: row.querySelector("td.num")?.textContent ?? ""
              }))
            )
          )
          expect(tags).toEqual([
            { tag: "prod", href: "/?tag=prod", count: "2 monitors" },
            { tag: "web & api", href: "/?tag=web%20%26%20api", count: "1 monitor" }
          ])
          yield* Dashboard.auditAndCapture(page, "tags")

          // Without JavaScript the pages read the same, and controls that need it are not offered.
          yield* Effect.promise(() => page.setJavaScriptEnabled(false))
          yield* Dashboard.visit(page, at("/tags"))
          expect(yield* textOf(page, "tbody")).toContain("web & api")
          yield* Dashboard.visit(page, at("/settings/account"))
          const offered = yield* Effect.promise(() =>
            page.$$eval("button", (buttons) => buttons.filter((b) => b.offsetParent !== null).map((b) => b.textContent))
          )
          expect(offered).not.toContain("Delete my account")
          expect(yield* mainText(page)).toContain("This browser")
          yield* Effect.promise(() => page.setJavaScriptEnabled(true))

          // The account deleted from its page: off to the restore page, the grace period said there.
          yield* Dashboard.visit(page, at("/settings/account"))
          yield* clickAndLoad(page, `button[data-action="/api/v1/me"]`)
          expect(new URL(page.url()).pathname).toBe("/account/restore")
        }),
      90_000
    )
  }
)
