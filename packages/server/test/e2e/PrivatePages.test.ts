/**
 * Private status pages on the public surface: the gate on every public route (HTML, JSON, history, incidents, RSS,
 * badge) for strangers, email-code viewers and password devices; feed links that open the RSS and nothing else; a new
 * password, blocking, recheck_days and session_days; a page turned public again; and the sign-in's defences (code
 * mail throttle, bounded password attempts, login CSRF).
 */
import { assert, expect } from "@effect/vitest"
import { PasswordRecord, StatusPage } from "@signalman/core/StatusPage"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Browser from "../support/Browser.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { type Person, uniqueEmail } from "../support/Identity.js"
import type * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

const PUBLIC_CACHE = "public, max-age=10, stale-while-revalidate=30"
const VIEWER_CACHE = "private, no-store"
const CSRF_COOKIE = "_sm_pv_csrf"
const FORM = { "content-type": "application/x-www-form-urlencoded" }

/** The block's server and mail catcher, and a page owner on a plan that has private pages. */
const setup = Effect.gen(function* () {
  const { server, smtp } = yield* Fixture.Fixture
  const alice = yield* Fixture.person({ plan: "founding" })
  return { server, smtp, alice }
})

type Setup = Effect.Effect.Success<typeof setup>

let slugs = 0
const uniqueSlug = () => `private-${Date.now().toString(36)}-${slugs++}`
const viewerAddress = (label: string) => uniqueEmail(label).replace("@example.com", "@viewers.example")

type Page = Pick<StatusPage, "id" | "slug">

const privateAccess = (password = "open sesame") => ({
  protected: true,
  email_code: { enabled: true, allow: ["@viewers.example"] },
  password: { enabled: true, value: password }
})

const createPage = (alice: Person, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* alice.browser.request("/api/v1/status-pages", {
      json: { slug: uniqueSlug(), name: "Acme <status>", published: true, ...body }
    })
    return Http.expectOk(reply, StatusPage, 201)
  })

const patchPage = (alice: Person, page: Page, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const reply = yield* alice.browser.request(`/api/v1/status-pages/${page.id}`, { method: "PATCH", json: body })
    expect(reply.status, reply.text).toBe(200)
  })

/** A monitor curated onto the page, so history and the component badge have something to show. */
const addComponent = (alice: Person, page: Page) =>
  Effect.gen(function* () {
    const target = yield* alice.browser.request("/api/v1/targets", {
      json: { name: "api", check: { type: "http", url: "https://api.example.com/health" } }
    })
    const id = Http.expectOk(target, Target, 201).id
    const added = yield* alice.browser.request(`/api/v1/status-pages/${page.id}/components`, {
      json: { target_id: id, public_name: "API" }
    })
    expect(added.status, added.text).toBe(201)
    return id
  })

/** Every public route of a page, by what it is. */
const routes = (page: Page, component: string) => {
  const q = `page=${page.slug}`
  return {
    html: `/p/${page.slug}`,
    status: `/api/public/v1/status?${q}`,
    history: `/api/public/v1/components/${component}/history?${q}`,
    incidents: `/api/public/v1/incidents?${q}`,
    maintenance: `/api/public/v1/maintenance?${q}`,
    rss: `/api/public/v1/incidents.rss?${q}`,
    badge: `/api/public/v1/badge.svg?${q}`,
    componentBadge: `/api/public/v1/badge.svg?${q}&component=${component}`
  }
}

const expectSignInRequired = (reply: Http.Reply, route: string) => {
  expect(reply.status, `${route}: ${reply.text.slice(0, 200)}`).toBe(401)
  expect(["no-store", VIEWER_CACHE], route).toContain(reply.headers.get("cache-control"))
  if ((reply.headers.get("content-type") ?? "").startsWith("application/json")) {
    expect(Http.envelope(reply).code, route).toBe("PAGE_SIGN_IN_REQUIRED")
  }
}

