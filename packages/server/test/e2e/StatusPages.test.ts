/**
 * Status pages over HTTP: create, read, list, change and delete pages with every refusal (slug, custom domain,
 * plan flags, access rules, quotas), components with the distinct-monitor quota, logos of each type (a malicious
 * SVG sanitised, too large 413), owner-only changes, and private access: viewers signing in by mailed code and by
 * page password, blocking, the password use record, and the audit entries that never carry the password.
 */
import { assert, expect } from "@effect/vitest"
import { ComponentList, StatusPageList, ViewerList } from "@signalman/core/api/StatusPages"
import { Component, PasswordRecord, StatusPage, Viewer, ViewerHistory } from "@signalman/core/StatusPage"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Browser from "../support/Browser.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { bearer, mintToken, type Person, signIn, uniqueEmail } from "../support/Identity.js"
import type * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"
import type * as TestServer from "../support/TestServer.js"

/** Posts a viewer sign-in form as a browser does: opening the sign-in page first hands out the form token. */
const signInPost = (browser: Browser.Browser, slug: string, form: string, fields: Record<string, string>) =>
  Effect.gen(function* () {
    if (!browser.cookies.has("_sm_pv_csrf")) yield* browser.request(`/p/${slug}/sign-in`)
    return yield* browser.request(`/p/${slug}/sign-in/${form}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf: browser.cookies.get("_sm_pv_csrf") ?? "", ...fields }).toString()
    })
  })

/** The public base the server builds links on (localhost and the bound port). */
const base = (server: TestServer.Running) => `http://localhost:${new URL(server.baseUrl).port}`
/** A link the server built, fetched over the test's own address. */
const local = (server: TestServer.Running, url: string) => url.replace(base(server), server.baseUrl)

let slugs = 0
const uniqueSlug = (label: string) => `${label}-${Date.now().toString(36)}-${slugs++}`

const createPage = (person: Person, body: Record<string, unknown>) =>
  person.browser.request("/api/v1/status-pages", { json: { slug: uniqueSlug("page"), name: "Acme status", ...body } })

const created = (person: Person, body: Record<string, unknown> = {}) =>
  Effect.map(createPage(person, body), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return Http.wire(reply, StatusPage)
  })

const patch = (person: Person, id: string, body: Record<string, unknown>) =>
  person.browser.request(`/api/v1/status-pages/${id}`, { method: "PATCH", json: body })

const createTarget = (person: Person, name: string) =>
  Effect.map(
    person.browser.request("/api/v1/targets", {
      json: { name, check: { type: "http", url: `https://${name}.example.com/health` } }
    }),
    (reply) => {
      return Http.expectOk(reply, Target, 201).id
    }
  )

const upload = (
  person: Person,
  id: string,
  bytes: Uint8Array<ArrayBuffer>,
  name = "logo.bin",
  type = "application/octet-stream"
) => {
  const form = new FormData()
  form.append("file", new Blob([bytes], { type }), name)
  return person.browser.request(`/api/v1/status-pages/${id}/logo`, { method: "POST", body: form })
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82])
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0])
const WEBP = new Uint8Array([...Buffer.from("RIFF"), 30, 0, 0, 0, ...Buffer.from("WEBPVP8 "), 0, 0, 0, 0])

/** Someone invited to the owner's org, signed in, and acting on it as a member (the real invitation flow). */
const addMember = (server: TestServer.Running, smtp: SmtpCatcher.SmtpCatcher, owner: Fixture.Person) =>
  Effect.gen(function* () {
    const orgId = owner.org.id
    const email = uniqueEmail("member")
    expect((yield* owner.browser.request(`/api/v1/orgs/${orgId}/invitations`, { json: { email } })).status).toBe(201)
    const mails = yield* Effect.promise(() => smtp.waitFor(email, 1))
    const token = /accept\?token=([A-Za-z0-9_-]+)/.exec(mails[0]?.text ?? "")?.[1]
    const member = yield* signIn(server, smtp, email)
    const joined = yield* member.browser.request("/api/v1/invitations/accept", { json: { token } })
    expect(joined.status, joined.text).toBe(200)
    return { member }
  })

