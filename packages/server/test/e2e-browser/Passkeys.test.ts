/// <reference lib="dom" />
/**
 * Passkeys in real headless Chromium, with the DevTools virtual authenticator (CTAP2, internal transport, resident
 * keys, user verification) over a CDP session: a passkey added on /settings/account, the person signed out, signed
 * in again from /login with it; an authenticator that cannot keep a discoverable credential refused; the limit of
 * ten said on the page and refused by the API; a passkey removed, after which it no longer signs in. The server's
 * public base URL is http://localhost:<port> and the pages are visited there: WebAuthn needs a secure context and a
 * relying-party id that is a name, and localhost is both.
 *
 * Chromium never reports credProps rk=false for our options: they require a resident key, so an authenticator that
 * cannot keep one is not used at all (the ceremony fails in the browser, which is what this test sees). The server's
 * PASSKEY_NOT_DISCOVERABLE answer to an explicit rk=false is tested over HTTP with a crafted response
 * (test/e2e/Passkeys.test.ts).
 */
import { randomBytes } from "node:crypto"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { CDPSession, Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import * as Fixture from "../support/Fixture.js"
import type * as Identity from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** The origin the pages are visited at: the public base URL's (localhost, the port the server bound). */
const originOf = (server: { readonly baseUrl: string }) => `http://localhost:${new URL(server.baseUrl).port}`

interface Authenticator {
  readonly client: CDPSession
  readonly id: string
}

/** A virtual authenticator in the tab, removed with the scope. */
const authenticator = (page: Page, options: { readonly hasResidentKey: boolean }) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Authenticator> => {
      const client = await page.createCDPSession()
      await client.send("WebAuthn.enable")
      const { authenticatorId } = await client.send("WebAuthn.addVirtualAuthenticator", {
        options: {
          protocol: "ctap2",
          transport: "internal",
          hasResidentKey: options.hasResidentKey,
          hasUserVerification: true,
          isUserVerified: true,
          automaticPresenceSimulation: true
        }
      })
      return { client, id: authenticatorId }
    }),
    ({ client, id }) =>
      Effect.promise(() =>
        client
          .send("WebAuthn.removeVirtualAuthenticator", { authenticatorId: id })
          .then(() => client.detach())
          .catch(() => undefined)
      )
  )

const credentialsIn = (device: Authenticator) =>
  Effect.promise(() => device.client.send("WebAuthn.getCredentials", { authenticatorId: device.id })).pipe(
    Effect.map((answer) => answer.credentials)
  )

const signedInTab = (person: Identity.Person) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const origin = originOf(server)
    const context = yield* Dashboard.context
    const page = yield* Dashboard.tab(context, origin, person)
    page.on("dialog", (dialog) => {
      void dialog.accept()
    })
    return { page, at: (path: string) => `${origin}${path}` }
  })

const textOf = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (element) => element.textContent ?? ""))

const setValue = (page: Page, selector: string, value: string) =>
  Effect.promise(() =>
    page.$eval(
      selector,
      (element, text) => {
        if (element instanceof HTMLInputElement) element.value = text
      },
      value
    )
  )

const clickAndLoad = (page: Page, selector: string) =>
  Effect.promise(() =>
    Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]).then(() => undefined)
  )

const passkeyCount = (userId: string) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const rows = yield* server.sql<{ n: number }>`
      SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${userId}
    `.pipe(Effect.orDie)
    return rows[0]?.n ?? 0
  })

