/**
 * The public status surface over HTTP: the JSON endpoints, the HTML page and incident pages, the feed and the
 * badge; cache headers; the uniform 404 for unknown, unpublished and foreign pages, monitors and incidents; 401 on a
 * private page; custom-domain Host routing and `/status`; `?fragment=1`; no check configuration on the wire; and
 * markup in names, incident text and branding escaped everywhere. Pages are arranged with SQL (migration 0013).
 */
import * as Http from "node:http"
import { assert, expect } from "@effect/vitest"
import { IncidentDetail } from "@signalman/core/api/Incidents"
import { MaintenanceWindowResource } from "@signalman/core/api/Maintenance"
import { ComponentHistory, PublicIncidentPage, PublicStatus } from "@signalman/core/PublicStatus"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { XMLParser, XMLValidator } from "fast-xml-parser"
import { uuidv7 } from "../../src/infra/Ids.js"
import * as Fixture from "../support/Fixture.js"
import { decode, envelope, request as fetchReply, type Reply, wire } from "../support/Http.js"
import type { Person } from "../support/Identity.js"
import * as TestDatabase from "../support/TestDatabase.js"

const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>`
const PUBLIC_CACHE = "public, max-age=10, stale-while-revalidate=30"
const FORBIDDEN = ["url", "headers", "basic_auth", "bearer_token", "check", "check_spec", "credentials"]

/** The block's server, and alice signed in with her org. */
const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person({ label: "alice" })
  return { server, alice, org: alice.org.id, account: alice.accountId }
})

/** The public status document as sent (every key, so the forbidden ones can be looked for), once decoded. */
const statusDoc = (reply: Reply) => wire(reply, PublicStatus)

// The feed and the badge are XML outside the JSON contract: the fields the tests read, as the parser gives them.
const RssDoc = Schema.Struct({
  rss: Schema.Struct({
    "@_version": Schema.String,
    channel: Schema.Struct({
      title: Schema.String,
      language: Schema.String,
      item: Schema.Struct({
        title: Schema.String,
        link: Schema.String,
        guid: Schema.Struct({ "#text": Schema.String }),
        description: Schema.String
      })
    })
  })
})
const SvgDoc = Schema.Struct({ svg: Schema.Struct({ "@_xmlns": Schema.String, title: Schema.String }) })

type Setup = Effect.Effect.Success<typeof setup>

const createTarget = (setup: { readonly alice: Person }, name: string, extra: Record<string, unknown> = {}) =>
  Effect.map(
    setup.alice.browser.request("/api/v1/targets", {
      json: {
        name,
        check: {
          type: "http",
          url: `https://${name}.internal.example.com/health?token=secret`,
          headers: { "x-api-key": "top-secret" },
          bearer_token: "bearer-secret"
        },
        enabled: false,
        ...extra
      }
    }),
    (reply) => {
      expect(reply.status, reply.text).toBe(201)
      return decode(reply, Target).id
    }
  )

interface PageOptions {
  readonly slug: string
  readonly name?: string
  readonly published?: boolean
  readonly locale?: string
  readonly customDomain?: string | null
  readonly branding?: Record<string, unknown>
  readonly access?: Record<string, unknown> | null
}

const createPage = (
  s: Setup,
  options: PageOptions,
  components: ReadonlyArray<readonly [string, Record<string, string | null>]>
) =>
  Effect.gen(function* () {
    const id = uuidv7()
    yield* s.server.sql`
      INSERT INTO status_pages (id, org_id, account_id, slug, name, published, public_locale, custom_domain, branding,
        access, write_source)
      VALUES (${id}, ${s.org}, ${s.account}, ${options.slug}, ${options.name ?? "Acme status"},
        ${options.published ?? true}, ${options.locale ?? "en"}, ${options.customDomain ?? null},
        ${JSON.stringify(options.branding ?? { primary_color: "#2563eb", theme: "auto", hide_powered_by: false })}::jsonb,
        ${options.access === undefined || options.access === null ? null : JSON.stringify(options.access)}::jsonb, 'api')
    `
    let order = 0
    for (const [target, fields] of components) {
      yield* s.server.sql`
        INSERT INTO status_page_components (page_id, target_id, public_name, public_description, public_group, sort_order)
        VALUES (${id}, ${target}, ${fields["public_name"] ?? null}, ${fields["public_description"] ?? null},
          ${fields["public_group"] ?? null}, ${order++})
      `
    }
    return id
  })