/** Opens the sign-in page (which hands out the form token) and posts one of its forms. */
const postForm = (
  browser: Browser.Browser,
  page: Page,
  form: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {}
) =>
  Effect.gen(function* () {
    if (!browser.cookies.has(CSRF_COOKIE)) {
      const opened = yield* browser.request(`/p/${page.slug}/sign-in`)
      expect(opened.status, opened.text).toBe(200)
    }
    const csrf = browser.cookies.get(CSRF_COOKIE) ?? ""
    return yield* browser.request(`/p/${page.slug}/sign-in/${form}`, {
      method: "POST",
      headers: { ...FORM, ...headers },
      body: new URLSearchParams({ csrf, ...fields }).toString()
    })
  })

const codeOf = (mail: SmtpCatcher.CaughtMail | undefined) => /Your page code: ([0-9A-Z]{6})/.exec(mail?.text ?? "")?.[1]

const signInByCode = (s: Setup, page: Page, email: string, browser = Browser.make(s.server.baseUrl)) =>
  Effect.gen(function* () {
    const before = s.smtp.mails().filter((m) => m.to === email).length
    const asked = yield* postForm(browser, page, "email", { email })
    expect(asked.status, asked.text).toBe(200)
    const mails = yield* Effect.promise(() => s.smtp.waitFor(email, before + 1))
    const code = codeOf(mails[before])
    assert(code !== undefined, `no code mailed to ${email}`)
    const done = yield* postForm(browser, page, "code", { code })
    expect(done.status, done.text).toBe(303)
    return browser
  })

const signInByPassword = (
  s: Setup,
  page: Page,
  password: string,
  browser = Browser.make(s.server.baseUrl),
  headers: Record<string, string> = {}
) => Effect.map(postForm(browser, page, "password", { password }, headers), (reply) => ({ browser, reply }))

const viewerId = (s: Setup, page: Page, email: string) =>
  Effect.map(
    s.server.sql<{
      id: string
    }>`SELECT id::text AS id FROM status_page_viewers WHERE page_id = ${page.id} AND email = ${email}`,
    (rows) => {
      const id = rows[0]?.id
      assert(id !== undefined, `no viewer ${email}`)
      return id
    }
  )

/** The viewer's own feed link and the page-password link, as the signed-in HTML page shows them. */
const feedLinkOn = (html: string) => {
  const href = /<footer><a href="([^"]+)"/.exec(html)?.[1]
  assert(href !== undefined, "no feed link on the page")
  const url = new URL(href.replace(/&amp;/g, "&"), "http://relative.invalid")
  return `${url.pathname}${url.search}`
}

