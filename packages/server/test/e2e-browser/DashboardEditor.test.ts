/// <reference lib="dom" />
/**
 * Making and changing monitors in the dashboard, in real headless Chromium: the kind picker, a monitor of each of
 * the nine kinds made through its form (checked against what the API stored), an edit that leaves an untouched
 * check and its stored credential alone and asks for the credential again when the check changes, refusals shown on
 * the field the API names, "Test now" showing a result without saving, reading with JavaScript off, and an axe audit
 * with screenshots of the picker, the http and flow forms and the edit form.
 *
 * Probes point at a site on loopback this file serves (the server may check loopback here); the RDAP bootstrap and
 * the DNS resolver point at a closed loopback port, so nothing reaches past this machine.
 */
import * as NodeHttp from "node:http"
import { expect } from "@effect/vitest"
import { OperatorRegion } from "@signalman/core/api/Operator"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

interface Seen {
  readonly url: string
  readonly authorization: string | undefined
  readonly token: string | undefined
}

/** A site on loopback: `/health` answers 200, `/login` a sign-in form whose button leads to `/welcome`. */
const site: Effect.Effect<
  { readonly base: string; readonly port: number; readonly seen: Array<Seen> },
  never,
  Scope.Scope
> = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<{ server: NodeHttp.Server; seen: Array<Seen> }>((resolve) => {
        const seen: Array<Seen> = []
        const server = NodeHttp.createServer((request, response) => {
          const token = request.headers["x-token"]
          seen.push({
            url: request.url ?? "",
            authorization: request.headers.authorization,
            token: Array.isArray(token) ? token.join(",") : token
          })
          const url = request.url ?? ""
          response.writeHead(200, { "content-type": url.startsWith("/health") ? "text/plain" : "text/html" })
          response.end(
            url.startsWith("/health")
              ? "healthy"
              : url.startsWith("/welcome")
                ? "<!doctype html><h1>Welcome back</h1>"
                : `<!doctype html><form action="/welcome"><input id="password" name="password" type="password">
                     <button id="go">Sign in</button></form>`
          )
        })
        server.listen(0, "127.0.0.1", () => resolve({ server, seen }))
      })
  ),
  ({ server }) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
).pipe(
  Effect.flatMap(({ server, seen }) => {
    const address = server.address()
    return address === null || typeof address === "string"
      ? Effect.dieMessage("the site has no TCP address")
      : Effect.succeed({ base: `http://127.0.0.1:${address.port}`, port: address.port, seen })
  })
)

const admin = "operator-secret-for-the-dashboard-editor-0123"

/** Replaces a field's text by typing (so the page sees input events, as from a person). */
const retype = (page: Page, name: string, text: string) =>
  Effect.promise(async () => {
    const selector = `[name="${name}"]`
    await page.$eval(selector, (field) => {
      if (field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement) {
        field.focus()
        field.select()
      }
    })
    await page.keyboard.press("Backspace")
    if (text !== "") await page.type(selector, text)
  })

const choose = (page: Page, name: string, value: string) =>
  Effect.promise(() => page.select(`[name="${name}"]`, value).then(() => undefined))

const click = (page: Page, selector: string) => Effect.promise(() => page.click(selector))

/**
 * Submits the monitor form and waits for the page it goes to; answers the monitor's id from that page's path. A
 * refusal shown instead fails the test with what it said.
 */
const save = (page: Page) =>
  Effect.promise(async () => {
    const before = page.url()
    const navigation = page.waitForNavigation({ waitUntil: "load" }).then(() => undefined)
    // The click clears an earlier refusal before it returns (forms.ts), so only a new one is waited for.
    await page.click("form.monitor-form button[type=submit]")
    const refusal = page
      .waitForSelector("form.monitor-form .form-status.error", { timeout: 30_000 })
      .then((status) => status?.evaluate((node) => node.textContent ?? ""))
      .catch(() => undefined)
    const said = await Promise.race([navigation, refusal])
    if (said !== undefined) throw new Error(`the form at ${before} was refused: ${said}`)
    const id = /^\/monitors\/([0-9a-f-]{36})$/.exec(new URL(page.url()).pathname)?.[1]
    if (id === undefined) throw new Error(`the form went to ${page.url()}`)
    return id
  })