const declare = (s: Setup, body: Record<string, unknown>) =>
  Effect.map(s.alice.browser.request("/api/v1/incidents", { json: body }), (reply) => {
    expect(reply.status, reply.text).toBe(201)
    return decode(reply, IncidentDetail).id
  })

const get = (s: Setup, path: string) => fetchReply(`${s.server.baseUrl}${path}`)

/** A request with a Host header of our choosing (fetch does not let one be set). */
const withHost = (s: Setup, host: string, path: string) =>
  Effect.promise(
    () =>
      new Promise<Reply>((resolve, reject) => {
        const url = new URL(s.server.baseUrl)
        const req = Http.request(
          { host: url.hostname, port: url.port, path, method: "GET", headers: { host }, timeout: 20_000 },
          (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("end", () => {
              const text = Buffer.concat(chunks).toString("utf8")
              let json: unknown
              try {
                json = JSON.parse(text)
              } catch {
                json = undefined
              }
              const headers = new Headers()
              for (const [k, v] of Object.entries(res.headers)) if (typeof v === "string") headers.set(k, v)
              resolve({ status: res.statusCode ?? 0, headers, text, json })
            })
          }
        )
        req.on("error", reject)
        req.end()
      })
  )

const keysOf = (value: unknown, into: Set<string> = new Set()): Set<string> => {
  if (Array.isArray(value)) for (const v of value) keysOf(v, into)
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      into.add(k)
      keysOf(v, into)
    }
  }
  return into
}

const expectNotFound = (reply: Reply) => {
  expect(reply.status, reply.text).toBe(404)
  expect(envelope(reply).code).toBe("NOT_FOUND")
}

// Every request sees what the test just arranged (no public cache); the cache has blocks of its own below.
const uncached = { env: { STATUS_PAGE__CACHE_SECS: "0" } }

