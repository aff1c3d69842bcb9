/// <reference lib="dom" />
/**
 * The account page's own sections and the restore page in real headless Chromium: recent sign-in activity in words
 * (this browser told from another), the data export downloaded with the page's session, and an account deleted from
 * its page, shown what happens on `/account/restore` and restored from there. Each page audited with axe and
 * captured in both themes.
 */
import { expect } from "@effect/vitest"
import { AccountExport } from "@signalman/core/api/AccountExport"
import { Me } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Page } from "puppeteer-core"
import { uuidv7 } from "../../src/infra/Ids.js"
import * as Dashboard from "../support/Dashboard.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type * as Identity from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** Clicks and waits for the page the click leads to (a redirect or a reload) to load. */
const clickAndLoad = (page: Page, selector: string) =>
  Effect.promise(() =>
    Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]).then(() => undefined)
  )

const textOf = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (element) => element.textContent ?? ""))

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

/** Signs the person in again, in the tab itself, by the mailed link: an attempt made by this browser. */
const signInInTab = (page: Page, at: (path: string) => string, email: string) =>
  Effect.gen(function* () {
    const smtp = yield* Fixture.smtp
    const before = smtp.mails().filter((m) => m.to === email).length
    yield* Dashboard.visit(page, at("/login"))
    yield* Effect.promise(() => page.type("#email", email))
    yield* clickAndLoad(page, "form button[type=submit]")
    const mails = yield* Effect.promise(() => smtp.waitFor(email, before + 1))
    const mail = mails[before]
    if (mail === undefined) return yield* Effect.dieMessage("no sign-in mail")
    const link = new URL(SmtpCatcher.magicLinkOf(mail).link)
    yield* Dashboard.visit(page, at(`${link.pathname}${link.search}`))
  })

/** The activity table's rows as read: method, outcome, from. */
const activityRows = (page: Page) =>
  Effect.promise(() =>
    page.$$eval('section[aria-labelledby="activity-title"] tbody tr', (rows) =>
      rows.map((row) => {
        const cells = [...row.querySelectorAll("th, td")].map((cell) => cell.textContent?.trim() ?? "")
        return [cells[0], cells[1], cells[3]]
      })
    )
  )

const Downloaded = Schema.Struct({ status: Schema.Number, disposition: Schema.String, body: Schema.Unknown })

Fixture.describe(`dashboard account (${TestDatabase.kind} database)`, {}, (it) => {
  it.scoped(
    "recent activity says each attempt in words and which came from this browser; the data downloads as a file",
    () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture.Fixture
        const alice = yield* Fixture.person({ label: "account-page" })
        const { page, at } = yield* signedInTab(alice)
        yield* signInInTab(page, at, alice.email)
        // Two failures the providers would log (their own tests make them for real), one without a device.
        yield* server.sql`
          INSERT INTO auth_attempts (id, method, success, failure_reason, user_id, user_agent_hash, created_at) VALUES
            (${uuidv7()}, 'github_oauth', false, 'oauth_denied', ${alice.userId}, 'elsewhere', now() - interval '2 days'),
            (${uuidv7()}, 'magic_link', false, 'token_expired', ${alice.userId}, NULL, now() - interval '3 days')
        `

        expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
        expect(yield* activityRows(page)).toEqual([
          ["Email link or code", "Signed in", "This browser"],
          ["Email link or code", "Signed in", "Another browser or device"],
          ["GitHub", "Failed: permission was not given at the provider", "Another browser or device"],
          ["Email link or code", "Failed: the link had expired", "Not recorded"]
        ])
        // The deletion section is still there, below the data.
        expect(yield* textOf(page, "main")).toContain("Delete your account")
        yield* Dashboard.auditAndCapture(page, "settings-account")

        // The download link, followed with the page's own session: the export, offered as a file.
        const href = yield* Effect.promise(() =>
          page.$eval('a[href="/api/v1/me/export"]', (a) => (a instanceof HTMLAnchorElement ? a.href : ""))
        )
        const downloaded = Schema.decodeUnknownSync(Downloaded)(
          yield* Effect.promise(() =>
            page.evaluate(async (url) => {
              const response = await fetch(url)
              return {
                status: response.status,
                disposition: response.headers.get("content-disposition") ?? "",
                body: await response.json()
              }
            }, href)
          )
        )
        expect(downloaded.status).toBe(200)
        expect(downloaded.disposition).toMatch(/^attachment; filename="signalman-export-\d{4}-\d{2}-\d{2}\.json"$/)
        const exported = Schema.decodeUnknownSync(AccountExport)(downloaded.body)
        expect(exported.user.email).toBe(alice.email)
        expect(exported.sign_in_attempts).toHaveLength(4)
      }),
    90_000
  )

  it.scoped(
    "an account deleted from its page sees on /account/restore what happens and when, and restores it there",
    () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture.Fixture
        const bob = yield* Fixture.person({ label: "account-restore" })
        const { page, at } = yield* signedInTab(bob)

        // Not signed in: sign in first, and come back here.
        const anonymous = yield* Http.request(at("/account/restore"))
        expect(anonymous.status).toBe(303)
        expect(anonymous.headers.get("location")).toBe("/login?redirect_after=%2Faccount%2Frestore")
        // An account in use has nothing to restore.
        expect(yield* Dashboard.visit(page, at("/account/restore"))).toBe(200)
        expect(yield* textOf(page, "h1")).toBe("Your account is not scheduled for deletion")

        yield* Dashboard.visit(page, at("/settings/account"))
        yield* clickAndLoad(page, `button[data-action="/api/v1/me"]`)
        expect(new URL(page.url()).pathname).toBe("/account/restore")
        expect(yield* textOf(page, "h1")).toBe("Your account is scheduled for deletion")
        const [row] = yield* server.sql<{ purge_after: Date }>`SELECT purge_after FROM users WHERE id = ${bob.userId}`
        const main = yield* textOf(page, "main")
        expect(main).toContain(bob.email)
        expect(main).toContain(row?.purge_after.toISOString().slice(0, 10) ?? "no date")
        expect(main).toContain("in 29 days")
        // Every dashboard page leads back here while the deletion is pending.
        yield* Dashboard.visit(page, at("/settings/account"))
        expect(new URL(page.url()).pathname).toBe("/account/restore")
        yield* Dashboard.auditAndCapture(page, "account-restore")

        yield* clickAndLoad(page, `button[data-action="/api/v1/me/restore"]`)
        expect(new URL(page.url()).pathname).toBe("/")
        const me = Http.expectOk(yield* bob.browser.request("/api/v1/me"), Me)
        expect(me.deletion_scheduled_for).toBeNull()
        expect(me.orgs.map((o) => o.id)).toEqual([bob.org.id])
      }),
    90_000
  )
})