Fixture.describe(
  `private status pages (${TestDatabase.kind} database)`,
  {
    env: {
      // The code mail throttle off (the throttle test has a server of its own): tests sign viewers in by code often.
      STATUS_PAGE__CODE_INTERVAL_SECS: "0",
      STATUS_PAGE__CODES_PER_HOUR: "0",
      // The longest cache window, which the first test needs; no test here waits for a window to pass, and every
      // change they make to access is meant to take effect at once, whatever the window.
      STATUS_PAGE__CACHE_SECS: "60"
    }
  },
  (it) => {
    it.effect(
      "made private: strangers 401 PAGE_SIGN_IN_REQUIRED on every route; email and password viewers 200 private, no-store; public again serves everyone",
      () =>
        Effect.gen(function* () {
          // The block's long cache window: a page made private is refused to strangers at once all the same.
          const s = yield* setup
          const { server, alice } = s
          const page = yield* createPage(alice, {})
          const component = yield* addComponent(alice, page)
          const all = routes(page, component)
          const stranger = Browser.make(server.baseUrl)

          // Public first (and the lookups cached as public).
          for (const [name, path] of Object.entries(all)) {
            const reply = yield* stranger.request(path)
            expect(reply.status, `${name}: ${reply.text.slice(0, 200)}`).toBe(200)
            expect(reply.headers.get("cache-control"), name).toBe(PUBLIC_CACHE)
          }

          yield* patchPage(alice, page, { access: privateAccess() })
          for (const [name, path] of Object.entries(all)) expectSignInRequired(yield* stranger.request(path), name)
          // The 401 says where to sign in: the HTML links it, the JSON names it.
          const html401 = yield* stranger.request(all.html)
          expect(html401.text).toContain(`<a href="/p/${page.slug}/sign-in">`)
          const json401 = Http.envelope(yield* stranger.request(all.status))
          expect(json401.details["sign_in_url"]).toMatch(new RegExp(`/p/${page.slug}/sign-in$`))
          // The page password is never taken from a URL or a header.
          expectSignInRequired(yield* stranger.request(`${all.status}&password=open%20sesame`), "status?password")
          expectSignInRequired(
            yield* stranger.request(all.rss, { headers: { authorization: "Basic b3BlbiBzZXNhbWU=" } }),
            "rss with basic auth"
          )
          expectSignInRequired(yield* stranger.request(`${all.rss}&t=open%20sesame`), "rss?t=password")

          const email = viewerAddress("v")
          const byCode = yield* signInByCode(s, page, email)
          const byPassword = yield* signInByPassword(s, page, "open sesame")
          expect(byPassword.reply.status, byPassword.reply.text).toBe(303)
          for (const [who, browser] of [
            ["email viewer", byCode],
            ["password device", byPassword.browser]
          ] as const) {
            for (const [name, path] of Object.entries(all)) {
              const reply = yield* browser.request(path)
              expect(reply.status, `${who} ${name}: ${reply.text.slice(0, 200)}`).toBe(200)
              expect(reply.headers.get("cache-control"), `${who} ${name}`).toBe(VIEWER_CACHE)
            }
          }

          // Each sees a feed link that works for them; the password device's reveals nothing of the password.
          const viewerPage = (yield* byCode.request(all.html)).text
          const id = yield* viewerId(s, page, email)
          const own = feedLinkOn(viewerPage)
          expect(own).toContain(`viewer=${id}`)
          expect(viewerPage).toContain("&amp;t=")
          expect(viewerPage).not.toContain("Acme <status>")
          const devicePage = (yield* byPassword.browser.request(all.html)).text
          const passwordLink = feedLinkOn(devicePage)
          expect(passwordLink).not.toContain("viewer=")
          expect(devicePage).not.toContain("open sesame")
          expect(devicePage).not.toContain("open%20sesame")
          for (const link of [own, passwordLink]) {
            const feed = yield* Browser.make(server.baseUrl).request(link)
            expect(feed.status, feed.text.slice(0, 200)).toBe(200)
            expect(feed.headers.get("content-type")).toMatch(/^application\/rss\+xml/)
            expect(feed.headers.get("cache-control")).toBe(VIEWER_CACHE)
          }
          // Strangers still see the page's public rendering, which the viewers' renderings never replaced.
          expectSignInRequired(yield* stranger.request(all.html), "html after viewers")

          // Turned public again: everyone, with the public header, at once.
          yield* patchPage(alice, page, { access: { protected: false } })
          for (const [name, path] of Object.entries(all)) {
            // At once: the gate reads the stored page, whatever the cached lookups still say.
            const reply = yield* stranger.request(path)
            expect(reply.status, name).toBe(200)
            expect(reply.headers.get("cache-control"), name).toBe(PUBLIC_CACHE)
            const viewer = yield* byCode.request(path)
            expect(viewer.headers.get("cache-control"), `viewer ${name}`).toBe(PUBLIC_CACHE)
          }
          expect(feedLinkOn((yield* byCode.request(all.html)).text)).toBe(`${all.rss}`)
        })
    )

    it.effect(
      "feed links open the RSS and nothing else; a new password stops the password link and password sessions, not email viewers",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { server, alice } = s
          const page = yield* createPage(alice, { access: privateAccess("first words") })
          const component = yield* addComponent(alice, page)
          const all = routes(page, component)
          const email = viewerAddress("feed")
          const viewer = yield* signInByCode(s, page, email)
          const device = (yield* signInByPassword(s, page, "first words")).browser
          const ownLink = feedLinkOn((yield* viewer.request(all.html)).text)
          const passwordLink = feedLinkOn((yield* device.request(all.html)).text)
          const query = (link: string) => link.slice(link.indexOf("?") + 1)

          const nobody = Browser.make(server.baseUrl)
          for (const link of [ownLink, passwordLink]) {
            expect((yield* nobody.request(link)).status).toBe(200)
            const params = query(link)
            // The same query on the JSON, the HTML and the badge is not a way in.
            for (const path of [
              `/api/public/v1/status?${params}`,
              `/api/public/v1/incidents?${params}`,
              `/api/public/v1/components/${component}/history?${params}`,
              `/api/public/v1/badge.svg?${params}`,
              `/p/${page.slug}?${params}`
            ]) {
              expectSignInRequired(yield* nobody.request(path), path)
            }
          }
          // A link altered, or another viewer's id under this token, is refused.
          const otherId = "01890000-0000-7000-8000-000000000000"
          expectSignInRequired(yield* nobody.request(ownLink.replace(/viewer=[^&]+/, `viewer=${otherId}`)), "other id")
          expectSignInRequired(yield* nobody.request(`${passwordLink}x`), "altered token")

          // A new password: the password link and the password devices stop; the email viewer and their link do not.
          yield* patchPage(alice, page, { access: privateAccess("second words") })
          expectSignInRequired(yield* nobody.request(passwordLink), "old password link")
          expectSignInRequired(yield* device.request(all.html), "old password device")
          expect((yield* viewer.request(all.html)).status).toBe(200)
          expect((yield* nobody.request(ownLink)).status).toBe(200)
          const again = (yield* signInByPassword(s, page, "second words")).browser
          const newLink = feedLinkOn((yield* again.request(all.html)).text)
          expect(newLink).not.toBe(passwordLink)
          expect((yield* nobody.request(newLink)).status).toBe(200)

          // The password turned off: its link and devices stop, the email viewer goes on.
          yield* patchPage(alice, page, {
            access: { ...privateAccess(), password: { enabled: false } }
          })
          expectSignInRequired(yield* nobody.request(newLink), "password link, password off")
          expectSignInRequired(yield* again.request(all.html), "password device, password off")
          expect((yield* viewer.request(all.rss)).status).toBe(200)
        })
    )

    it.effect(
      "a blocked viewer is refused at once, by session and by feed link, and cannot sign in; unblock lifts it",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { server, smtp, alice } = s
          const page = yield* createPage(alice, { access: privateAccess() })
          const component = yield* addComponent(alice, page)
          const all = routes(page, component)
          const email = viewerAddress("blocked")
          const viewer = yield* signInByCode(s, page, email)
          const link = feedLinkOn((yield* viewer.request(all.html)).text)
          const id = yield* viewerId(s, page, email)
          // A code asked for before the block is retired by it.
          const pending = Browser.make(server.baseUrl)
          expect((yield* postForm(pending, page, "email", { email })).status).toBe(200)
          const mails = yield* Effect.promise(() => smtp.waitFor(email, 2))
          const pendingCode = codeOf(mails[1])
          assert(pendingCode !== undefined)

          const blocked = yield* alice.browser.request(`/api/v1/status-pages/${page.id}/access/viewers/${id}/block`, {
            method: "POST"
          })
          expect(blocked.status, blocked.text).toBe(200)
          expectSignInRequired(yield* viewer.request(all.html), "blocked viewer, html")
          expectSignInRequired(yield* viewer.request(all.status), "blocked viewer, json")
          expectSignInRequired(yield* Browser.make(server.baseUrl).request(link), "blocked viewer's link")
          expect((yield* postForm(pending, page, "code", { code: pendingCode })).status).toBe(400)
          // Signing in again: the same answer as anyone, and no mail.
          const before = smtp.mails().filter((m) => m.to === email).length
          const asked = yield* postForm(Browser.make(server.baseUrl), page, "email", { email })
          expect(asked.status).toBe(200)
          // Another address's mail marks that the request was handled before counting.
          const witness = viewerAddress("witness")
          yield* signInByCode(s, page, witness)
          expect(smtp.mails().filter((m) => m.to === email)).toHaveLength(before)

          const unblocked = yield* alice.browser.request(
            `/api/v1/status-pages/${page.id}/access/viewers/${id}/unblock`,
            {
              method: "POST"
            }
          )
          expect(unblocked.status, unblocked.text).toBe(200)
          // The feed link works again (it is the viewer's, not the session's); the old session stays ended.
          expect((yield* Browser.make(server.baseUrl).request(link)).status).toBe(200)
          expectSignInRequired(yield* viewer.request(all.html), "old session after unblock")
          const back = yield* signInByCode(s, page, email)
          expect((yield* back.request(all.html)).status).toBe(200)
        })
    )

    it.effect(
      "recheck_days and session_days: a viewer verified too long ago, or a session too old, signs in again",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { server, alice } = s
          const page = yield* createPage(alice, {
            access: { ...privateAccess(), session_days: 30, recheck_days: 30 }
          })
          const component = yield* addComponent(alice, page)
          const all = routes(page, component)
          const email = viewerAddress("recheck")
          const viewer = yield* signInByCode(s, page, email)
          const link = feedLinkOn((yield* viewer.request(all.html)).text)
          expect((yield* viewer.request(all.html)).status).toBe(200)

          // Last verified 31 days ago (the session itself moved back too, still inside 30 days plus a margin is not
          // needed: verified_at alone decides).
          yield* server.sql`
        UPDATE status_page_viewers SET verified_at = now() - interval '31 days' WHERE page_id = ${page.id}
      `
          expectSignInRequired(yield* viewer.request(all.html), "recheck due, session")
          expectSignInRequired(yield* Browser.make(server.baseUrl).request(link), "recheck due, feed link")
          const again = yield* signInByCode(s, page, email)
          expect((yield* again.request(all.html)).status).toBe(200)
          expect((yield* Browser.make(server.baseUrl).request(link)).status).toBe(200)

          // session_days: a session started 31 days ago has ended, whatever its stored expiry says; so has a password
          // device's.
          const device = (yield* signInByPassword(s, page, "open sesame")).browser
          expect((yield* device.request(all.status)).status).toBe(200)
          yield* server.sql`
        UPDATE status_page_viewer_sessions SET created_at = now() - interval '31 days' WHERE page_id = ${page.id}
      `
          expectSignInRequired(yield* again.request(all.html), "session older than session_days")
          expectSignInRequired(yield* device.request(all.status), "password session older than session_days")

          // Shortening session_days shortens live sessions: 8 days old under session_days 7.
          const fresh = yield* signInByCode(s, page, email)
          yield* server.sql`
        UPDATE status_page_viewer_sessions SET created_at = now() - interval '8 days'
        WHERE page_id = ${page.id} AND created_at > now() - interval '1 day'
      `
          expect((yield* fresh.request(all.html)).status).toBe(200)
          yield* patchPage(alice, page, { access: { ...privateAccess(), session_days: 7, recheck_days: 30 } })
          expectSignInRequired(yield* fresh.request(all.html), "session_days shortened")
          // An expired session (stored expiry passed) is refused too.
          const last = yield* signInByCode(s, page, email)
          yield* server.sql`
        UPDATE status_page_viewer_sessions SET expires_at = now() - interval '1 second' WHERE page_id = ${page.id}
      `
          expectSignInRequired(yield* last.request(all.html), "expired session")
        })
    )

    it.effect(
      "password attempts are bounded per page and client: the eleventh wrong one is 429, the right one too",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { server, alice } = s
          const page = yield* createPage(alice, { access: privateAccess() })
          const other = yield* createPage(alice, { access: privateAccess() })
          // Failures of another client do not count against this one.
          yield* server.sql`
        INSERT INTO status_page_password_failures (id, page_id, ip_hash)
        SELECT gen_random_uuid(), ${page.id}, 'another-client' FROM generate_series(1, 20)
      `
          for (let i = 0; i < 10; i++) {
            const wrong = yield* signInByPassword(s, page, `wrong ${i}`)
            expect(wrong.reply.status, `attempt ${i + 1}`).toBe(401)
          }
          const eleventh = yield* signInByPassword(s, page, "wrong again")
          expect(eleventh.reply.status).toBe(429)
          expect(Number(eleventh.reply.headers.get("retry-after"))).toBeGreaterThan(0)
          expect(eleventh.reply.headers.get("cache-control")).toBe("no-store")
          const right = yield* signInByPassword(s, page, "open sesame")
          expect(right.reply.status).toBe(429)
          expect(
            right.reply.headers.getSetCookie().some((c) => c.startsWith("_sm_pv_") && !c.startsWith(CSRF_COOKIE))
          ).toBe(false)
          // Another page is its own count.
          expect((yield* signInByPassword(s, other, "open sesame")).reply.status).toBe(303)
          // Once the failures are older than the window, the password works again.
          yield* server.sql`
        UPDATE status_page_password_failures SET at = at - interval '16 minutes' WHERE page_id = ${page.id}
      `
          expect((yield* signInByPassword(s, page, "open sesame")).reply.status).toBe(303)
        })
    )

    it.effect(
      "without trusted proxies X-Forwarded-For is ignored: rotating it does not get past the password limit",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const page = yield* createPage(s.alice, { access: privateAccess() })
          for (let i = 0; i < 10; i++) {
            const headers = { "x-forwarded-for": `203.0.113.${i + 1}` }
            const wrong = yield* signInByPassword(s, page, `wrong ${i}`, Browser.make(s.server.baseUrl), headers)
            expect(wrong.reply.status, `attempt ${i + 1}`).toBe(401)
          }
          const headers = { "x-forwarded-for": "203.0.113.200" }
          const right = yield* signInByPassword(s, page, "open sesame", Browser.make(s.server.baseUrl), headers)
          expect(right.reply.status).toBe(429)
        })
    )

    it.effect(
      "login CSRF: a sign-in post without the form's token, or from another site, is 403 and signs nobody in",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { server, smtp, alice } = s
          const page = yield* createPage(alice, { access: privateAccess() })
          const post = (browser: Browser.Browser, form: string, body: Record<string, string>, headers = {}) =>
            browser.request(`/p/${page.slug}/sign-in/${form}`, {
              method: "POST",
              headers: { ...FORM, ...headers },
              body: new URLSearchParams(body).toString()
            })
          const noSession = (reply: Http.Reply) =>
            !reply.headers.getSetCookie().some((c) => c.startsWith("_sm_pv_") && !c.startsWith(CSRF_COOKIE))

          // The form carries the token as a hidden field, and works without JavaScript.
          const opened = Browser.make(server.baseUrl)
          const form = yield* opened.request(`/p/${page.slug}/sign-in`)
          const token = opened.cookies.get(CSRF_COOKIE)
          assert(token !== undefined)
          expect(form.text).toContain(`<input type="hidden" name="csrf" value="${token}">`)
          expect(form.text).not.toContain("<script")

          // No token, a token without its cookie, another browser's token.
          for (const [label, browser, body] of [
            ["no field", opened, { password: "open sesame" }],
            ["no cookie", Browser.make(server.baseUrl), { password: "open sesame", csrf: token }],
            ["wrong token", opened, { password: "open sesame", csrf: `${token.slice(0, -2)}xx` }]
          ] as const) {
            const reply = yield* post(browser, "password", body)
            expect(reply.status, label).toBe(403)
            expect(reply.headers.get("cache-control"), label).toBe("no-store")
            expect(reply.text, label).toContain(`href="/p/${page.slug}/sign-in"`)
            expect(noSession(reply), label).toBe(true)
          }
          // A post from another site, even with a valid token pair.
          for (const headers of [
            { origin: "https://evil.example" },
            { "sec-fetch-site": "cross-site" },
            { origin: "null" }
          ]) {
            const reply = yield* post(opened, "password", { password: "open sesame", csrf: token }, headers)
            expect(reply.status, JSON.stringify(headers)).toBe(403)
            expect(noSession(reply)).toBe(true)
          }
          // The code and email forms are guarded alike: no mail goes out.
          const email = viewerAddress("csrf")
          expect((yield* post(Browser.make(server.baseUrl), "email", { email })).status).toBe(403)
          expect((yield* post(opened, "code", { code: "ABCDEF" })).status).toBe(403)
          // Same origin with the token: signed in.
          const ok = yield* post(
            opened,
            "password",
            { password: "open sesame", csrf: token },
            { origin: server.baseUrl, "sec-fetch-site": "same-origin" }
          )
          expect(ok.status, ok.text).toBe(303)
          yield* signInByCode(s, page, viewerAddress("after"))
          expect(smtp.mails().filter((m) => m.to === email)).toHaveLength(0)
        })
    )

    it.effect(
      "subscriptions end with the way in: blocking a viewer ends theirs, a new password ends those made with it",
      () =>
        Effect.gen(function* () {
          const s = yield* setup
          const { server, smtp, alice } = s
          const page = yield* createPage(alice, { access: privateAccess() })
          const subscribe = (browser: Browser.Browser, email: string) =>
            browser.request(`/api/public/v1/subscriptions?page=${page.slug}`, { json: { email } })
          // The confirmation is the address's newest mail (a viewer also got a sign-in code).
          const mailsTo = (email: string) => smtp.mails().filter((m) => m.to === email).length
          const confirmFor = (email: string, before: number) =>
            Effect.gen(function* () {
              const mails = yield* Effect.promise(() => smtp.waitFor(email, before + 1))
              const mail = mails[before]
              const link = /https?:\/\/\S+\/subscriptions\/confirm\?token=[A-Za-z0-9_-]+/.exec(mail?.text ?? "")?.[0]
              assert(link !== undefined, `no confirmation link mailed to ${email}`)
              const url = new URL(link)
              const confirmed = yield* Http.request(`${server.baseUrl}${url.pathname}${url.search}`)
              expect(confirmed.status, confirmed.text).toBe(200)
            })
          const live = (email: string) =>
            Effect.map(
              server.sql<{ n: number }>`
              SELECT count(*)::int AS n FROM status_page_subscribers
              WHERE page_id = ${page.id} AND email = ${email} AND confirmed_at IS NOT NULL AND unsubscribed_at IS NULL
            `,
              (rows) => rows[0]?.n ?? 0
            )
          const passwordRecord = () =>
            Effect.map(alice.browser.request(`/api/v1/status-pages/${page.id}/access/password`), (reply) =>
              Http.wire(reply, PasswordRecord)
            )

          // A stranger cannot subscribe to a private page.
          const refused = yield* subscribe(Browser.make(server.baseUrl), "stranger@elsewhere.example")
          expect(refused.status).toBe(401)
          expect(Http.envelope(refused).code).toBe("PAGE_SIGN_IN_REQUIRED")

          const viewerEmail = viewerAddress("subscriber")
          const viewer = yield* signInByCode(s, page, viewerEmail)
          const viewerMails = mailsTo(viewerEmail)
          expect((yield* subscribe(viewer, viewerEmail)).status).toBe(202)
          yield* confirmFor(viewerEmail, viewerMails)

          const { browser: device, reply } = yield* signInByPassword(s, page, "open sesame")
          expect(reply.status, reply.text).toBe(303)
          const deviceEmail = uniqueEmail("device").replace("@example.com", "@elsewhere.example")
          expect((yield* subscribe(device, deviceEmail)).status).toBe(202)
          yield* confirmFor(deviceEmail, 0)

          expect(yield* live(viewerEmail)).toBe(1)
          expect(yield* live(deviceEmail)).toBe(1)
          // The password record counts what a change would end: the device's subscription, not the viewer's.
          expect((yield* passwordRecord()).subscriptions).toBe(1)

          const id = yield* viewerId(s, page, viewerEmail)
          const blocked = yield* alice.browser.request(`/api/v1/status-pages/${page.id}/access/viewers/${id}/block`, {
            method: "POST"
          })
          expect(blocked.status, blocked.text).toBe(200)
          expect(yield* live(viewerEmail)).toBe(0)
          expect(yield* live(deviceEmail)).toBe(1)

          yield* patchPage(alice, page, { access: privateAccess("a new secret") })
          expect(yield* live(deviceEmail)).toBe(0)
          expect((yield* passwordRecord()).subscriptions).toBe(0)
        })
    )
  }
)