Fixture.describe(`public status surface (${TestDatabase.kind} database)`, uncached, (it) => {
  it.effect("status JSON: components, incidents with impact, maintenance, uptime; no check config on the wire", () =>
    Effect.gen(function* () {
      const s = yield* setup
      const api = yield* createTarget(s, "api")
      const db = yield* createTarget(s, "db")
      const hidden = yield* createTarget(s, "hidden")
      yield* createPage(s, { slug: "acme" }, [
        [api, { public_name: "Public API", public_group: "Core" }],
        [db, { public_description: "Primary database" }]
      ])
      // A result an hour ago makes the API component probed (time-based uptime needs a weight).
      yield* s.server.sql`
        INSERT INTO check_results (target_id, region, checked_at, status, duration_ms, weight_secs)
        VALUES (${api}, 'local', ${new Date(Date.now() - 3_600_000)}, 'up', 12, 60)
      `
      const open = yield* declare(s, { title: "internal: db on fire", impact: "major_outage", components: [db] })
      yield* s.server.sql`UPDATE incidents SET public_title = 'Database unavailable' WHERE id = ${open}`
      const invisible = yield* declare(s, { title: "hidden only", impact: "degraded", components: [hidden] })
      const windowReply = yield* s.alice.browser.request("/api/v1/maintenance", {
        json: {
          title: "Upgrade",
          starts_at: new Date(Date.now() + 86_400_000).toISOString(),
          ends_at: new Date(Date.now() + 90_000_000).toISOString(),
          components: [api, hidden]
        }
      })
      expect(windowReply.status, windowReply.text).toBe(201)

      const reply = yield* get(s, "/api/public/v1/status?page=acme")
      expect(reply.status, reply.text).toBe(200)
      expect(reply.headers.get("cache-control")).toBe(PUBLIC_CACHE)
      expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
      const body = statusDoc(reply)
      expect(body.page).toMatchObject({ name: "Acme status", slug: "acme", locale: "en", powered_by: true })
      expect(body.status).toBe("major_outage")
      expect(body.components.map((c) => c.name)).toEqual(["Public API", "db"])
      expect(body.components[0]).toMatchObject({ group: "Core", status: "operational", uptime_pct: 100 })
      expect(body.components[1]).toMatchObject({
        description: "Primary database",
        status: "major_outage",
        uptime_pct: null
      })
      expect(body.incidents.map((i) => i.id)).toEqual([open])
      expect(body.incidents[0]).toMatchObject({
        title: "Database unavailable",
        impact: "major_outage",
        severity: null
      })
      expect(body.upcoming_maintenance[0]?.components).toEqual([api])
      expect(body.recent_maintenance).toEqual([])
      for (const key of FORBIDDEN) expect(keysOf(body).has(key), key).toBe(false)
      expect(reply.text).not.toContain("secret")
      expect(reply.text).not.toContain("internal")

      // The same promises on every other answer.
      for (const path of [
        "/api/public/v1/incidents?page=acme",
        `/api/public/v1/incidents/${open}?page=acme`,
        "/api/public/v1/maintenance?page=acme",
        "/api/public/v1/maintenance/past?page=acme",
        `/api/public/v1/components/${api}/history?page=acme`,
        "/p/acme",
        `/p/acme/incidents/${open}`,
        "/api/public/v1/incidents.rss?page=acme",
        "/api/public/v1/badge.svg?page=acme"
      ]) {
        const r = yield* get(s, path)
        expect(r.status, `${path} ${r.text.slice(0, 200)}`).toBe(200)
        expect(r.headers.get("cache-control"), path).toBe(PUBLIC_CACHE)
        expect(r.text, path).not.toContain("secret")
        expect(r.text, path).not.toContain("internal")
        if (r.json !== undefined)
          for (const key of FORBIDDEN) expect(keysOf(r.json).has(key), `${path} ${key}`).toBe(false)
      }

      // Monitors and incidents not on the page are invisible: 404 on direct lookups.
      expectNotFound(yield* get(s, `/api/public/v1/components/${hidden}/history?page=acme`))
      expectNotFound(yield* get(s, `/api/public/v1/incidents/${invisible}?page=acme`))
      expectNotFound(yield* get(s, `/api/public/v1/badge.svg?page=acme&component=${hidden}`))
      expect((yield* get(s, `/p/acme/incidents/${invisible}`)).status).toBe(404)
      const list = wire(yield* get(s, "/api/public/v1/incidents?page=acme"), PublicIncidentPage)
      expect(list.total).toBe(1)
      expect(list.data.map((i) => i.id)).toEqual([open])
    })
  )

  it.effect("history: days 1 to 365 (default 90), one bar a day, refusals", () =>
    Effect.gen(function* () {
      const s = yield* setup
      const api = yield* createTarget(s, "api")
      yield* createPage(s, { slug: "hist" }, [[api, {}]])
      const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000)
      yield* s.server.sql`
        INSERT INTO result_rollups_daily (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
          down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
          first_byte_n, histogram)
        VALUES (${api}, 'local', ${today}, 4, 3, 0, 1, 0, 180, 60, 0, 0, 0, 0, 0, 0, 0, 0, 0, '{}')
      `
      const reply = yield* get(s, `/api/public/v1/components/${api}/history?page=hist`)
      expect(reply.status, reply.text).toBe(200)
      const body = wire(reply, ComponentHistory)
      expect(body.days).toBe(90)
      expect(body.bars).toHaveLength(90)
      expect(body.bars[89]).toMatchObject({
        date: today.toISOString().slice(0, 10),
        status: "operational",
        uptime_pct: 75
      })
      expect(body.bars[0]).toMatchObject({ status: "no_data", uptime_pct: null })
      const year = decode(
        yield* get(s, `/api/public/v1/components/${api}/history?page=hist&days=365`),
        ComponentHistory
      )
      expect(year.bars).toHaveLength(365)
      const one = decode(yield* get(s, `/api/public/v1/components/${api}/history?page=hist&days=1`), ComponentHistory)
      expect(one.bars).toHaveLength(1)
      for (const days of ["0", "366", "x", "1.5"]) {
        const bad = yield* get(s, `/api/public/v1/components/${api}/history?page=hist&days=${days}`)
        expect(bad.status, days).toBe(400)
        expect(envelope(bad).code).toBe("VALIDATION_FAILED")
      }
      expectNotFound(yield* get(s, "/api/public/v1/components/not-a-uuid/history?page=hist"))
    })
  )

  it.effect("HTML, feed and badge: escaped markup, lang, CSP without inline script, RSS and SVG well formed", () =>
    Effect.gen(function* () {
      const s = yield* setup
      const api = yield* createTarget(s, "api")
      yield* createPage(
        s,
        {
          slug: "xss",
          name: `Acme ${XSS}`,
          locale: "de",
          branding: { primary_color: `red;}</style>${XSS}`, theme: `dark"><script>`, hide_powered_by: true }
        },
        [[api, { public_name: `API ${XSS}`, public_description: XSS, public_group: XSS }]]
      )
      const incident = yield* declare(s, { title: "t", impact: "partial_outage", components: [api] })
      yield* s.server
        .sql`UPDATE incidents SET public_title = ${`Title ${XSS}`}, public_description = ${XSS} WHERE id = ${incident}`
      yield* s.server.sql`
        INSERT INTO incident_updates (id, incident_id, kind, phase, message) VALUES (${uuidv7()}, ${incident}, 'update', 'identified', ${`Update ${XSS}`})
      `
      for (const path of ["/p/xss", `/p/xss/incidents/${incident}`, "/p/xss?fragment=1"]) {
        const reply = yield* get(s, path)
        expect(reply.status, path).toBe(200)
        expect(reply.text, path).not.toContain("<script>alert")
        expect(reply.text, path).not.toContain("<img src=x")
        expect(reply.text, path).not.toContain("</style><script")
        expect(reply.text, path).toContain("&lt;script&gt;")
        const csp = reply.headers.get("content-security-policy") ?? ""
        expect(csp).toContain("script-src 'self'")
        expect(csp).not.toContain("'unsafe-inline' 'self'")
        expect(csp.split(";").find((d) => d.trim().startsWith("script-src"))).not.toContain("unsafe-inline")
      }
      const html = (yield* get(s, "/p/xss")).text
      expect(html).toContain('<html lang="de">')
      expect(html).toContain("Teilweiser Ausfall")
      // A free plan has no white label: the badge shows whatever hide_powered_by says.
      expect(html).toContain("Bereitgestellt von Signalman")
      expect(html).toContain("<main")
      expect(html).toContain('class="bars"')
      expect((html.match(/<li( class=b-[a-z])? title="/g) ?? []).length).toBe(90)
      const incidentHtml = (yield* get(s, `/p/xss/incidents/${incident}`)).text
      expect(incidentHtml).toContain("Update &lt;script&gt;")
      expect(incidentHtml).toContain("Ursache erkannt")

      const rss = yield* get(s, "/api/public/v1/incidents.rss?page=xss")
      expect(rss.headers.get("content-type")).toBe("application/rss+xml; charset=utf-8")
      expect(XMLValidator.validate(rss.text)).toBe(true)
      const parsed = Schema.decodeUnknownSync(RssDoc)(new XMLParser({ ignoreAttributes: false }).parse(rss.text))
      expect(parsed.rss["@_version"]).toBe("2.0")
      expect(parsed.rss.channel.language).toBe("de")
      expect(parsed.rss.channel.item.title).toBe(`Title ${XSS}`)
      expect(parsed.rss.channel.item.link).toContain(`/p/xss/incidents/${incident}`)
      expect(parsed.rss.channel.item.guid["#text"]).toBe(incident)
      expect(parsed.rss.channel.item.description).toContain(`Update ${XSS}`)

      for (const path of ["/api/public/v1/badge.svg?page=xss", `/api/public/v1/badge.svg?page=xss&component=${api}`]) {
        const badge = yield* get(s, path)
        expect(badge.status, path).toBe(200)
        expect(badge.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8")
        expect(XMLValidator.validate(badge.text), path).toBe(true)
        const svg = Schema.decodeUnknownSync(SvgDoc)(new XMLParser({ ignoreAttributes: false }).parse(badge.text))
        expect(svg.svg["@_xmlns"]).toBe("http://www.w3.org/2000/svg")
        expect(svg.svg.title).toContain(XSS)
        expect(badge.text).not.toContain("<script>")
      }
    })
  )
})

// `/status` and the bare API answer from every published page of the server: a server with only this test's.
Fixture.describe(`public status with no other page (${TestDatabase.kind} database)`, uncached, (it) => {
  it.effect("unknown, unpublished and missing pages are 404 everywhere; a private page is 401", () =>
    Effect.gen(function* () {
      const s = yield* setup
      const api = yield* createTarget(s, "api")
      yield* createPage(s, { slug: "draft", published: false, customDomain: "draft.example.org" }, [[api, {}]])
      yield* createPage(
        s,
        {
          slug: "secret-page",
          // As the management API stores it: a private page whose way in is the email code.
          access: {
            protected: true,
            email_code: { enabled: true, allow: ["@example.com"] },
            session_days: 7,
            recheck_days: null,
            password: { enabled: false }
          }
        },
        [[api, {}]]
      )
      for (const page of ["nope", "draft"]) {
        for (const path of [
          "/api/public/v1/status",
          "/api/public/v1/incidents",
          "/api/public/v1/maintenance",
          "/api/public/v1/maintenance/past",
          `/api/public/v1/components/${api}/history`,
          "/api/public/v1/incidents.rss",
          "/api/public/v1/badge.svg"
        ]) {
          const reply = yield* get(s, `${path}?page=${page}`)
          expectNotFound(reply)
          expect(reply.headers.get("cache-control")).toBe("no-store")
        }
        expect((yield* get(s, `/p/${page}`)).status).toBe(404)
      }
      expectNotFound(yield* get(s, "/api/public/v1/status"))
      const onHost = yield* withHost(s, "draft.example.org", "/")
      expect(onHost.status).not.toBe(200)
      const priv = yield* get(s, "/api/public/v1/status?page=secret-page")
      expect(priv.status).toBe(401)
      expect(envelope(priv).code).toBe("PAGE_SIGN_IN_REQUIRED")
      expect((yield* get(s, "/api/public/v1/incidents.rss?page=secret-page")).status).toBe(401)
      expect((yield* get(s, "/p/secret-page")).status).toBe(401)
      // /status shows the only published page (here the private one), and nothing once there are two.
      expect((yield* get(s, "/status")).status).toBe(401)
      yield* createPage(s, { slug: "second" }, [[api, {}]])
      expect((yield* get(s, "/status")).status).toBe(404)
    })
  )
})

// `/status` serves the only published page of the server, and the service's own `/` is checked against it.
Fixture.describe(`public status on a custom domain (${TestDatabase.kind} database)`, uncached, (it) => {
  it.effect("custom domain: / and /incidents/{id} serve the page, /status redirects, the API needs no ?page", () =>
    Effect.gen(function* () {
      const s = yield* setup
      const api = yield* createTarget(s, "api")
      yield* createPage(s, { slug: "branded", name: "Branded", customDomain: "Status.Example.COM" }, [[api, {}]])
      const incident = yield* declare(s, { title: "x", impact: "degraded", components: [api] })
      const home = yield* withHost(s, "status.example.com:443", "/")
      expect(home.status, home.text).toBe(200)
      expect(home.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(home.text).toContain("Branded")
      expect(home.headers.get("cache-control")).toBe(PUBLIC_CACHE)
      expect(home.text).toContain(`href="/incidents/${incident}"`)
      const fragment = yield* withHost(s, "status.example.com", "/?fragment=1")
      expect(fragment.status).toBe(200)
      expect(fragment.text).not.toContain("<html")
      expect(fragment.text).toContain('id="status"')
      const page = yield* withHost(s, "status.example.com", `/incidents/${incident}`)
      expect(page.status).toBe(200)
      expect((yield* withHost(s, "status.example.com", `/incidents/${uuidv7()}`)).status).toBe(404)
      const status = yield* withHost(s, "status.example.com", "/status")
      expect(status.status).toBe(301)
      expect(status.headers.get("location")).toBe("/")
      const json = yield* withHost(s, "status.example.com", "/api/public/v1/status")
      expect(json.status, json.text).toBe(200)
      expect(statusDoc(json).page.slug).toBe("branded")
      const feed = yield* withHost(s, "status.example.com", "/api/public/v1/incidents.rss")
      expect(feed.status).toBe(200)
      expect(feed.text).toContain(`https://Status.Example.COM/incidents/${incident}`)
      // The service's own host keeps its dashboard at /.
      const own = yield* get(s, "/")
      expect(own.text).not.toContain("Branded")
      // /status on a single-page instance serves that page.
      const single = yield* get(s, "/status")
      expect(single.status).toBe(200)
      expect(single.text).toContain("Branded")
      expect((yield* get(s, `/status/incidents/${incident}`)).status).toBe(200)
    })
  )
})

// A minute's window: changes must show at once whatever it is.
Fixture.describe(
  `public status cached for a minute (${TestDatabase.kind} database)`,
  { env: { STATUS_PAGE__CACHE_SECS: "60" } },
  (it) => {
    it.effect("an owner's change through the API shows at once, whatever the window: name, slug, components", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { alice } = s
        const api = yield* createTarget(s, "api")
        const db = yield* createTarget(s, "db")
        const id = yield* createPage(s, { slug: "live", name: "Before" }, [[api, { public_name: "API" }]])
        const status = (slug: string) => get(s, `/api/public/v1/status?page=${slug}`)
        const first = yield* status("live")
        expect(statusDoc(first).page.name).toBe("Before")
        // Cached now, in the lookups and the snapshot, for a minute; and a lookup of the new slug cached empty.
        expect((yield* get(s, "/p/live")).status).toBe(200)
        expect((yield* status("renamed")).status).toBe(404)

        const patched = yield* alice.browser.request(`/api/v1/status-pages/${id}`, {
          method: "PATCH",
          json: { name: "After", slug: "renamed" }
        })
        expect(patched.status, patched.text).toBe(200)
        expect((yield* status("live")).status).toBe(404)
        expect((yield* get(s, "/p/live")).status).toBe(404)
        const renamed = yield* status("renamed")
        expect(renamed.status, renamed.text).toBe(200)
        expect(statusDoc(renamed).page.name).toBe("After")
        expect((yield* get(s, "/p/renamed")).text).toContain("After")

        const added = yield* alice.browser.request(`/api/v1/status-pages/${id}/components`, {
          json: { target_id: db, public_name: "Database" }
        })
        expect(added.status, added.text).toBe(201)
        expect(statusDoc(yield* status("renamed")).components.map((c) => c.name)).toEqual(["API", "Database"])
        const removed = yield* alice.browser.request(`/api/v1/status-pages/${id}`, { method: "DELETE" })
        expect(removed.status, removed.text).toBe(204)
        expect((yield* status("renamed")).status).toBe(404)
        expect((yield* get(s, "/p/renamed")).status).toBe(404)
      })
    )

    it.effect("an account scheduled for deletion has no public pages, at once; restoring brings them back", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const api = yield* createTarget(s, "api")
        yield* createPage(s, { slug: "leaving", name: "Leaving" }, [[api, {}]])
        const paths = ["/p/leaving", "/api/public/v1/status?page=leaving", "/api/public/v1/incidents.rss?page=leaving"]
        for (const path of paths) expect((yield* get(s, path)).status, path).toBe(200)
        const deleted = yield* s.alice.browser.request("/api/v1/me", { method: "DELETE" })
        expect(deleted.status, deleted.text).toBe(200)
        for (const path of paths) expect((yield* get(s, path)).status, path).toBe(404)
        const subscribed = yield* s.alice.browser.request("/api/public/v1/subscriptions?page=leaving", {
          json: { email: "someone@example.com" }
        })
        expect(subscribed.status, subscribed.text).toBe(404)
        const restored = yield* s.alice.browser.request("/api/v1/me/restore", { method: "POST" })
        expect(restored.status, restored.text).toBe(200)
        for (const path of paths) expect((yield* get(s, path)).status, path).toBe(200)
      })
    )
  }
)

