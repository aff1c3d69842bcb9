/// <reference lib="dom" />
/**
 * The status pages' screens in real headless Chromium: a page created from the list (its refusal on the field
 * first), monitors added as components and put in order from the keyboard and by dragging, the branding preview
 * following its inputs before anything is saved, and the public page showing what was saved; the access form's
 * refusal on the password field, a custom domain refused on its field, a logo uploaded (a refused file first) and
 * removed, the subscribers list, reading without JavaScript, and another org's page answering 404. axe and
 * screenshots of the list, the editor and the subscribers.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { assert, expect } from "@effect/vitest"
import { ComponentList } from "@signalman/core/api/StatusPages"
import * as PublicStatus from "@signalman/core/PublicStatus"
import { Component, StatusPage } from "@signalman/core/StatusPage"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import type { Page } from "puppeteer-core"
import { palette } from "../../src/dashboard/statuspages/Preview.js"
import * as Browser from "../support/Browser.js"
import * as Dashboard from "../support/Dashboard.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const unique = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`

const createTarget = (person: Person, name: string) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: { name, enabled: false, check: { type: "http", url: "https://example.com/health" } }
    }),
    (reply) => Http.expectOk(reply, Target, 201).id
  )

const createPage = (person: Person, body: Record<string, unknown>) =>
  Effect.map(person.browser.request("/api/v1/status-pages", { json: body }), (reply) =>
    Http.expectOk(reply, StatusPage, 201)
  )

const order = (person: Person, pageId: string) =>
  Effect.map(person.browser.request(`/api/v1/status-pages/${pageId}/components`), (reply) =>
    Http.expectOk(reply, ComponentList).data.map((c) => c.target_id)
  )

const run = <A>(f: () => Promise<A>) => Effect.promise(f)

/** Submits a form by its button and waits for the reload or redirect its success makes. */
const submitAndLoad = (page: Page, button: string) =>
  run(() => Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(button)]).then(() => undefined))

/** Replaces a text field's value as someone typing would (so input events fire). */
const retype = (page: Page, selector: string, text: string) =>
  run(async () => {
    await page.$eval(selector, (el) => {
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) el.value = ""
    })
    await page.type(selector, text)
  })

/** The error a form shows for a refusal: on which field, whether it is marked and focused, and its words. */
const fieldError = (page: Page, form: string) =>
  Effect.gen(function* () {
    yield* Dashboard.until(page, `document.querySelector(${JSON.stringify(`${form} .field-error`)}) !== null`)
    return yield* run(() =>
      page.$eval(form, (f) => {
        const note = f.querySelector(".field-error")
        const field = f.querySelector("[aria-invalid=true]")
        return {
          field: field?.getAttribute("name") ?? null,
          describedBy: (field?.getAttribute("aria-describedby") ?? "").split(" ").includes(note?.id ?? "-"),
          focused: document.activeElement === field,
          text: note?.textContent ?? ""
        }
      })
    )
  })

const itemNames = (page: Page) =>
  run(() =>
    page.$$eval("ol.sp-components > li", (items) => items.map((li) => li.getAttribute("data-reorder-name") ?? ""))
  )

// A real PNG (a solid square), so the logo shows in the screenshots: signature, IHDR, IDAT, IEND with their CRCs.
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc32 = (bytes: Uint8Array) => {
  let c = 0xffffffff
  for (const b of bytes) c = (crcTable[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const chunk = (type: string, data: Uint8Array) => {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, "ascii")
  Buffer.from(data).copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}
const png = (size: number, [r, g, b]: readonly [number, number, number]) => {
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header.set([8, 2, 0, 0, 0], 8)
  const row = Buffer.alloc(1 + size * 3)
  for (let x = 0; x < size; x++) row.set([r, g, b], 1 + 3 * x)
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", zlib.deflateSync(Buffer.concat(Array.from({ length: size }, () => row)))),
    chunk("IEND", new Uint8Array())
  ])
}