/** Submits and waits for a refusal to be shown; answers where it was shown. */
const refused = (page: Page) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => page.click("form.monitor-form button[type=submit]"))
    yield* Dashboard.until(page, `document.querySelector("form.monitor-form .field-error") !== null`)
    return yield* shownError(page)
  })

const shownError = (page: Page) =>
  Effect.promise(() =>
    page.evaluate(() => {
      const invalid = document.querySelector("form.monitor-form [aria-invalid=true]")
      const note = document.querySelector("form.monitor-form .field-error")
      return {
        field: invalid?.getAttribute("name") ?? invalid?.getAttribute("data-field") ?? null,
        focused: document.activeElement === invalid,
        describedBy: (invalid?.getAttribute("aria-describedby") ?? "").split(" ").includes(note?.id ?? "-"),
        message: note?.textContent ?? ""
      }
    })
  )

Fixture.describe(
  `dashboard monitor editor (${TestDatabase.kind} database)`,
  {
    env: {
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      OPERATOR__ADMIN_TOKEN: admin,
      // Nothing past this machine: the RDAP bootstrap is a closed loopback port.
      CHECKER__RDAP_BOOTSTRAP_URL: "http://127.0.0.1:9/dns.json",
      ...(process.env["CHROMIUM_PATH"] === undefined ? {} : { CHECKER__BROWSER_PATH: process.env["CHROMIUM_PATH"] })
    }
  },
  (it) => {
    it.scoped(
      "the kind picker, then a monitor of each of the nine kinds made through its form, as the API stores it",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const origin = yield* site
          const operator = (path: string, init: RequestInit & { readonly json?: unknown } = {}) =>
            Http.request(`${server.baseUrl}/operator${path}`, {
              ...init,
              headers: { authorization: `Bearer ${admin}` }
            })
          expect(
            (yield* operator(`/accounts/${alice.accountId}/overrides`, { method: "PUT", json: { max_flow_checks: 5 } }))
              .status
          ).toBe(200)
          const channel = yield* alice.api("/api/v1/channels", {
            json: { name: "On-call hook", kind: "webhook", config: { url: "https://hooks.example.com/signalman" } }
          })
          expect(channel.status, channel.text).toBe(201)
          const channelId = Http.decode(channel, Schema.Struct({ id: Schema.String })).id
          for (const variable of [
            { key: "token", is_secret: true, value: "t0ken-value" },
            { key: "env", is_secret: false, value: "prod" }
          ]) {
            expect((yield* alice.api("/api/v1/variables", { json: variable })).status).toBe(201)
          }

          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          const policy: Array<string> = []
          page.on("console", (message) => {
            if (message.type() === "error" && /Content Security Policy/i.test(message.text()))
              policy.push(message.text())
          })

          // The picker: the nine kinds, each a link to its form.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/new`)).toBe(200)
          const picker = yield* Effect.promise(() =>
            page.evaluate(() => [...document.querySelectorAll(".kind-list a")].map((a) => a.getAttribute("href")))
          )
          expect(picker).toEqual(
            ["http", "tcp", "ping", "dns", "tls_cert", "domain_expiry", "flow", "heartbeat", "manual"].map(
              (kind) => `/monitors/new?type=${kind}`
            )
          )
          yield* Dashboard.auditAndCapture(page, "monitor-kind-picker")
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/new?type=smtp`)).toBe(404)

          const stored = (id: string) => Effect.map(alice.api(`/api/v1/targets/${id}`), (r) => Http.wire(r, Target))
          const open = (kind: string, name: string) =>
            Effect.gen(function* () {
              expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/new?type=${kind}`)).toBe(200)
              yield* retype(page, "name", name)
            })

          // http: every default shown, a variable inserted with the picker, a credential, a channel, test now.
          yield* open("http", "Website")
          const defaults = yield* Effect.promise(() =>
            page.evaluate(() => {
              const value = (name: string) =>
                document.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)?.value ?? null
              const checked = (name: string) => document.querySelector<HTMLInputElement>(`[name="${name}"]`)?.checked
              return {
                interval: value("interval"),
                method: value("check.method"),
                status: value("check.expected_status"),
                timeout: value("check.timeout"),
                ip: value("check.ip_version"),
                redirects: checked("check.follow_redirects"),
                tls: checked("check.verify_tls"),
                confirmations: value("alert_confirmations"),
                recovery: value("recovery_period_secs"),
                renotify: value("renotify_interval_secs"),
                policy: value("region_policy"),
                regions: [...document.querySelectorAll<HTMLInputElement>('[name="regions"]:checked')].map(
                  (b) => b.value
                )
              }
            })
          )
          expect(defaults).toEqual({
            interval: "180",
            method: "GET",
            status: "2xx",
            timeout: "10",
            ip: "any",
            redirects: true,
            tls: true,
            confirmations: "2",
            recovery: "180",
            renotify: "3600",
            policy: "majority",
            regions: ["local"]
          })
          yield* retype(page, "check.url", `${origin.base}/health?env=`)
          yield* click(page, '[data-insert-variable="env"]')
          yield* retype(page, "check.headers", "X-Token: ")
          // A secret variable where a secret may not go is refused by the picker, not inserted.
          yield* Effect.promise(() => page.focus('[name="check.url"]'))
          yield* click(page, '[data-insert-variable="token"]')
          const refusedSecret = yield* Effect.promise(() =>
            page.$eval("[data-variable-status]", (status) => status.textContent ?? "")
          )
          expect(refusedSecret).toContain("secret")
          yield* Effect.promise(async () => {
            await page.focus('[name="check.headers"]')
            await page.keyboard.press("End")
          })
          yield* click(page, '[data-insert-variable="token"]')
          yield* retype(page, "check.expected_status", "200, 204")
          yield* retype(page, "check.bearer_token", "s3cret-bearer")
          yield* retype(page, "tags", "web, prod")
          yield* click(page, `[name="alerts"][value="${channelId}"]`)
          // Test now: the check as the form has it, with the variables substituted, and nothing saved.
          yield* click(page, "[data-test-now]")
          yield* Dashboard.until(page, `document.querySelector("[data-test-result] .state") !== null`)
          const tested = yield* Effect.promise(() => page.$eval("[data-test-result]", (box) => box.textContent ?? ""))
          expect(tested).toMatch(/^Up in \d+ ms from local/)
          expect(origin.seen.at(-1)).toMatchObject({
            url: "/health?env=prod",
            token: "t0ken-value",
            authorization: "Bearer s3cret-bearer"
          })
          yield* Dashboard.auditAndCapture(page, "monitor-new-http")
          const http = yield* stored(yield* save(page))
          expect(http).toMatchObject({
            name: "Website",
            interval: 180,
            tags: ["web", "prod"],
            alerts: [{ channel_id: channelId }],
            write_source: "ui",
            regions: ["local"]
          })
          expect(http.check).toMatchObject({
            type: "http",
            url: `${origin.base}/health?env={{env}}`,
            headers: { "X-Token": "{{token}}" },
            expected_status: [200, 204],
            bearer_token: "***",
            basic_auth: null
          })

          yield* open("tcp", "Port")
          yield* retype(page, "check.host", "127.0.0.1")
          yield* retype(page, "check.port", String(origin.port))
          yield* choose(page, "check.ip_version", "ipv4")
          const tcp = yield* stored(yield* save(page))
          expect(tcp.check).toEqual({
            type: "tcp",
            host: "127.0.0.1",
            port: origin.port,
            timeout: 10,
            ip_version: "ipv4"
          })

          yield* open("ping", "Echo")
          yield* retype(page, "check.host", "127.0.0.1")
          yield* retype(page, "check.timeout", "2.5")
          const ping = yield* stored(yield* save(page))
          expect(ping.check).toEqual({ type: "ping", host: "127.0.0.1", timeout: 2.5 })

          yield* open("dns", "Records")
          yield* retype(page, "check.domain", "example.test")
          yield* choose(page, "check.record_type", "TXT")
          yield* retype(page, "check.resolver", "127.0.0.1:9")
          yield* retype(page, "check.expected_records", "v=spf1 -all\nhello")
          const dns = yield* stored(yield* save(page))
          expect(dns.check).toMatchObject({
            type: "dns",
            domain: "example.test",
            record_type: "TXT",
            resolver: "127.0.0.1:9",
            expected_records: ["v=spf1 -all", "hello"]
          })

          // tls_cert opens at the web form's 43200 s.
          yield* open("tls_cert", "Certificate")
          const opening = yield* Effect.promise(() =>
            page.$eval('[name="interval"]', (field) => (field instanceof HTMLInputElement ? field.value : null))
          )
          expect(opening).toBe("43200")
          yield* retype(page, "check.host", "127.0.0.1")
          yield* retype(page, "check.port", String(origin.port))
          yield* retype(page, "check.warn_days", "30")
          const tls = yield* stored(yield* save(page))
          expect(tls).toMatchObject({ interval: 43200, recovery_period_secs: 0 })
          expect(tls.check).toMatchObject({ host: "127.0.0.1", port: origin.port, warn_days: 30, critical_days: 7 })

          yield* open("domain_expiry", "Registration")
          yield* retype(page, "check.domain", "example.com")
          const domain = yield* stored(yield* save(page))
          expect(domain).toMatchObject({ interval: 86400 })
          expect(domain.check).toEqual({
            type: "domain_expiry",
            domain: "example.com",
            warn_days: 30,
            critical_days: 7
          })

          // flow: steps added, one removed, one moved, the first turned into a fill (a secret reference).
          // The local region runs flows once the server has found its browser (in the background at boot).
          yield* eventually(
            Effect.map(
              operator("/regions"),
              (r) => Http.decode(r, Schema.Struct({ data: Schema.Array(OperatorRegion) })).data
            ),
            (regions) => regions.some((region) => region.id === "local" && region.flow_capable),
            { timeoutMs: 30_000 }
          )
          yield* open("flow", "Sign in")
          yield* retype(page, "check.start_url", `${origin.base}/login`)
          yield* choose(page, "check.steps[0].action", "fill")
          yield* retype(page, "check.steps[0].selector", "#password")
          yield* Effect.promise(() => page.focus('[name="check.steps[0].value"]'))
          yield* click(page, '[data-insert-variable="token"]')
          for (let i = 0; i < 3; i++) yield* click(page, "[data-step-add]")
          yield* retype(page, "check.steps[1].selector", "#go")
          yield* choose(page, "check.steps[2].action", "wait_for")
          yield* choose(page, "check.steps[3].action", "assert_text")
          yield* retype(page, "check.steps[3].text", "Welcome back")
          // The wait goes last, then is removed: what remains is renumbered.
          yield* click(page, '[data-step]:nth-child(3) [data-step-move="1"]')
          yield* click(page, "[data-step]:nth-child(4) [data-step-remove]")
          const rows = yield* Effect.promise(() =>
            page.evaluate(() =>
              [...document.querySelectorAll("[data-step]")].map((row) => ({
                number: row.querySelector("legend")?.textContent ?? "",
                action: row.querySelector("select")?.getAttribute("name") ?? ""
              }))
            )
          )
          expect(rows).toEqual([
            { number: "Step 1", action: "check.steps[0].action" },
            { number: "Step 2", action: "check.steps[1].action" },
            { number: "Step 3", action: "check.steps[2].action" }
          ])
          yield* Dashboard.auditAndCapture(page, "monitor-new-flow")
          const flow = yield* stored(yield* save(page))
          expect(flow).toMatchObject({ interval: 300, regions: ["local"] })
          expect(flow.check).toEqual({
            type: "flow",
            start_url: `${origin.base}/login`,
            steps: [
              { action: "fill", selector: "#password", value: "***" },
              { action: "click", selector: "#go" },
              { action: "assert_text", text: "Welcome back", selector: null }
            ],
            timeout: 60,
            step_timeout: 10,
            verify_tls: true
          })

          // heartbeat: the interval left empty follows the period and grace.
          yield* open("heartbeat", "Nightly backup")
          yield* retype(page, "check.period", "3600")
          yield* retype(page, "check.grace", "600")
          const heartbeat = yield* stored(yield* save(page))
          expect(heartbeat).toMatchObject({ interval: 300 })
          expect(heartbeat.check).toEqual({ type: "heartbeat", period: 3600, grace: 600 })

          yield* open("manual", "Office power")
          const manual = yield* stored(yield* save(page))
          expect(manual).toMatchObject({ interval: 60, alert_confirmations: 1, recovery_period_secs: 0 })
          expect(manual.check).toEqual({ type: "manual" })

          expect(policy).toEqual([])
        }),
      120_000
    )

    it.scoped(
      "an edit: the form filled from the monitor; an interval change leaves the check and its stored token alone; " +
        "a header change asks for the token again; regions in their own form; reading with JavaScript off",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const origin = yield* site
          const made = yield* alice.api("/api/v1/targets", {
            json: {
              name: "Private API",
              interval: 300,
              check: {
                type: "http",
                url: `${origin.base}/health`,
                headers: { "X-Token": "one" },
                bearer_token: "tok-1"
              },
              tags: ["api"]
            }
          })
          expect(made.status, made.text).toBe(201)
          const id = Http.wire(made, Target).id
          const stored = Effect.map(alice.api(`/api/v1/targets/${id}`), (r) => Http.wire(r, Target))
          /** The Authorization header a check-now of the stored monitor sends. */
          const sentAuthorization = Effect.gen(function* () {
            const now = yield* alice.api(`/api/v1/targets/${id}/check-now`, { method: "POST" })
            expect(Http.wire(now, CheckResult).status, now.text).toBe("up")
            return origin.seen.at(-1)?.authorization
          })

          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          const sent: Array<{ method: string; url: string; body: string }> = []
          page.on("request", (request) => {
            if (request.url().includes("/api/v1/")) {
              sent.push({ method: request.method(), url: request.url(), body: request.postData() ?? "" })
            }
          })
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${id}/edit`)).toBe(200)
          const filled = yield* Effect.promise(() =>
            page.evaluate(() => {
              const value = (name: string) =>
                document.querySelector<HTMLInputElement | HTMLTextAreaElement>(`form.monitor-form [name="${name}"]`)
                  ?.value ?? null
              return {
                name: value("name"),
                url: value("check.url"),
                headers: value("check.headers"),
                interval: value("interval"),
                tags: value("tags"),
                bearer: value("check.bearer_token"),
                stored: document.querySelector('[name="check.bearer_token"]')?.hasAttribute("data-stored-secret"),
                regions: [
                  ...document.querySelectorAll<HTMLInputElement>('form.regions-form [name="regions"]:checked')
                ].map((box) => box.value)
              }
            })
          )
          expect(filled).toEqual({
            name: "Private API",
            url: `${origin.base}/health`,
            headers: "X-Token: one",
            interval: "300",
            tags: "api",
            bearer: "",
            stored: true,
            regions: ["local"]
          })
          yield* Dashboard.auditAndCapture(page, "monitor-edit")

          // The interval alone: the PATCH names no check, so the stored token stays.
          yield* retype(page, "interval", "600")
          expect(yield* save(page)).toBe(id)
          const patches = () => sent.filter((request) => request.method === "PATCH")
          expect(patches().map((p) => JSON.parse(p.body))).toEqual([{ interval: 600 }])
          expect((yield* stored).interval).toBe(600)
          expect(yield* sentAuthorization).toBe("Bearer tok-1")

          // A header changed with the token untouched: refused on the token's field, nothing sent.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${id}/edit`)).toBe(200)
          yield* retype(page, "check.headers", "X-Token: two")
          const asked = yield* refused(page)
          expect(asked).toMatchObject({ field: "check.bearer_token", focused: true, describedBy: true })
          expect(asked.message).toContain("enter it again")
          expect(patches()).toHaveLength(1)
          // Entered again, the check is saved whole, the token as entered; the sentinel is never sent back.
          yield* retype(page, "check.bearer_token", "tok-1")
          expect(yield* save(page)).toBe(id)
          expect(JSON.parse(patches()[1]?.body ?? "{}")).toEqual({
            check: expect.objectContaining({ headers: { "X-Token": "two" }, bearer_token: "tok-1" })
          })
          expect(sent.some((request) => request.body.includes("***"))).toBe(false)
          const changed = yield* stored
          expect(changed.check).toMatchObject({ headers: { "X-Token": "two" }, bearer_token: "***" })
          expect(changed.interval).toBe(600)
          expect(yield* sentAuthorization).toBe("Bearer tok-1")

          // Removing the stored token is a choice of its own.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${id}/edit`)).toBe(200)
          yield* click(page, "[data-clears='check.bearer_token']")
          expect(yield* save(page)).toBe(id)
          expect((yield* stored).check).toMatchObject({ bearer_token: null, headers: { "X-Token": "two" } })

          // Regions: their own form (a PATCH takes none); none at all is refused on the list.
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${id}/edit`)).toBe(200)
          yield* click(page, 'form.regions-form [name="regions"][value="local"]')
          yield* click(page, "form.regions-form button[type=submit]")
          yield* Dashboard.until(page, `document.querySelector("form.regions-form .field-error") !== null`)
          const regionsError = yield* Effect.promise(() =>
            page.evaluate(() => document.querySelector("form.regions-form [aria-invalid=true]")?.getAttribute("name"))
          )
          expect(regionsError).toBe("regions")
          yield* click(page, 'form.regions-form [name="regions"][value="local"]')
          yield* click(page, "form.regions-form button[type=submit]")
          yield* Dashboard.until(
            page,
            `document.querySelector("form.regions-form [data-form-status]")?.textContent === "Regions saved."`
          )
          expect(sent.filter((request) => request.method === "PUT").map((p) => JSON.parse(p.body))).toEqual([
            { regions: [] },
            { regions: ["local"] }
          ])

          // Without JavaScript the form still reads: every value in its field, the script-only parts hidden.
          yield* Effect.promise(() => page.setJavaScriptEnabled(false))
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${id}/edit`)).toBe(200)
          const plain = yield* Effect.promise(() =>
            page.evaluate(() => ({
              heading: document.querySelector("h1")?.textContent ?? "",
              url: document.querySelector<HTMLInputElement>('[name="check.url"]')?.value,
              testNowShown: getComputedStyle(document.querySelector(".test-now") ?? document.body).display !== "none",
              action: document.querySelector("form.monitor-form")?.getAttribute("action")
            }))
          )
          expect(plain).toEqual({
            heading: "Edit Private API",
            url: `${origin.base}/health`,
            testNowShown: false,
            action: "/dashboard/js-required"
          })
        }),
      90_000
    )

    it.scoped(
      "refusals land on the field the API names; test now refused on a field, and nothing is saved",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          const count = Effect.map(
            alice.api("/api/v1/targets"),
            (r) => Http.wire(r, Schema.Struct({ total: Schema.Number })).total
          )

          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/new?type=http`)).toBe(200)
          yield* retype(page, "name", "Refused")
          yield* retype(page, "check.url", "ftp://example.com/")
          // Test now refuses the address on its field, as a save would.
          yield* click(page, "[data-test-now]")
          yield* Dashboard.until(page, `document.querySelector("form.monitor-form .field-error") !== null`)
          expect(yield* shownError(page)).toMatchObject({ field: "check.url", focused: true, describedBy: true })
          expect(yield* refused(page)).toMatchObject({ field: "check.url", focused: true, describedBy: true })

          yield* retype(page, "check.url", "https://example.com/")
          yield* retype(page, "interval", "5")
          const interval = yield* refused(page)
          expect(interval).toMatchObject({ field: "interval", focused: true })
          expect(interval.message).toContain("at least 180")

          yield* retype(page, "interval", "300")
          yield* retype(page, "check.headers", "not a header")
          expect(yield* refused(page)).toMatchObject({ field: "check.headers", focused: true })
          yield* retype(page, "check.headers", "")

          yield* choose(page, "region_policy", "count")
          expect(yield* refused(page)).toMatchObject({ field: "region_policy.count", focused: true })
          yield* retype(page, "region_policy.count", "2")
          const policy = yield* refused(page)
          expect(policy).toMatchObject({ field: "region_policy", focused: true })
          expect(policy.message).toContain("exceeds")

          // A flow step's error lands on that step's field (the body's shape is judged before the plan)...
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/new?type=flow`)).toBe(200)
          yield* retype(page, "name", "Steps")
          yield* retype(page, "check.start_url", "https://example.com/")
          yield* retype(page, "check.steps[0].text", "Hello")
          yield* click(page, "[data-step-add]")
          const step = yield* refused(page)
          expect(step).toMatchObject({ field: "check.steps[1].selector", focused: true, describedBy: true })
          // ...and the plan's refusal of the kind itself (flows are off on the free plan) on the kind's line.
          yield* retype(page, "check.steps[1].selector", "#go")
          const kind = yield* refused(page)
          expect(kind.field).toBe("check.type")
          expect(kind.message).toContain("not part of the Free plan")
          expect(yield* count).toBe(0)
        }),
      60_000
    )
  }
)