// A minute's window and public narration on the plan (set before anyone reads the plan, so no cache holds it).
Fixture.describe(
  `public status narrated (${TestDatabase.kind} database)`,
  {
    env: { STATUS_PAGE__CACHE_SECS: "60" },
    sql: ["UPDATE plans SET incident_narration_enabled = true WHERE id = 'free'"]
  },
  (it) => {
    it.effect(
      "narration shows at once, whatever the window: incident updates, public fields and resolve, maintenance windows and their updates",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { alice } = s
          const api = yield* createTarget(s, "api")
          const db = yield* createTarget(s, "db")
          yield* createPage(s, { slug: "narrated" }, [[api, { public_name: "API" }]])
          const write = (path: string, method: string, json: unknown) =>
            Effect.map(alice.browser.request(path, { method, json }), (reply) => {
              expect(reply.status, `${method} ${path}: ${reply.text}`).toBeLessThan(300)
              return reply
            })
          const incident = decode(
            yield* write("/api/v1/incidents", "POST", {
              title: "API errors",
              public_title: "Elevated errors",
              impact: "partial_outage",
              components: [api]
            }),
            IncidentDetail
          ).id
          const text = (path: string) =>
            Effect.map(get(s, path), (reply) => {
              expect(reply.status, `${path}: ${reply.text}`).toBe(200)
              return reply.text
            })
          /** Every public surface read, so each is cached for the minute; after a write, what each says then. */
          const read = Effect.all({
            json: text("/api/public/v1/status?page=narrated"),
            incident: text(`/api/public/v1/incidents/${incident}?page=narrated`),
            html: text("/p/narrated"),
            incidentHtml: text(`/p/narrated/incidents/${incident}`),
            rss: text("/api/public/v1/incidents.rss?page=narrated"),
            maintenance: text("/api/public/v1/maintenance?page=narrated")
          })

          const before = yield* read
          expect(before.json).toContain("Elevated errors")
          expect(before.rss).not.toContain("Found the cause")

          yield* write(`/api/v1/incidents/${incident}/updates`, "POST", {
            phase: "identified",
            message: "Found the cause"
          })
          const updated = yield* read
          for (const name of ["incident", "html", "incidentHtml", "rss"] as const) {
            expect(updated[name], name).toContain("Found the cause")
          }

          yield* write(`/api/v1/incidents/${incident}`, "PATCH", { public_title: "Slow API responses" })
          const renamed = yield* read
          for (const name of ["json", "incident", "html", "incidentHtml", "rss"] as const) {
            expect(renamed[name], name).toContain("Slow API responses")
            expect(renamed[name], name).not.toContain("Elevated errors")
          }

          const hour = 3_600_000
          const upgrade = decode(
            yield* write("/api/v1/maintenance", "POST", {
              title: "Database upgrade",
              starts_at: new Date(Date.now() + hour).toISOString(),
              ends_at: new Date(Date.now() + 2 * hour).toISOString(),
              components: [api]
            }),
            MaintenanceWindowResource
          ).id
          const scheduled = yield* read
          for (const name of ["json", "html", "maintenance"] as const) {
            expect(scheduled[name], name).toContain("Database upgrade")
          }

          yield* write(`/api/v1/maintenance/${upgrade}/updates`, "POST", { message: "Backups verified" })
          expect((yield* read).maintenance).toContain("Backups verified")
          yield* write(`/api/v1/maintenance/${upgrade}`, "PATCH", { title: "Database upgrade to 16" })
          expect((yield* read).html).toContain("Database upgrade to 16")
          // Moved off the page's monitors: the window leaves the page, so the edit's former monitors count too.
          yield* write(`/api/v1/maintenance/${upgrade}`, "PATCH", { components: [db] })
          expect((yield* read).maintenance).not.toContain("Database upgrade")
          yield* write(`/api/v1/maintenance/${upgrade}`, "PATCH", { components: [api] })
          expect((yield* read).maintenance).toContain("Database upgrade to 16")
          yield* write(`/api/v1/maintenance/${upgrade}`, "DELETE", undefined)
          const cancelled = yield* read
          for (const name of ["json", "html", "maintenance"] as const) {
            expect(cancelled[name], name).not.toContain("Database upgrade")
          }

          yield* write(`/api/v1/incidents/${incident}/resolve`, "POST", undefined)
          const resolved = statusDoc(yield* get(s, "/api/public/v1/status?page=narrated"))
          expect(resolved.incidents.find((i) => i.id === incident)?.status).toBe("resolved")
        })
    )
  }
)