Fixture.describe(`dashboard status pages (${TestDatabase.kind} database)`, (it) => {
  it.scoped(
    "create from the list (refused slug on its field first), add three monitors, reorder by keyboard and by dragging, branding previewed live then public",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person({ plan: "pro" })
        const checkout = yield* createTarget(alice, "Checkout API")
        const web = yield* createTarget(alice, "Web front")
        const search = yield* createTarget(alice, "Search")
        const context = yield* Dashboard.context
        const page = yield* Dashboard.tab(context, server.baseUrl, alice)
        const refused: Array<string> = []
        page.on("console", (message) => {
          if (message.type() === "error") refused.push(message.text())
        })

        expect(yield* Dashboard.visit(page, `${server.baseUrl}/status-pages`)).toBe(200)
        expect(yield* run(() => page.$eval("main h1", (h) => h.textContent))).toBe("Status pages")
        expect(yield* run(() => page.$eval('nav a[aria-current="page"]', (a) => a.textContent))).toBe("Status pages")

        // A reserved slug: the API's refusal lands on the slug field.
        yield* retype(page, "#sp-new-name", "Acme status")
        yield* retype(page, "#sp-new-slug", "admin")
        yield* run(() => page.click("form.sp-create button[type=submit]"))
        const slugError = yield* fieldError(page, "form.sp-create")
        expect(slugError).toMatchObject({ field: "slug", describedBy: true, focused: true })
        expect(slugError.text).toContain("reserved")

        const slug = `acme-${unique()}`
        yield* retype(page, "#sp-new-slug", slug)
        yield* run(() => page.click('form.sp-create input[name="published"]'))
        yield* submitAndLoad(page, "form.sp-create button[type=submit]")
        const pageId = /\/status-pages\/([0-9a-f-]{36})$/.exec(page.url())?.[1]
        assert.isDefined(pageId)
        const created = Http.expectOk(yield* alice.api(`/api/v1/status-pages/${pageId}`), StatusPage)
        expect(created).toMatchObject({ slug, name: "Acme status", published: true, write_source: "ui" })

        // Three monitors added in turn; the picker offers only those not on the page yet.
        for (const [target, count] of [
          [checkout, 3],
          [web, 2],
          [search, 1]
        ] as const) {
          expect(yield* run(() => page.$$eval("#sp-add-target option", (o) => o.length))).toBe(count)
          yield* run(() => page.select("#sp-add-target", target))
          yield* submitAndLoad(page, "form.sp-add button[type=submit]")
        }
        expect(yield* itemNames(page)).toEqual(["Checkout API", "Web front", "Search"])
        expect(yield* run(() => page.$("form.sp-add"))).toBeNull()

        // From the keyboard: Move down on the first, saved at once, the focus kept on the moved item.
        yield* run(() => page.focus(`li[data-reorder-id="${checkout}"] button[data-move="down"]`))
        yield* run(() => page.keyboard.press("Enter"))
        yield* Dashboard.until(page, `document.getElementById("sp-order-status").textContent.includes("is now 2 of 3")`)
        expect(yield* itemNames(page)).toEqual(["Web front", "Checkout API", "Search"])
        expect(yield* order(alice, pageId)).toEqual([web, checkout, search])
        expect(
          yield* run(() =>
            page.evaluate(
              (id) => document.activeElement?.closest("li")?.getAttribute("data-reorder-id") === id,
              checkout
            )
          )
        ).toBe(true)
        // The first item cannot go up: its button says so by being disabled.
        expect(
          yield* run(() =>
            page.$eval(
              `li[data-reorder-id="${web}"] button[data-move="up"]`,
              (b) => b instanceof HTMLButtonElement && b.disabled
            )
          )
        ).toBe(true)

        // By dragging: Search's handle taken above the first row.
        const handle = yield* run(() => page.$(`li[data-reorder-id="${search}"] [data-reorder-handle]`))
        const first = yield* run(() => page.$(`li[data-reorder-id="${web}"]`))
        assert.isNotNull(handle)
        assert.isNotNull(first)
        const from = yield* run(() => handle.boundingBox())
        const to = yield* run(() => first.boundingBox())
        assert.isNotNull(from)
        assert.isNotNull(to)
        yield* run(async () => {
          await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2)
          await page.mouse.down()
          await page.mouse.move(from.x + from.width / 2, to.y + 4, { steps: 12 })
          await page.mouse.up()
        })
        yield* Dashboard.until(page, `document.getElementById("sp-order-status").textContent.includes("is now 1 of 3")`)
        expect(yield* itemNames(page)).toEqual(["Search", "Web front", "Checkout API"])
        expect(yield* order(alice, pageId)).toEqual([search, web, checkout])

        // A public name and group for one component, through its own form.
        yield* run(() => page.click(`li[data-reorder-id="${checkout}"] summary`))
        yield* retype(page, `li[data-reorder-id="${checkout}"] input[name="public_name"]`, "Payments <API>")
        yield* retype(page, `li[data-reorder-id="${checkout}"] input[name="public_group"]`, "Core")
        yield* submitAndLoad(page, `li[data-reorder-id="${checkout}"] form button[type=submit]`)
        expect(yield* itemNames(page)).toEqual(["Search", "Web front", "Payments <API>"])

        // Renamed through the settings form.
        yield* retype(page, "#sp-name", "Acme <Status> & Co")
        yield* submitAndLoad(page, 'section[aria-labelledby="h-settings"] button[type=submit]')
        expect(yield* run(() => page.$eval("main h1", (h) => h.textContent))).toBe("Acme <Status> & Co")

        // The preview follows the inputs before anything is saved, by the public page's colour rules.
        const fills = () =>
          run(() =>
            page.evaluate(() =>
              Object.fromEntries(
                ["light", "dark"].map((variant) => {
                  const panel = document.querySelector(`[data-preview-variant="${variant}"]`)
                  const fill = (part: string) => panel?.querySelector(`[data-part="${part}"]`)?.getAttribute("fill")
                  return [
                    variant,
                    {
                      hidden: panel instanceof HTMLElement && panel.hidden,
                      brand: fill("brand"),
                      onBrand: fill("on-brand"),
                      link: fill("link"),
                      background: fill("background"),
                      powered: panel?.querySelector('[data-part="powered"]')?.getAttribute("display") ?? null
                    }
                  ]
                })
              )
            )
          )
        const before = yield* fills()
        expect(before["light"]).toMatchObject({ hidden: false, brand: "#2563eb", powered: null })
        expect(before["dark"]).toMatchObject({ hidden: false, brand: "#2563eb" })
        yield* retype(page, "#sp-brand-colour", "#FFD33D")
        yield* run(() => page.select("#sp-theme", "dark"))
        yield* run(() => page.click('input[name="branding.hide_powered_by"]'))
        const during = yield* fills()
        // Yellow: black text on it; too pale for links on white (the default blue), fine on the dark background.
        const light = palette("#ffd33d", "light")
        const dark = palette("#ffd33d", "dark")
        expect(light.onBrand).toBe(PublicStatus.textOn("#ffd33d"))
        expect(light.link).toBe("#0550ae")
        expect(dark.link).toBe("#ffd33d")
        expect(during["light"]).toMatchObject({
          hidden: true,
          brand: light.brand,
          onBrand: light.onBrand,
          link: light.link
        })
        expect(during["dark"]).toMatchObject({
          hidden: false,
          brand: dark.brand,
          onBrand: dark.onBrand,
          link: dark.link,
          background: dark.background,
          powered: "none"
        })
        // Nothing is saved until the form is.
        expect(Http.expectOk(yield* alice.api(`/api/v1/status-pages/${pageId}`), StatusPage).branding).toEqual({
          primary_color: null,
          theme: "auto",
          hide_powered_by: false
        })
        yield* submitAndLoad(page, "#sp-branding button[type=submit]")
        expect(Http.expectOk(yield* alice.api(`/api/v1/status-pages/${pageId}`), StatusPage).branding).toEqual({
          primary_color: "#ffd33d",
          theme: "dark",
          hide_powered_by: true
        })
        expect((yield* fills())["dark"]).toMatchObject({ hidden: false, brand: "#ffd33d", powered: "none" })
        yield* Dashboard.auditAndCapture(page, "status-page-editor")

        // The public page shows the new name, order, colour and theme, and no powered-by line.
        const live = yield* Http.request(`${server.baseUrl}/p/${slug}`)
        expect(live.status).toBe(200)
        expect(live.text).toContain("Acme &lt;Status&gt; &amp; Co")
        expect(live.text).toContain("--brand:#ffd33d")
        expect(live.text).toContain("color-scheme:dark")
        expect(live.text).not.toContain("Powered by Signalman")
        const positions = ["Search", "Web front", "Payments &lt;API&gt;"].map((name) => live.text.indexOf(name))
        expect(positions.every((p) => p > 0)).toBe(true)
        expect([...positions].sort((a, b) => a - b)).toEqual(positions)

        // The list shows the page as it now is.
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/status-pages`)).toBe(200)
        const row = yield* run(() =>
          page.$eval("tbody tr", (tr) => [...tr.querySelectorAll("th, td")].map((cell) => cell.textContent?.trim()))
        )
        expect(row).toEqual(["Acme <Status> & Co", "Published", `/p/${slug}`, "None", "Public"])
        yield* Dashboard.auditAndCapture(page, "status-pages")
        expect(refused.filter((text) => /Content Security Policy/i.test(text))).toEqual([])
      }),
    120_000
  )

  it.scoped(
    "access refused on the password field, custom domain refused on its field, logo upload and removal, subscribers, no script, other orgs",
    () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* Fixture.Fixture
        const alice = yield* Fixture.person({ plan: "pro" })
        const bob = yield* Fixture.person({ plan: "pro" })
        const carol = yield* Fixture.person()
        const target = yield* createTarget(alice, "Checkout")
        const slug = `office-${unique()}`
        const sp = yield* createPage(alice, { slug, name: "Office status", published: true })
        Http.expectOk(
          yield* alice.browser.request(`/api/v1/status-pages/${sp.id}/components`, { json: { target_id: target } }),
          Component,
          201
        )
        const takenDomain = `status.${unique()}.example.com`
        yield* createPage(bob, { slug: `bob-${unique()}`, name: "Bob", custom_domain: takenDomain })
        const context = yield* Dashboard.context
        const page = yield* Dashboard.tab(context, server.baseUrl, alice)
        page.on("dialog", (dialog) => void dialog.accept())
        const editor = `${server.baseUrl}/status-pages/${sp.id}`
        expect(yield* Dashboard.visit(page, editor)).toBe(200)

        // The password turned on with none stored and none given: PASSWORD_REQUIRED, on the password's field.
        const accessForm = 'section[aria-labelledby="h-access"] form'
        yield* run(() => page.click('input[name="access.password.enabled"]'))
        yield* run(() => page.click(`${accessForm} button[type=submit]`))
        const passwordError = yield* fieldError(page, accessForm)
        expect(passwordError).toMatchObject({ field: "access.password.value", describedBy: true, focused: true })
        expect(passwordError.text).toContain("password")
        yield* retype(page, "#sp-password", "correct horse")
        yield* submitAndLoad(page, `${accessForm} button[type=submit]`)
        const afterAccess = Http.expectOk(yield* alice.api(`/api/v1/status-pages/${sp.id}`), StatusPage)
        expect(afterAccess.access).toMatchObject({ protected: false, password: { enabled: true } })
        expect(yield* run(() => page.$eval("#sp-password-hint", (p) => p.textContent))).toContain(
          "A password is stored"
        )

        // Someone else's domain: CUSTOM_DOMAIN_TAKEN on the domain's field.
        const domainForm = 'section[aria-labelledby="h-domain"] form'
        yield* retype(page, "#sp-domain", takenDomain)
        yield* run(() => page.click(`${domainForm} button[type=submit]`))
        const domainError = yield* fieldError(page, domainForm)
        expect(domainError).toMatchObject({ field: "custom_domain", describedBy: true, focused: true })
        expect(domainError.text).toContain("already the domain")

        // A file that is not an image is refused on the file field; a PNG is stored and shown under the policy.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "signalman-logo-"))
        const textFile = path.join(dir, "notes.txt")
        const pngFile = path.join(dir, "logo.png")
        fs.writeFileSync(textFile, "not an image")
        fs.writeFileSync(pngFile, png(24, [0x0a, 0x58, 0xca]))
        const logoForm = "form[data-upload]"
        const fileInput = yield* run(() => page.$("input#sp-logo-file"))
        assert.isNotNull(fileInput)
        yield* run(() => fileInput.uploadFile(textFile))
        yield* run(() => page.click(`${logoForm} button[type=submit]`))
        const logoError = yield* fieldError(page, logoForm)
        expect(logoError).toMatchObject({ field: "file", describedBy: true, focused: true })
        yield* run(() => fileInput.uploadFile(pngFile))
        yield* submitAndLoad(page, `${logoForm} button[type=submit]`)
        expect(Http.expectOk(yield* alice.api(`/api/v1/status-pages/${sp.id}`), StatusPage).logo_url).not.toBeNull()
        yield* Dashboard.until(page, `document.querySelector("img.sp-logo")?.naturalWidth === 24`)
        fs.rmSync(dir, { recursive: true, force: true })

        // Two subscribers, one confirmed by the link mailed to it.
        const subscribe = (email: string) =>
          Http.request(`${server.baseUrl}/api/public/v1/subscriptions?page=${slug}`, { json: { email } })
        const confirmed = `sub-${unique()}@example.com`
        const pending = `wait-${unique()}@example.com`
        expect((yield* subscribe(confirmed)).status).toBe(202)
        expect((yield* subscribe(pending)).status).toBe(202)
        const [mail] = yield* run(() => smtp.waitFor(confirmed, 1))
        assert.isDefined(mail)
        const link = /https?:\/\/\S+\/subscriptions\/confirm\?token=[A-Za-z0-9_-]+/.exec(mail.text)?.[0]
        assert.isDefined(link)
        const { pathname, search } = new URL(link)
        expect((yield* Http.request(`${server.baseUrl}${pathname}${search}`)).status).toBe(200)

        const subscribers = `${editor}/subscribers`
        expect(yield* Dashboard.visit(page, subscribers)).toBe(200)
        const rows = yield* run(() =>
          page.$$eval("tbody tr", (trs) =>
            trs.map((tr) => [...tr.querySelectorAll("th, td")].map((cell) => cell.textContent?.trim() ?? ""))
          )
        )
        expect(rows.map((r) => [r[0], r[1], r[4]])).toEqual([
          [pending, "Awaiting confirmation", "Public page"],
          [confirmed, "Confirmed", "Public page"]
        ])
        expect(yield* run(() => page.$$eval(".cards .figure", (f) => f.map((n) => n.textContent)))).toEqual([
          "1",
          "1",
          "0"
        ])
        expect(yield* run(() => page.$eval('.sp-tabs a[aria-current="page"]', (a) => a.textContent))).toBe(
          "Subscribers"
        )
        yield* Dashboard.auditAndCapture(page, "status-page-subscribers")

        // The logo removed, confirmed first.
        expect(yield* Dashboard.visit(page, editor)).toBe(200)
        yield* Dashboard.auditAndCapture(page, "status-page-editor-access")
        yield* run(() =>
          Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click('button[data-action$="/logo"]')])
        )
        expect(yield* run(() => page.$("img.sp-logo"))).toBeNull()
        expect(Http.expectOk(yield* alice.api(`/api/v1/status-pages/${sp.id}`), StatusPage).logo_url).toBeNull()

        // Someone who signed in with the email code (that flow is the private pages' own), blocked from the table.
        const viewerEmail = `viewer-${unique()}@example.com`
        yield* server.sql`
          INSERT INTO status_page_viewers (id, page_id, email, verified_at, last_sign_in_at)
          VALUES (${crypto.randomUUID()}, ${sp.id}, ${viewerEmail}, now(), now())
        `
        expect(yield* Dashboard.visit(page, editor)).toBe(200)
        const viewerCells = () =>
          run(() =>
            page.$$eval('section[aria-labelledby="h-access"] tbody tr', (trs) =>
              trs.map((tr) => [...tr.querySelectorAll("th, td")].map((cell) => cell.textContent?.trim() ?? ""))
            )
          )
        expect((yield* viewerCells()).map((r) => [r[0], r[1]])).toEqual([[viewerEmail, "Allowed"]])
        yield* run(() =>
          Promise.all([
            page.waitForNavigation({ waitUntil: "load" }),
            page.click('section[aria-labelledby="h-access"] button[data-action$="/block"]')
          ])
        )
        expect((yield* viewerCells()).map((r) => [r[0], r[1]])).toEqual([[viewerEmail, "Blocked"]])
        const listed = yield* alice.api(`/api/v1/status-pages/${sp.id}/access/viewers`)
        expect(listed.json).toMatchObject({ data: [{ email: viewerEmail, blocked: true }] })

        // Without JavaScript the editor and the subscribers still read; controls that need it are not shown.
        yield* run(() => page.setJavaScriptEnabled(false))
        expect(yield* Dashboard.visit(page, editor)).toBe(200)
        const still = yield* run(() =>
          page.evaluate(() => ({
            scripted: document.documentElement.classList.contains("js"),
            components: [...document.querySelectorAll("ol.sp-components > li")].map((li) =>
              li.getAttribute("data-reorder-name")
            ),
            moveShown: [...document.querySelectorAll("button[data-move]")].some(
              (b) => b instanceof HTMLElement && b.offsetParent !== null
            ),
            previewBrand: document
              .querySelector('[data-preview-variant="light"] [data-part="brand"]')
              ?.getAttribute("fill")
          }))
        )
        expect(still).toEqual({ scripted: false, components: ["Checkout"], moveShown: false, previewBrand: "#2563eb" })
        expect(yield* Dashboard.visit(page, subscribers)).toBe(200)
        expect(yield* run(() => page.$$eval("tbody tr", (trs) => trs.length))).toBe(2)
        yield* run(() => page.setJavaScriptEnabled(true))

        // A plan without custom domains: CUSTOM_DOMAIN_DISABLED, on the domain's field.
        const carolPage = yield* createPage(carol, { slug: `carol-${unique()}`, name: "Carol" })
        const carolTab = yield* Dashboard.tab(context, server.baseUrl, carol)
        carolTab.on("dialog", (dialog) => void dialog.accept())
        expect(yield* Dashboard.visit(carolTab, `${server.baseUrl}/status-pages/${carolPage.id}`)).toBe(200)
        expect(yield* run(() => carolTab.$eval("#sp-domain-hint", (p) => p.textContent))).toContain(
          "not part of your plan"
        )
        yield* retype(carolTab, "#sp-domain", `status.${unique()}.example.com`)
        yield* run(() => carolTab.click(`${domainForm} button[type=submit]`))
        const disabled = yield* fieldError(carolTab, domainForm)
        expect(disabled).toMatchObject({ field: "custom_domain", describedBy: true, focused: true })
        expect(disabled.text).toContain("Custom domains")

        // Deleted from its editor, confirmed first: back to the list, which no longer has it.
        yield* run(() =>
          Promise.all([
            carolTab.waitForNavigation({ waitUntil: "load" }),
            carolTab.click('section[aria-labelledby="h-delete"] button[data-action]')
          ])
        )
        expect(new URL(carolTab.url()).pathname).toBe("/status-pages")
        expect(yield* run(() => carolTab.$eval("main", (m) => m.textContent))).toContain("No status pages yet")

        // Another org's page, and an id that is not one, are the API's 404; so are its subscribers.
        const stranger = Browser.make(server.baseUrl)
        expect((yield* stranger.request(`/status-pages/${sp.id}`)).status).toBe(303)
        expect((yield* bob.browser.request(`/status-pages/${sp.id}`)).status).toBe(404)
        expect((yield* bob.browser.request(`/status-pages/${sp.id}/subscribers`)).status).toBe(404)
        expect((yield* bob.browser.request("/status-pages/not-a-page")).status).toBe(404)
        const bobsList = yield* bob.browser.request("/status-pages")
        expect(bobsList.status).toBe(200)
        expect(bobsList.text).not.toContain("Office status")
      }),
    120_000
  )
})
