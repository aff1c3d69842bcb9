/// <reference lib="dom" />
/**
 * The acceptance, walked in real headless Chromium by a person who never used Signalman: from the address
 * the server prints, they sign in with the code mailed to them, make a webhook alert channel and send it a test,
 * add an HTTP monitor with that channel ticked and see its first result, get an alert when the service fails
 * (the incident on the pages, the notification at the receiver), acknowledge it, and publish a status page that
 * shows the monitor and its incident. Every step goes through what the pages show (links, labels, buttons), never
 * the API; the sign-in pages are audited with axe, and the key moments are captured as `journey-*.png`.
 */
import * as NodeHttp from "node:http"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ElementHandle, Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import { eventually } from "../support/Eventually.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Identity from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** A service on loopback answering `code` (200 until the test breaks it). */
const service: Effect.Effect<{ readonly base: string; code: number }, never, Scope.Scope> = Effect.gen(function* () {
  const state = { base: "", code: 200 }
  const server = yield* Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<NodeHttp.Server>((resolve) => {
          const s = NodeHttp.createServer((_request, response) => {
            response.writeHead(state.code, { "content-type": "text/plain" })
            response.end(state.code === 200 ? "ok" : "broken")
          })
          s.listen(0, "127.0.0.1", () => resolve(s))
        })
    ),
    (s) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            s.closeAllConnections()
            s.close(() => resolve())
          })
      )
  )
  const address = server.address()
  if (address === null || typeof address === "string") return yield* Effect.dieMessage("no TCP address")
  state.base = `http://127.0.0.1:${address.port}`
  return state
})

const run = <A>(f: () => Promise<A>) => Effect.promise(f)

/** The element a selector finds; none fails the test with the selector. */
const element = (page: Page, selector: string) =>
  Effect.promise(async () => {
    const found = await page.$(selector)
    if (found === null) throw new Error(`nothing matches ${selector}`)
    return found
  })

/**
 * The control a label names, as a person finds it: the label whose text is `text` (or, for a checkbox's label
 * that says more, starts with it), inside `scope`.
 */
const labelled = (page: Page, text: string, scope = "main") =>
  Effect.gen(function* () {
    const selector = yield* run(() =>
      page.evaluate(
        (scopeSelector, wanted) => {
          const labels = [...document.querySelectorAll(`${scopeSelector} label`)].filter(
            (l): l is HTMLLabelElement => l instanceof HTMLLabelElement
          )
          const said = (l: HTMLLabelElement) => (l.textContent ?? "").replace(/\s+/g, " ").trim()
          const control = (labels.find((l) => said(l) === wanted) ?? labels.find((l) => said(l).startsWith(wanted)))
            ?.control
          if (control === null || control === undefined) return undefined
          if (control.id !== "") return `#${CSS.escape(control.id)}`
          const name = control.getAttribute("name")
          return name === null ? undefined : `${scopeSelector} [name="${CSS.escape(name)}"]`
        },
        scope,
        text
      )
    )
    if (selector === undefined) return yield* Effect.dieMessage(`no control labelled "${text}" in ${scope}`)
    return yield* element(page, selector)
  })

/** Types into the field a label names. */
const fill = (page: Page, label: string, value: string, scope?: string) =>
  Effect.gen(function* () {
    const field = yield* labelled(page, label, scope)
    yield* run(() => field.type(value))
  })

/** Picks, in the select a label names, the option that says `text`. */
const choose = (page: Page, label: string, text: string, scope?: string) =>
  Effect.gen(function* () {
    const field = yield* labelled(page, label, scope)
    const value = yield* run(() =>
      field.evaluate((select, wanted) => {
        if (!(select instanceof HTMLSelectElement)) return undefined
        return [...select.options].find((o) => (o.textContent ?? "").trim() === wanted)?.value
      }, text)
    )
    if (value === undefined) return yield* Effect.dieMessage(`no option "${text}" under "${label}"`)
    yield* run(() => field.select(value))
  })

/** Of the elements `selector` finds (buttons, links), the one that says `text` (its visible words). */
const named = (page: Page, selector: string, text: string) =>
  Effect.promise(async () => {
    for (const element of await page.$$(selector)) {
      const said = await element.evaluate((e) => (e.textContent ?? "").replace(/\s+/g, " ").trim())
      if (said === text || said.startsWith(`${text} `)) return element
    }
    throw new Error(`nothing that says "${text}" (${selector})`)
  })

/** Clicks and waits for the page the click leads to (a link, a redirect, a reload after a write). */
const clickAndLoad = (page: Page, element: ElementHandle<Element>) =>
  run(() => Promise.all([page.waitForNavigation({ waitUntil: "load" }), element.click()]).then(() => undefined))