Fixture.describe(
  `public status snapshot window (${TestDatabase.kind} database)`,
  { env: { STATUS_PAGE__CACHE_SECS: "2" } },
  (it) => {
    it.effect("the snapshot is reused within its window: a change shows once the window has passed", () =>
      Effect.gen(function* () {
        const s = yield* setup
        const { server } = s
        const api = yield* createTarget(s, "api")
        yield* createPage(s, { slug: "cached", name: "Before" }, [[api, {}]])
        const first = statusDoc(yield* get(s, "/api/public/v1/status?page=cached"))
        yield* server.sql`UPDATE status_pages SET name = 'After' WHERE slug = 'cached'`
        const again = statusDoc(yield* get(s, "/api/public/v1/status?page=cached"))
        // Within the window (unless the machine stalled past it) the same snapshot answers.
        if (Date.parse(again.generated_at) === Date.parse(first.generated_at))
          assert.strictEqual(again.page.name, "Before")
        const deadline = Date.now() + 15_000
        let name = again.page.name
        while (name !== "After" && Date.now() < deadline) {
          yield* Effect.sleep("100 millis")
          name = statusDoc(yield* get(s, "/api/public/v1/status?page=cached")).page.name
        }
        assert.strictEqual(name, "After")
      })
    )
  }
)