Fixture.describe(
  `status pages (${TestDatabase.kind} database)`,
  {
    env: { STATUS_PAGE__CODE_INTERVAL_SECS: "0" },
    // Plan figures for the whole server, set before anyone signs in: three public components on founding for the
    // components test (no other test adds a component), and 2 KiB logos on every plan for the logos test (no other
    // test uploads one).
    sql: [
      "UPDATE plans SET max_public_components = 3 WHERE id = 'founding'",
      "UPDATE plans SET max_logo_size_bytes = 2048"
    ]
  },
  (it) => {
    it.effect("create 201 with Location, defaults and live_url; get, list, patch, delete", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const slug = uniqueSlug("acme")
        const reply = yield* createPage(alice, { slug, name: "  Acme  " })
        expect(reply.status, reply.text).toBe(201)
        const page = Http.wire(reply, StatusPage)
        expect(reply.headers.get("location")).toBe(`/api/v1/status-pages/${page.id}`)
        expect(page).toMatchObject({
          slug,
          name: "Acme",
          published: false,
          public_locale: "en",
          custom_domain: null,
          branding: { primary_color: null, theme: "auto", hide_powered_by: false },
          access: null,
          live_url: `${base(server)}/p/${slug}`,
          logo_url: null,
          write_source: "ui",
          managed_by: null
        })
        const read = yield* alice.browser.request(`/api/v1/status-pages/${page.id}`)
        expect(read.status).toBe(200)
        expect(Http.wire(read, StatusPage)).toEqual(page)
        const list = Http.wire(yield* alice.browser.request("/api/v1/status-pages"), StatusPageList)
        expect(list.total).toBe(1)
        expect(list.data[0]?.id).toBe(page.id)

        const changed = yield* patch(alice, page.id, {
          name: "Acme Inc",
          published: true,
          public_locale: "de",
          branding: { primary_color: "#AA00FF", theme: "dark" }
        })
        expect(changed.status, changed.text).toBe(200)
        expect(Http.wire(changed, StatusPage)).toMatchObject({
          name: "Acme Inc",
          published: true,
          public_locale: "de",
          branding: { primary_color: "#aa00ff", theme: "dark", hide_powered_by: false }
        })

        expect((yield* alice.browser.request(`/api/v1/status-pages/${page.id}`, { method: "DELETE" })).status).toBe(204)
        expect((yield* alice.browser.request(`/api/v1/status-pages/${page.id}`)).status).toBe(404)
      })
    )

    it.effect("slug rules, SLUG_TAKEN, unknown keys, custom domain flag and uniqueness, white label flag", () =>
      Effect.gen(function* () {
        // A plan with custom domains and private pages.
        const alice = yield* Fixture.person({ plan: "founding" })
        const first = yield* created(alice, { slug: uniqueSlug("taken") })
        expect(Http.refusal(yield* createPage(alice, { slug: first.slug }))).toEqual({
          status: 409,
          code: "SLUG_TAKEN",
          field: "slug"
        })
        for (const slug of ["Upper", "-x", "api", "a_b", ""]) {
          expect(Http.refusal(yield* createPage(alice, { slug })), slug).toEqual({
            status: 400,
            code: "VALIDATION_FAILED",
            field: "slug"
          })
        }
        expect(Http.refusal(yield* createPage(alice, { colour: "red" }))).toEqual({
          status: 422,
          code: "INVALID_JSON",
          field: "colour"
        })
        expect(Http.refusal(yield* createPage(alice, { branding: { theme: "dark", font: "x" } }))).toEqual({
          status: 422,
          code: "INVALID_JSON",
          field: "branding.font"
        })
        expect(Http.refusal(yield* createPage(alice, { access: { protected: false, email: [] } }))).toEqual({
          status: 422,
          code: "INVALID_JSON",
          field: "access.email"
        })
        expect(Http.refusal(yield* patch(alice, first.id, { custom_domain: "https://x.example.com" })).field).toBe(
          "custom_domain"
        )

        // founding has custom domains: set, live_url follows; another page cannot take it.
        const withDomain = yield* patch(alice, first.id, { custom_domain: "status.acme.example" })
        expect(withDomain.status, withDomain.text).toBe(200)
        expect(Http.decode(withDomain, StatusPage).live_url).toBe("https://status.acme.example/")
        const second = yield* created(alice)
        expect(Http.refusal(yield* patch(alice, second.id, { custom_domain: "status.acme.example" }))).toEqual({
          status: 409,
          code: "CUSTOM_DOMAIN_TAKEN",
          field: "custom_domain"
        })
        // founding has no white label.
        expect(Http.refusal(yield* patch(alice, second.id, { branding: { hide_powered_by: true } }))).toEqual({
          status: 403,
          code: "WHITE_LABEL_DISABLED",
          field: "branding.hide_powered_by"
        })

        // A free account has no custom domains.
        const bob = yield* Fixture.person()
        const free = yield* created(bob)
        expect(Http.refusal(yield* patch(bob, free.id, { custom_domain: "status.bob.example" }))).toEqual({
          status: 403,
          code: "CUSTOM_DOMAIN_DISABLED",
          field: "custom_domain"
        })
        // Foreign ids are 404.
        expect((yield* bob.browser.request(`/api/v1/status-pages/${first.id}`)).status).toBe(404)
        expect(Http.refusal(yield* patch(bob, first.id, { name: "mine" })).status).toBe(404)
      })
    )

    it.effect("max_status_pages across the account: concurrent creates settle at the limit", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person({ plan: "founding" })
        const replies = yield* Effect.all(
          Array.from({ length: 5 }, () => createPage(alice, {})),
          { concurrency: "unbounded" }
        )
        expect(replies.filter((r) => r.status === 201)).toHaveLength(2)
        const refused = replies.filter((r) => r.status !== 201)
        expect(refused.map((r) => Http.refusal(r).code)).toEqual(["QUOTA_EXCEEDED", "QUOTA_EXCEEDED", "QUOTA_EXCEEDED"])
        const [first] = refused
        assert.isDefined(first)
        expect(Http.envelope(first).details).toMatchObject({ quota: "max_status_pages", limit: 2 })
      })
    )

    it.effect("components: add, 409 twice, foreign monitor, patch with null, reorder, remove, quota", () =>
      Effect.gen(function* () {
        const alice = yield* Fixture.person({ plan: "founding" })
        const one = yield* created(alice)
        const two = yield* created(alice)
        const web = yield* createTarget(alice, "web")
        const db = yield* createTarget(alice, "db")
        const api = yield* createTarget(alice, "api")
        const cdn = yield* createTarget(alice, "cdn")
        const mail = yield* createTarget(alice, "mail")
        const add = (page: string, body: Record<string, unknown>) =>
          alice.browser.request(`/api/v1/status-pages/${page}/components`, { json: body })

        const added = yield* add(one.id, { target_id: web, public_name: "Website", public_group: "Front" })
        expect(added.status, added.text).toBe(201)
        expect(Http.wire(added, Component)).toEqual({
          target_id: web,
          public_name: "Website",
          public_description: null,
          public_group: "Front",
          sort_order: 0
        })
        expect(Http.refusal(yield* add(one.id, { target_id: web.toUpperCase() }))).toEqual({
          status: 409,
          code: "COMPONENT_ALREADY_ON_PAGE",
          field: "target_id"
        })
        const bob = yield* Fixture.person()
        const bobTarget = yield* createTarget(bob, "bobs")
        expect(Http.refusal(yield* add(one.id, { target_id: bobTarget }))).toEqual({
          status: 400,
          code: "VALIDATION_FAILED",
          field: "target_id"
        })
        expect((yield* add(one.id, { target_id: db })).status).toBe(201)

        // The quota counts distinct monitors: web on a second page costs nothing; concurrent adds settle at 3.
        expect((yield* add(two.id, { target_id: web })).status).toBe(201)
        const racing = yield* Effect.all(
          [api, cdn, mail].map((t) => add(two.id, { target_id: t })),
          { concurrency: "unbounded" }
        )
        expect(racing.filter((r) => r.status === 201)).toHaveLength(1)
        for (const r of racing.filter((r) => r.status !== 201)) {
          expect(Http.refusal(r).code).toBe("QUOTA_EXCEEDED")
          expect(Http.envelope(r).details).toMatchObject({ quota: "max_public_components", limit: 3, current: 3 })
        }

        const patched = yield* alice.browser.request(`/api/v1/status-pages/${one.id}/components/${web}`, {
          method: "PATCH",
          json: { public_name: null, public_description: "Our site" }
        })
        expect(patched.status, patched.text).toBe(200)
        expect(Http.wire(patched, Component)).toMatchObject({
          public_name: null,
          public_description: "Our site",
          public_group: "Front"
        })

        const reorder = (ids: Array<string>) =>
          alice.browser.request(`/api/v1/status-pages/${one.id}/components/reorder`, { json: { target_ids: ids } })
        const bad = yield* reorder([db])
        expect(Http.refusal(bad)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "target_ids" })
        expect(Http.envelope(bad).details).toEqual({ missing: [web], unknown: [], repeated: [] })
        const ordered = yield* reorder([db, web])
        expect(ordered.status, ordered.text).toBe(200)
        expect(Http.wire(ordered, ComponentList).data).toMatchObject([
          { target_id: db, sort_order: 0 },
          { target_id: web, sort_order: 1 }
        ])
        const removed = yield* alice.browser.request(`/api/v1/status-pages/${one.id}/components/${db}`, {
          method: "DELETE"
        })
        expect(removed.status).toBe(204)
        const left = Http.wire(yield* alice.browser.request(`/api/v1/status-pages/${one.id}/components`), ComponentList)
        expect(left.data.map((c) => c.target_id)).toEqual([web])
      })
    )

    it.effect("a member reads but every change is 403 OWNER_REQUIRED; token scopes follow the status_page row", () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* Fixture.Fixture
        const alice = yield* Fixture.person()
        const page = yield* created(alice)
        const { member } = yield* addMember(server, smtp, alice)
        const headers = {}
        expect((yield* member.browser.request(`/api/v1/status-pages/${page.id}`, { headers })).status).toBe(200)
        const attempts = [
          member.browser.request("/api/v1/status-pages", { headers, json: { slug: uniqueSlug("m"), name: "m" } }),
          member.browser.request(`/api/v1/status-pages/${page.id}`, { headers, method: "PATCH", json: { name: "x" } }),
          member.browser.request(`/api/v1/status-pages/${page.id}`, { headers, method: "DELETE" }),
          member.browser.request(`/api/v1/status-pages/${page.id}/logo`, { headers, method: "DELETE" }),
          member.browser.request(`/api/v1/status-pages/${page.id}/access/password/sign-out`, {
            headers,
            method: "POST"
          })
        ]
        for (const reply of yield* Effect.all(attempts)) {
          expect(Http.refusal(reply)).toEqual({ status: 403, code: "OWNER_REQUIRED", field: null })
        }

        const orgId = alice.org.id
        const reader = yield* mintToken(alice, { scopes: ["status_page:read"], org_id: orgId })
        expect((yield* bearer(server, reader.token, `/api/v1/status-pages/${page.id}`)).status).toBe(200)
        const writeAttempt = yield* bearer(server, reader.token, `/api/v1/status-pages/${page.id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "x" })
        })
        expect(Http.refusal(writeAttempt)).toEqual({ status: 403, code: "INSUFFICIENT_SCOPE", field: null })
        const writer = yield* mintToken(alice, { scopes: ["status_page:write"], org_id: orgId })
        const noDelete = yield* bearer(server, writer.token, `/api/v1/status-pages/${page.id}/logo`, {
          method: "DELETE"
        })
        expect(Http.refusal(noDelete).code).toBe("INSUFFICIENT_SCOPE")
        const renamed = yield* bearer(server, writer.token, `/api/v1/status-pages/${page.id}`, {
          method: "PATCH",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "By token" })
        })
        expect(renamed.status, renamed.text).toBe(200)
        expect(Http.decode(renamed, StatusPage).write_source).toBe("api")
      })
    )

    it.effect("logos: PNG, JPEG, WebP stored and served; SVG sanitised; others 415; too large 413", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const page = yield* created(alice)
        for (const [bytes, type] of [
          [PNG, "image/png"],
          [JPEG, "image/jpeg"],
          [WEBP, "image/webp"]
        ] as const) {
          // The declared type is ignored: the bytes decide.
          const reply = yield* upload(alice, page.id, bytes, "logo.txt", "text/plain")
          expect(reply.status, reply.text).toBe(200)
          const url = Http.decode(reply, StatusPage).logo_url
          assert(url !== null)
          expect(url).toMatch(new RegExp(`^${base(server)}/api/public/v1/logos/${page.id}/[0-9a-f]{64}$`))
          const served = yield* Effect.promise(() => fetch(local(server, url)))
          expect(served.status).toBe(200)
          expect(served.headers.get("content-type")).toBe(type)
          expect(served.headers.get("x-content-type-options")).toBe("nosniff")
          expect(served.headers.get("cache-control")).toContain("immutable")
          expect(new Uint8Array(yield* Effect.promise(() => served.arrayBuffer()))).toEqual(bytes)
        }

        const evil = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(2)</script>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>
  <a href="javascript:alert(3)"><rect width="5" height="5" fill="#f00"/></a>
  <image href="https://evil.example/track.png"/>
  <use xlink:href="https://evil.example/sprite.svg#x"/>
  <circle cx="5" cy="5" r="4" fill="url(https://evil.example/p)" stroke="url(#grad)" onclick="x()"/>
  <style>@import url(https://evil.example/x.css);</style>
</svg>`
        const svg = yield* upload(alice, page.id, new TextEncoder().encode(evil), "logo.svg", "image/svg+xml")
        expect(svg.status, svg.text).toBe(200)
        const svgUrl = Http.decode(svg, StatusPage).logo_url ?? ""
        const servedSvg = yield* Effect.promise(() => fetch(local(server, svgUrl)))
        expect(servedSvg.headers.get("content-type")).toBe("image/svg+xml")
        expect(servedSvg.headers.get("content-security-policy")).toContain("default-src 'none'")
        const text = yield* Effect.promise(() => servedSvg.text())
        expect(text).toContain("<svg")
        expect(text).toContain('<circle cx="5" cy="5" r="4" stroke="url(#grad)">')
        for (const banned of [
          "script",
          "onload",
          "onclick",
          "foreignObject",
          "javascript:",
          "evil.example",
          "<a",
          "style"
        ]) {
          expect(text, banned).not.toContain(banned)
        }

        expect(Http.refusal(yield* upload(alice, page.id, new TextEncoder().encode("GIF89a not really")))).toEqual({
          status: 415,
          code: "LOGO_TYPE_UNSUPPORTED",
          field: "file"
        })
        const big = new Uint8Array(4096)
        big.set(PNG)
        expect(Http.refusal(yield* upload(alice, page.id, big))).toEqual({
          status: 413,
          code: "PAYLOAD_TOO_LARGE",
          field: "file"
        })
        const json = yield* alice.browser.request(`/api/v1/status-pages/${page.id}/logo`, { json: { file: "x" } })
        expect(Http.refusal(json).code).toBe("INVALID_CONTENT_TYPE")

        const removed = yield* alice.browser.request(`/api/v1/status-pages/${page.id}/logo`, { method: "DELETE" })
        expect(removed.status).toBe(200)
        expect(Http.decode(removed, StatusPage).logo_url).toBeNull()
        expect((yield* Effect.promise(() => fetch(local(server, svgUrl)))).status).toBe(404)
      })
    )

    it.effect("access: rules and codes, PRIVATE_PAGES_DISABLED, the stored password kept, audit without value", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        // A plan with custom domains and private pages.
        const alice = yield* Fixture.person({ plan: "founding" })
        const page = yield* created(alice)
        const access = (body: unknown) => patch(alice, page.id, { access: body })

        expect(Http.refusal(yield* access({ protected: true }))).toEqual({
          status: 400,
          code: "ACCESS_INVALID",
          field: "access.protected"
        })
        expect(Http.refusal(yield* access({ protected: false, session_days: 14 }))).toEqual({
          status: 400,
          code: "ACCESS_INVALID",
          field: "access.session_days"
        })
        expect(Http.refusal(yield* access({ protected: true, password: { enabled: true } }))).toEqual({
          status: 400,
          code: "PASSWORD_REQUIRED",
          field: "access.password.value"
        })
        expect(Http.refusal(yield* access({ protected: true, password: { enabled: true, value: "" } }))).toEqual({
          status: 400,
          code: "INVALID_PAGE_PASSWORD",
          field: "access.password.value"
        })
        // Nothing half-written: a refused access left the rename in the same body undone.
        expect(Http.refusal(yield* patch(alice, page.id, { name: "Renamed", access: { protected: true } })).code).toBe(
          "ACCESS_INVALID"
        )
        expect(Http.decode(yield* alice.browser.request(`/api/v1/status-pages/${page.id}`), StatusPage).name).toBe(
          "Acme status"
        )

        const secret = "correct horse battery staple"
        const set = yield* access({
          protected: true,
          email_code: { enabled: true, allow: ["Viewer@Example.com", "@Bücher.example"] },
          session_days: 30,
          recheck_days: 90,
          password: { enabled: true, value: secret }
        })
        expect(set.status, set.text).toBe(200)
        const read = Http.wire(yield* alice.browser.request(`/api/v1/status-pages/${page.id}`), StatusPage)
        expect(read.access).toEqual({
          protected: true,
          email_code: { enabled: true, allow: ["viewer@example.com", "@xn--bcher-kva.example"] },
          session_days: 30,
          recheck_days: 90,
          password: { enabled: true }
        })
        expect(read.name).toBe("Acme status")
        // A GET then a PATCH of what it said keeps the stored password.
        const again = yield* access(read.access)
        expect(again.status, again.text).toBe(200)
        const record = Http.wire(
          yield* alice.browser.request(`/api/v1/status-pages/${page.id}/access/password`),
          PasswordRecord
        )
        expect(record).toMatchObject({
          enabled: true,
          set_by: alice.userId,
          sessions: 0,
          failed_last_24h: 0,
          subscriptions: 0
        })
        expect(record.set_at).not.toBeNull()

        expect((yield* access({ ...read.access, password: { enabled: true, value: "another one" } })).status).toBe(200)
        const entries = yield* server.sql<{ event: string; details: unknown }>`
        SELECT event, details FROM audit_events
        WHERE event LIKE 'status_page.password%' AND org_id = ${alice.org.id}
        ORDER BY created_at, id
      `
        expect(entries.map((e) => e.event)).toEqual(["status_page.password_set", "status_page.password_changed"])
        const written = JSON.stringify(entries)
        expect(written).not.toContain(secret)
        expect(written).not.toContain("another one")

        // A free account cannot make a page private (a page already private staying editable is a core unit test).
        const bob = yield* Fixture.person()
        const bobs = yield* created(bob)
        expect(
          Http.refusal(
            yield* patch(bob, bobs.id, { access: { protected: true, password: { enabled: true, value: "x" } } })
          )
        ).toEqual({ status: 403, code: "PRIVATE_PAGES_DISABLED", field: null })
      })
    )

    it.effect("viewers: code sign-in admits and is listed; blocking signs out and keeps out; unblock lifts", () =>
      Effect.gen(function* () {
        const { server, smtp } = yield* Fixture.Fixture
        const alice = yield* Fixture.person({ plan: "founding" })
        const page = yield* created(alice, {
          published: true,
          access: { protected: true, email_code: { enabled: true, allow: ["@viewers.example"] }, session_days: 7 }
        })
        const viewerEmail = uniqueEmail("v").replace("@example.com", "@viewers.example")
        const viewer = Browser.make(server.baseUrl)

        const form = yield* viewer.request(`/p/${page.slug}/sign-in`)
        expect(form.status).toBe(200)
        expect(form.text).toContain(`action="/p/${page.slug}/sign-in/email"`)
        expect(form.text).not.toContain("sign-in/password")

        const signInByCode = (browser: Browser.Browser, email: string) =>
          Effect.gen(function* () {
            const before = smtp.mails().filter((m) => m.to === email).length
            const asked = yield* signInPost(browser, page.slug, "email", { email })
            expect(asked.status).toBe(200)
            const mails = yield* Effect.promise(() => smtp.waitFor(email, before + 1))
            const code = /Your page code: ([0-9A-Z]{6})/.exec(mails[before]?.text ?? "")?.[1] ?? ""
            return yield* signInPost(browser, page.slug, "code", { code })
          })

        const done = yield* signInByCode(viewer, viewerEmail)
        expect(done.status, done.text).toBe(303)
        expect(done.headers.get("location")).toBe(`/p/${page.slug}`)
        const cookie = done.headers.getSetCookie().find((c) => c.startsWith("_sm_pv_"))
        expect(cookie).toMatch(/HttpOnly/)
        expect(cookie).toMatch(/SameSite=Lax/)
        expect(cookie).toMatch(/Max-Age=604800/)

        // An address the rules do not allow hears the same answer and gets no mail.
        const stranger = Browser.make(server.baseUrl)
        const asked = yield* signInPost(stranger, page.slug, "email", { email: "nobody@elsewhere.example" })
        expect(asked.status).toBe(200)
        expect(asked.text).toContain("If the address may open this page")

        const listed = Http.wire(
          yield* alice.browser.request(`/api/v1/status-pages/${page.id}/access/viewers`),
          ViewerList
        )
        expect(listed.total).toBe(1)
        const entry = listed.data[0]
        assert(entry !== undefined)
        expect(entry).toMatchObject({ email: viewerEmail, blocked: false, sessions: 1 })
        expect(entry.last_visit_on).not.toBeNull()
        const history = Http.wire(
          yield* alice.browser.request(`/api/v1/status-pages/${page.id}/access/viewers/${entry.id}/history`),
          ViewerHistory
        )
        expect(history.visit_days).toHaveLength(1)
        expect(history.sign_ins).toMatchObject([{ method: "email_code" }])

        const blocked = yield* alice.browser.request(
          `/api/v1/status-pages/${page.id}/access/viewers/${entry.id}/block`,
          {
            method: "POST"
          }
        )
        expect(blocked.status, blocked.text).toBe(200)
        expect(Http.wire(blocked, Viewer)).toMatchObject({ blocked: true, sessions: 0 })
        const [sessions] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM status_page_viewer_sessions WHERE viewer_id = ${entry.id}
      `
        expect(sessions?.n).toBe(0)
        // Kept out: no code is mailed to a blocked viewer.
        const mailsBefore = smtp.mails().filter((m) => m.to === viewerEmail).length
        yield* signInPost(viewer, page.slug, "email", { email: viewerEmail })
        const mailsAfter = smtp.mails().filter((m) => m.to === viewerEmail).length
        expect(mailsAfter).toBe(mailsBefore)

        const unblocked = yield* alice.browser.request(
          `/api/v1/status-pages/${page.id}/access/viewers/${entry.id}/unblock`,
          { method: "POST" }
        )
        expect(Http.wire(unblocked, Viewer)).toMatchObject({ blocked: false })
        const back = yield* signInByCode(Browser.make(server.baseUrl), viewerEmail)
        expect(back.status, back.text).toBe(303)

        // A viewer of another page, or another org, is 404.
        const other = yield* created(alice)
        expect(
          (yield* alice.browser.request(`/api/v1/status-pages/${other.id}/access/viewers/${entry.id}/block`, {
            method: "POST"
          })).status
        ).toBe(404)
      })
    )

    it.effect("password: sign-in, failures counted, sign-out of every device, a new password ends sessions", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person({ plan: "founding" })
        const page = yield* created(alice, {
          published: true,
          access: { protected: true, password: { enabled: true, value: "open sesame" } }
        })
        const withPassword = (browser: Browser.Browser, password: string) =>
          signInPost(browser, page.slug, "password", { password })
        const record = () =>
          Effect.map(alice.browser.request(`/api/v1/status-pages/${page.id}/access/password`), (reply) =>
            Http.wire(reply, PasswordRecord)
          )

        const wrong = yield* withPassword(Browser.make(server.baseUrl), "open sesam")
        expect(wrong.status).toBe(401)
        const first = Browser.make(server.baseUrl)
        const second = Browser.make(server.baseUrl)
        expect((yield* withPassword(first, "open sesame")).status).toBe(303)
        const secondReply = yield* withPassword(second, "open sesame")
        expect(secondReply.status).toBe(303)
        // session_days null: a browser session (no Max-Age).
        expect(secondReply.headers.getSetCookie().find((c) => c.startsWith("_sm_pv_"))).not.toMatch(/Max-Age/)
        expect(yield* record()).toMatchObject({ enabled: true, sessions: 2, failed_last_24h: 1 })
        expect((yield* record()).last_sign_in_at).not.toBeNull()

        const out = yield* alice.browser.request(`/api/v1/status-pages/${page.id}/access/password/sign-out`, {
          method: "POST"
        })
        expect(out.status, out.text).toBe(200)
        expect(Http.wire(out, PasswordRecord)).toMatchObject({ sessions: 0, enabled: true })
        // The password still works; a new one ends the sessions it made.
        expect((yield* withPassword(first, "open sesame")).status).toBe(303)
        expect((yield* record()).sessions).toBe(1)
        const changed = yield* patch(alice, page.id, {
          access: { protected: true, password: { enabled: true, value: "new words" } }
        })
        expect(changed.status, changed.text).toBe(200)
        expect((yield* record()).sessions).toBe(0)
        expect((yield* withPassword(Browser.make(server.baseUrl), "open sesame")).status).toBe(401)
        expect((yield* withPassword(Browser.make(server.baseUrl), "new words")).status).toBe(303)

        // A public page has no sign-in: it redirects to itself.
        const open = yield* created(alice, { published: true })
        const redirect = yield* Browser.make(server.baseUrl).request(`/p/${open.slug}/sign-in`)
        expect(redirect.status).toBe(303)
        expect((yield* Browser.make(server.baseUrl).request(`/p/no-such-page-here/sign-in`)).status).toBe(404)
      })
    )
  }
)