// Settings the tests above must not have, on a server of their own: the code mail throttle at its defaults (the
// tests above mail codes to one address and page many times), and 127.0.0.1 trusted as a proxy (the test above
// without trusted proxies expects X-Forwarded-For ignored). The throttle test sends no X-Forwarded-For and counts per
// address and page, not per client; the proxy test mails no code.
Fixture.describe(
  `private status pages, code throttle and a trusted proxy (${TestDatabase.kind} database)`,
  {
    env: {
      STATUS_PAGE__CODE_INTERVAL_SECS: "60",
      STATUS_PAGE__CODES_PER_HOUR: "5",
      SERVER__TRUSTED_PROXIES: "127.0.0.1, ::1"
    }
  },
  (it) => {
    it.effect("code mails are throttled per address and page, with the same answer; the last code still works", () =>
      Effect.gen(function* () {
        // The throttle at its defaults (this block's settings).
        const s = yield* setup
        const { server, smtp, alice } = s
        const page = yield* createPage(alice, { access: privateAccess() })
        const other = yield* createPage(alice, { access: privateAccess() })
        const email = viewerAddress("throttle")
        const browser = Browser.make(server.baseUrl)
        const mailsTo = () => smtp.mails().filter((m) => m.to === email)

        const first = yield* postForm(browser, page, "email", { email })
        yield* Effect.promise(() => smtp.waitFor(email, 1))
        const firstCode = codeOf(mailsTo()[0])
        assert(firstCode !== undefined)
        // Asked again at once: the same page, no second mail.
        const second = yield* postForm(browser, page, "email", { email })
        expect(second.status).toBe(first.status)
        expect(second.text).toBe(first.text)
        // The other page is its own count: that mail comes, and marks that the throttled request was handled.
        yield* postForm(Browser.make(server.baseUrl), other, "email", { email })
        yield* Effect.promise(() => smtp.waitFor(email, 2))
        expect(mailsTo()).toHaveLength(2)
        const [throttled] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM status_page_sign_in_codes WHERE page_id = ${page.id}
      `
        expect(throttled?.n).toBe(1)
        // The code mailed first still works in the browser that asked for it.
        const done = yield* postForm(browser, page, "code", { code: firstCode })
        expect(done.status, done.text).toBe(303)

        // At most five an hour, however far apart: move each code back past the minute and ask again.
        const ask = () =>
          Effect.gen(function* () {
            yield* server.sql`
            UPDATE status_page_sign_in_codes SET created_at = created_at - interval '61 seconds'
            WHERE page_id = ${page.id}
          `
            const reply = yield* postForm(Browser.make(server.baseUrl), page, "email", { email })
            expect(reply.status).toBe(200)
          })
        for (let i = 0; i < 6; i++) yield* ask()
        const [hour] = yield* server.sql<{ n: number }>`
        SELECT count(*)::int AS n FROM status_page_sign_in_codes WHERE page_id = ${page.id}
      `
        expect(hour?.n).toBe(5)
      })
    )

    it.effect("behind a trusted proxy the password limit counts the client X-Forwarded-For names, not the proxy", () =>
      Effect.gen(function* () {
        // The test connects from 127.0.0.1, which this block's server trusts as its proxy.
        const s = yield* setup
        const page = yield* createPage(s.alice, { access: privateAccess() })
        const from = (client: string) => ({ "x-forwarded-for": `198.51.100.99, ${client}` })
        const attempt = (password: string, headers: Record<string, string>) =>
          Effect.map(signInByPassword(s, page, password, Browser.make(s.server.baseUrl), headers), (r) => r.reply)
        for (let i = 0; i < 10; i++) {
          expect((yield* attempt(`wrong ${i}`, from("203.0.113.7"))).status, `attempt ${i + 1}`).toBe(401)
        }
        expect((yield* attempt("open sesame", from("203.0.113.7"))).status).toBe(429)
        // Another client behind the same proxy, and the proxy's own address, are not locked out.
        expect((yield* attempt("open sesame", from("203.0.113.8"))).status).toBe(303)
        expect((yield* attempt("open sesame", {})).status).toBe(303)
        // The nearest untrusted hop is the client: what the client itself wrote further left does not count.
        expect((yield* attempt("open sesame", { "x-forwarded-for": "203.0.113.8, 203.0.113.7" })).status).toBe(429)
      })
    )
  }
)