Fixture.describe(
  `passkeys in the browser (${TestDatabase.kind} database)`,
  // Port 0 in the URL becomes the port the server bound: the public base URL is this server on localhost.
  { env: { AUTH__ENABLED_METHODS: "magic_link,passkey", AUTH__PUBLIC_BASE_URL: "http://localhost:0" } },
  (it) => {
    it.scoped(
      "a passkey added on the account page signs in from /login after signing out, and once removed no longer does",
      () =>
        Effect.gen(function* () {
          const alice = yield* Fixture.person({ label: "alice" })
          const { page, at } = yield* signedInTab(alice)
          const device = yield* authenticator(page, { hasResidentKey: true })

          expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
          expect(yield* textOf(page, "main")).toContain("No passkeys yet")
          yield* setValue(page, "#passkey-name", "Work laptop")
          yield* clickAndLoad(page, "form[data-passkey-add] button[type=submit]")
          expect(yield* textOf(page, "main")).toContain("Your passkeys (1)")
          expect(yield* textOf(page, "main")).toContain("Work laptop")
          const stored = yield* credentialsIn(device)
          expect(stored).toHaveLength(1)
          expect(stored[0]?.isResidentCredential).toBe(true)
          yield* Dashboard.auditAndCapture(page, "account-passkeys")

          // Signed out, then in again with the passkey alone: no address asked.
          yield* clickAndLoad(page, `button[data-action="/auth/logout"]`)
          expect(new URL(page.url()).pathname).toBe("/login")
          yield* Dashboard.until(page, `document.getElementById("passkey-sign-in")?.hidden === false`)
          yield* Dashboard.auditAndCapture(page, "login-passkey")
          yield* clickAndLoad(page, "#passkey-button")
          expect(new URL(page.url()).pathname).toBe("/")
          expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
          expect(yield* textOf(page, "main")).toContain(alice.email)
          expect(yield* textOf(page, "main")).not.toContain("Never")

          // Removed: gone from the page, and the authenticator's copy no longer signs in.
          yield* clickAndLoad(page, `button[data-action^="/api/v1/me/passkeys/"]`)
          expect(yield* textOf(page, "main")).toContain("No passkeys yet")
          expect(yield* passkeyCount(alice.userId)).toBe(0)
          yield* clickAndLoad(page, `button[data-action="/auth/logout"]`)
          yield* Dashboard.until(page, `document.getElementById("passkey-sign-in")?.hidden === false`)
          yield* Effect.promise(() => page.click("#passkey-button"))
          yield* Dashboard.until(
            page,
            `(document.getElementById("passkey-status")?.textContent ?? "").includes("could not be verified")`
          )
          expect(new URL(page.url()).pathname).toBe("/login")
        })
    )

    it.scoped("an authenticator that cannot keep a discoverable passkey is not used, and nothing is stored", () =>
      Effect.gen(function* () {
        const bob = yield* Fixture.person({ label: "bob" })
        const { page, at } = yield* signedInTab(bob)
        const device = yield* authenticator(page, { hasResidentKey: false })
        expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
        yield* setValue(page, "#passkey-name", "Old key")
        yield* Effect.promise(() => page.click("form[data-passkey-add] button[type=submit]"))
        yield* Dashboard.until(page, `(document.getElementById("flash")?.textContent ?? "") !== ""`)
        expect(yield* textOf(page, "#flash")).toContain("passkey")
        expect(yield* credentialsIn(device)).toHaveLength(0)
        expect(yield* passkeyCount(bob.userId)).toBe(0)
      })
    )

    it.scoped("with ten passkeys the page says so instead of the form, and the API refuses the eleventh", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const carol = yield* Fixture.person({ label: "carol" })
        const { page, at } = yield* signedInTab(carol)
        yield* authenticator(page, { hasResidentKey: true })
        expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
        yield* setValue(page, "#passkey-name", "Phone")
        yield* clickAndLoad(page, "form[data-passkey-add] button[type=submit]")
        // Nine more, as other devices would have added them.
        for (let i = 2; i <= 10; i++) {
          yield* server.sql`
            INSERT INTO passkeys (id, user_id, credential_id, public_key, name, rp_id, device_type, backed_up)
            VALUES (gen_random_uuid(), ${carol.userId}, ${randomBytes(16).toString("base64url")}, '\\x00',
                    ${`Key ${i}`}, 'localhost', 'singleDevice', false)
          `.pipe(Effect.orDie)
        }
        expect(yield* Dashboard.visit(page, at("/settings/account"))).toBe(200)
        expect(yield* textOf(page, "main")).toContain("You have 10 passkeys, the most an account can hold")
        expect(yield* Effect.promise(() => page.$("form[data-passkey-add]"))).toBeNull()
        const refused = yield* Effect.promise(() =>
          page.evaluate(async () => {
            const response = await fetch("/auth/passkey/register/start", {
              method: "POST",
              headers: { "content-type": "application/json", "x-requested-with": "signalman" },
              body: JSON.stringify({ name: "Eleventh" })
            })
            return { status: response.status, body: (await response.json()) as { error: { code: string } } }
          })
        )
        expect(refused.status).toBe(422)
        expect(refused.body.error.code).toBe("QUOTA_EXCEEDED")
      })
    )
  }
)