const text = (page: Page, selector: string) =>
  run(() => page.$eval(selector, (e) => (e.textContent ?? "").replace(/\s+/g, " ").trim()))

const pathOf = (page: Page) => new URL(page.url()).pathname

// Where Dashboard.auditAndCapture writes; the journey's own pictures go beside them.
const ARTIFACTS = path.resolve(__dirname, "../../../../test-artifacts/dashboard")

const capture = (page: Page, name: string) =>
  run(() => page.screenshot({ path: path.join(ARTIFACTS, `journey-${name}.png`), fullPage: true }))

Fixture.describe(
  `dashboard: a newcomer's first session (${TestDatabase.kind} database)`,
  {
    env: {
      // The monitored service and the webhook receiver both listen on loopback, which checks and deliveries may
      // reach only with this on.
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      // The alert is looked for a tenth of a second after the incident opens, not a second.
      NOTIFIER__POLL_INTERVAL_MS: "100"
    }
  },
  (it) => {
    it.scoped(
      "signs in from the printed address, makes an alert channel, adds a monitor, gets an alert, publishes a status page",
      () =>
        Effect.gen(function* () {
          const { server, smtp } = yield* Fixture.Fixture
          const receiver = yield* FakeReceiver.make()
          const site = yield* service
          const context = yield* Dashboard.context
          // No session: this person signs in through the pages.
          const page = yield* Dashboard.tab(context, server.baseUrl)
          page.on("dialog", (dialog) => void dialog.accept())
          const email = Identity.uniqueEmail("newcomer")

          // 1. The printed address leads to sign in; the mailed code signs in, in this browser.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/`)).toBe(200)
          expect(pathOf(page)).toBe("/login")
          expect(yield* text(page, "h1")).toBe("Sign in to Signalman")
          yield* Dashboard.auditAndCapture(page, "journey-sign-in")
          yield* fill(page, "Email address", email)
          yield* clickAndLoad(page, yield* named(page, "main button", "Email me a sign-in link"))
          expect(yield* text(page, "h1")).toBe("Check your mail")
          yield* Dashboard.auditAndCapture(page, "journey-sign-in-code")
          const [mail] = yield* run(() => smtp.waitFor(email, 1))
          if (mail === undefined) return yield* Effect.dieMessage(`no sign-in mail for ${email}`)
          const { code } = SmtpCatcher.magicLinkOf(mail)
          yield* fill(page, "Code", code)
          yield* clickAndLoad(page, yield* named(page, "main button", "Sign in"))
          expect(pathOf(page)).toBe("/")
          expect(yield* text(page, "h1")).toBe("Monitors")
          expect(yield* text(page, "header")).toContain(email)
          yield* capture(page, "1-signed-in")

          // 2. An alert channel: a webhook to the receiver, from the navigation; a test send arrives.
          yield* clickAndLoad(page, yield* named(page, "nav a", "Alert channels"))
          yield* clickAndLoad(page, yield* named(page, "main a", "New channel"))
          yield* clickAndLoad(page, yield* named(page, "main a", "Webhook"))
          yield* fill(page, "Name", "Ops webhook")
          yield* fill(page, "URL", `${receiver.url}/signalman`)
          yield* run(() => page.click("main form button[type=submit]"))
          // A webhook's signing secret is shown once, then the person goes on to the channel.
          yield* Dashboard.until(page, `document.getElementById("signing-secret")?.hidden === false`)
          expect(yield* text(page, "#signing-secret [data-reveal-value]")).toMatch(/^whsec_/)
          yield* clickAndLoad(page, yield* named(page, "#signing-secret a", "Continue to the channel"))
          expect(yield* text(page, "h1")).toBe("Ops webhook")
          const sendTest = yield* named(page, "main button", "Send test")
          yield* run(() => sendTest.click())
          yield* Dashboard.until(
            page,
            `(document.getElementById("flash")?.textContent ?? "").includes("Test delivered")`
          )
          expect(yield* text(page, "#flash")).toMatch(/^Test delivered to Ops webhook in \d+ ms \(HTTP 200\)\.$/)
          const tested = yield* receiver.waitFor(1)
          expect(tested[0]?.path).toBe("/signalman")
          yield* capture(page, "2-channel-tested")

          // 3. A monitor: from the overview's "New monitor" link (or its address while the overview has none).
          yield* clickAndLoad(page, yield* named(page, "nav a", "Monitors"))
          const newMonitor = yield* run(() => page.$('main a[href="/monitors/new"]'))
          if (newMonitor === null) yield* Dashboard.visit(page, `${server.baseUrl}/monitors/new`)
          else yield* clickAndLoad(page, newMonitor)
          expect(yield* text(page, "h1")).toBe("New monitor")
          yield* clickAndLoad(page, yield* named(page, "main a", "HTTP"))
          yield* fill(page, "Name", "Checkout API")
          yield* fill(page, "URL", `${site.base}/health`)
          const alertChannel = yield* labelled(page, "Ops webhook", "fieldset[data-field=alerts]")
          yield* run(() => alertChannel.click())
          // The form says how many failing checks in a row open an incident; the newcomer leaves the default.
          const confirmationsField = yield* labelled(page, "Confirmations")
          const confirmations = Number(
            yield* run(() =>
              confirmationsField.evaluate((input) => (input instanceof HTMLInputElement ? input.value : ""))
            )
          )
          expect(confirmations).toBeGreaterThanOrEqual(1)
          yield* clickAndLoad(page, yield* named(page, "main button", "Create monitor"))
          const monitorId = /^\/monitors\/([0-9a-f-]{36})$/.exec(pathOf(page))?.[1]
          if (monitorId === undefined) return yield* Effect.dieMessage(`the form went to ${page.url()}`)
          expect(yield* text(page, "h1")).toBe("Checkout API")
          // Its first result, asked for at once rather than waiting for the schedule.
          yield* clickAndLoad(page, yield* named(page, "main button", "Check now"))
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Up/)
          expect(yield* text(page, "main")).not.toContain("No result yet")
          yield* capture(page, "3-monitor-up")

          // 4. The service breaks: as many checks as the monitor's confirmations, and an incident opens.
          site.code = 500
          for (let i = 0; i < confirmations; i++) {
            yield* clickAndLoad(page, yield* named(page, "main button", "Check now"))
          }
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Down/)
          yield* clickAndLoad(page, yield* named(page, "nav a", "Incidents"))
          const row = `main tbody tr:has(a[href="/monitors/${monitorId}"])`
          const listed = yield* eventually(
            Effect.gen(function* () {
              yield* Dashboard.visit(page, `${server.baseUrl}/incidents`)
              return yield* run(() => page.$(row))
            }),
            (found) => found !== null,
            { intervalMs: 200 }
          )
          expect(listed).not.toBeNull()
          yield* capture(page, "4-incident-listed")
          // The alert reached the channel, naming the monitor.
          const alerted = yield* eventually(
            Effect.sync(() => receiver.received().filter((r) => r.headers["x-signalman-event"] !== "test")),
            (alerts) => alerts.length > 0
          )
          expect(alerted[0]?.headers["x-signalman-event"]).toMatch(/^incident\./)
          expect(alerted[0]?.body).toContain("Checkout API")
          // Acknowledged from the incident's page, which logs the notification sent.
          yield* clickAndLoad(page, yield* element(page, `${row} th a`))
          expect(yield* text(page, "main")).toContain("to Ops webhook (webhook)")
          yield* clickAndLoad(page, yield* named(page, "main button", "Acknowledge"))
          const facts = yield* text(page, "dl.facts")
          expect(facts).toMatch(/Acknowledged .* by you/)
          expect(yield* run(() => page.$("button[data-action$='/acknowledge']"))).toBeNull()
          yield* capture(page, "4-incident-acknowledged")

          // 5. A status page, published at once, with the monitor; the public page shows it and its incident.
          const slug = `journey-${Date.now().toString(36)}`
          yield* clickAndLoad(page, yield* named(page, "nav a", "Status pages"))
          yield* fill(page, "Name", "Acme status", "form.sp-create")
          yield* fill(page, "Slug", slug, "form.sp-create")
          const publish = yield* labelled(page, "Publish now", "form.sp-create")
          yield* run(() => publish.click())
          yield* clickAndLoad(page, yield* named(page, "main button", "Create page"))
          expect(yield* text(page, "h1")).toBe("Acme status")
          yield* choose(page, "Monitor", "Checkout API", "form.sp-add")
          yield* clickAndLoad(page, yield* named(page, "main button", "Add to page"))
          expect(yield* text(page, "ol.sp-components")).toContain("Checkout API")
          yield* capture(page, "5-status-page-editor")
          yield* clickAndLoad(page, yield* named(page, "main a", "View public page"))
          expect(pathOf(page)).toBe(`/p/${slug}`)
          expect(yield* text(page, "h1")).toContain("Acme status")
          const active = yield* text(page, "section[aria-labelledby=h-active]")
          expect(active).toContain("Checkout API")
          expect(yield* text(page, "main")).toContain("Checkout API")
          yield* capture(page, "5-public-page")
        }),
      120_000
    )
  }
)
