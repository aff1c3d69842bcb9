/**
 * Signing in by magic link, with mail caught by a real SMTP server: the link, the code, the refusals.
 */
import { assert, expect } from "@effect/vitest"
import { ApiToken, CreatedApiToken, Me, Sent, SignedIn } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Browser from "../support/Browser.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

// These tests sign in by hand, not through Fixture.person: the flow itself is what they check.
type Env = Fixture.Running

/** `GET /api/v1/me/api-tokens`: the contract declares its answer inline (api/Me.ts), so it is spelt here. */
const TokenList = Schema.Struct({ data: Schema.Array(ApiToken) })

let n = 0
const address = (label: string) => `${label}-${Date.now()}-${n++}@example.com`

const requestLink = (browser: Browser.Browser, email: string, extra: Record<string, string> = {}) =>
  browser.request("/auth/magic-link/request", { json: { email, ...extra } })

const mailFor = (env: Env, email: string, count = 1) =>
  Effect.promise(() => env.smtp.waitFor(email, count)).pipe(
    Effect.map((mails) => {
      const mail = mails[count - 1]
      if (mail === undefined) throw new Error(`no mail ${count} for ${email}`)
      return SmtpCatcher.magicLinkOf(mail)
    })
  )

/** The path and query of the mailed link, for the browser's own base URL. */
const pathOf = (link: string) => {
  const url = new URL(link)
  return `${url.pathname}${url.search}`
}

Fixture.describe(`magic-link sign-in (${TestDatabase.kind} database)`, (it) => {
  it.effect("a new address signs in by the mailed link, mints a token and calls /me with it", () =>
    Effect.gen(function* () {
      const env = yield* Fixture.Fixture
      const browser = Browser.make(env.server.baseUrl)
      const email = address("alice")
      const asked = yield* requestLink(browser, email)
      expect(asked.status).toBe(200)
      expect(Http.wire(asked, Sent)).toEqual({ sent: true })
      const { link } = yield* mailFor(env, email)
      // The link is on the public base URL, which by default is this host at the port the server bound.
      expect(new URL(link).port).toBe(new URL(env.server.baseUrl).port)
      expect(new URL(link).pathname).toBe("/auth/magic-link/verify")

      const verified = yield* browser.request(pathOf(link))
      expect(verified.status).toBe(303)
      expect(verified.headers.get("location")).toBe("/")
      const cookie = verified.headers.getSetCookie().find((c) => c.startsWith("_sm_session="))
      assert.isDefined(cookie)
      expect(cookie).toMatch(/^_sm_session=[A-Za-z0-9_-]{43};/)
      expect(cookie).toContain("HttpOnly")
      expect(cookie).toContain("Secure")
      expect(cookie).toContain("SameSite=Lax")

      const me = yield* browser.request("/api/v1/me")
      expect(me.status).toBe(200)
      const body = Http.decode(me, Me)
      expect(body.email).toBe(email)
      expect(body.email_verified).toBe(true)
      expect(body.orgs).toHaveLength(1)
      expect(body.orgs[0]?.role).toBe("owner")
      expect(body.auth.kind).toBe("session")

      const created = yield* browser.request("/api/v1/me/api-tokens", {
        json: { name: "deploys", scopes: ["targets:read", "not-a-scope"], expires_in_days: 30 }
      })
      expect(created.status).toBe(201)
      const token = Http.decode(created, CreatedApiToken)
      expect(token.token).toMatch(/^sm_live_[A-Za-z0-9_-]{43}$/)
      expect(token.prefix).toBe(token.token.slice(0, 16))
      expect(token.scopes).toEqual(["targets:read"])
      expect(created.headers.get("cache-control")).toBe("no-store")

      const viaToken = yield* Http.request(`${env.server.baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${token.token}` }
      })
      expect(viaToken.status).toBe(200)
      expect(Http.decode(viaToken, Me).auth).toEqual({
        kind: "token",
        scopes: ["targets:read"]
      })
      expect(viaToken.headers.get("cache-control")).toBe("private, max-age=10")

      const listed = yield* browser.request("/api/v1/me/api-tokens")
      expect(JSON.stringify(listed.json)).not.toContain(token.token)
      expect(Http.decode(listed, TokenList).data[0]?.prefix).toBe(token.prefix)
    })
  )

  it.effect("the code signs in only in the browser that asked, with one attempt; the link survives a miss", () =>
    Effect.gen(function* () {
      const env = yield* Fixture.Fixture
      const asker = Browser.make(env.server.baseUrl)
      const other = Browser.make(env.server.baseUrl)
      const email = address("bob")
      yield* requestLink(asker, email)
      const { code, link } = yield* mailFor(env, email)
      expect(asker.cookies.get("_sm_ml_code")).toMatch(/^[A-Za-z0-9_-]{43}$/)

      // Another browser holds no binding: the right code is refused there and spends nothing.
      const elsewhere = yield* other.request("/auth/magic-link/code", { json: { code } })
      expect(elsewhere.status).toBe(400)
      expect(Http.envelope(elsewhere)).toMatchObject({ code: "INVALID_CODE", field: "code" })

      // Malformed input spends nothing.
      const malformed = yield* asker.request("/auth/magic-link/code", { json: { code: "12" } })
      expect(Http.envelope(malformed)).toMatchObject({ code: "INVALID_CODE", details: { spent: false } })

      // A well-formed miss retires the code...
      const wrong = code === "ZZZZZZ" ? "YYYYYY" : "ZZZZZZ"
      const miss = yield* asker.request("/auth/magic-link/code", { json: { code: wrong } })
      expect(miss.status).toBe(400)
      expect(Http.envelope(miss).details).toEqual({ spent: true })
      // ...so the right code no longer works: a code cannot be guessed twice.
      const second = yield* asker.request("/auth/magic-link/code", { json: { code } })
      expect(second.status).toBe(400)
      expect(Http.envelope(second).code).toBe("INVALID_CODE")
      expect(asker.cookies.has("_sm_session")).toBe(false)

      // The mailed link still redeems.
      const verified = yield* asker.request(pathOf(link))
      expect(verified.status).toBe(303)
      expect(asker.cookies.has("_sm_session")).toBe(true)
    })
  )

  it.effect("the code in the asking browser signs in, ignoring case and separators", () =>
    Effect.gen(function* () {
      const env = yield* Fixture.Fixture
      const browser = Browser.make(env.server.baseUrl)
      const email = address("carol")
      yield* requestLink(browser, email, { redirect_after: "/settings/account" })
      const { code } = yield* mailFor(env, email)
      const typed = `${code.slice(0, 3).toLowerCase()}-${code.slice(3)}`
      const redeemed = yield* browser.request("/auth/magic-link/code", { json: { code: typed } })
      expect(redeemed.status).toBe(200)
      expect(Http.wire(redeemed, SignedIn)).toEqual({ redirect: "/settings/account" })
      expect(browser.cookies.has("_sm_session")).toBe(true)
      expect(browser.cookies.has("_sm_ml_code")).toBe(false)
    })
  )

  it.effect("every address gets the same answer; only plausible ones get mail", () =>
    Effect.gen(function* () {
      const env = yield* Fixture.Fixture
      const browser = Browser.make(env.server.baseUrl)
      const known = address("erin")
      yield* requestLink(browser, known)
      yield* mailFor(env, known)
      const answers = []
      for (const email of [known, address("nobody"), "not an address", ""]) {
        const reply = yield* requestLink(browser, email)
        answers.push([reply.status, reply.text, reply.headers.getSetCookie().map((c) => c.replace(/=[^;]*/, "=…"))])
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1)
      const rows = yield* env.server.sql<{
        n: number
      }>`SELECT count(*)::int AS n FROM magic_links WHERE email = 'not an address'`
      expect(rows[0]?.n).toBe(0)
    })
  )
})

// Each block below reads what is global to its server (every failed or successful attempt, every user) or needs
// settings the others must not have, so it starts a server of its own.
Fixture.describe(`magic-link failures logged (${TestDatabase.kind} database)`, (it) => {
  it.effect("a replayed, expired or superseded link is the 410 page, never a JSON error", () =>
    Effect.gen(function* () {
      const env = yield* Fixture.Fixture
      const browser = Browser.make(env.server.baseUrl)
      const email = address("dave")
      yield* requestLink(browser, email)
      const first = yield* mailFor(env, email, 1)
      yield* requestLink(browser, email)
      const second = yield* mailFor(env, email, 2)

      const superseded = yield* Browser.make(env.server.baseUrl).request(pathOf(first.link))
      expect(superseded.status).toBe(410)
      expect(superseded.headers.get("content-type")).toMatch(/^text\/html/)
      expect(superseded.text).toContain("cannot be used")
      assert.isUndefined(superseded.json)

      const used = yield* Browser.make(env.server.baseUrl).request(pathOf(second.link))
      expect(used.status).toBe(303)
      const replayed = yield* Browser.make(env.server.baseUrl).request(pathOf(second.link))
      expect(replayed.status).toBe(410)

      yield* requestLink(browser, email)
      const third = yield* mailFor(env, email, 3)
      yield* env.server
        .sql`UPDATE magic_links SET expires_at = now() - interval '1 second' WHERE mailed AND used_at IS NULL`
      const expired = yield* Browser.make(env.server.baseUrl).request(pathOf(third.link))
      expect(expired.status).toBe(410)

      const garbage = yield* Browser.make(env.server.baseUrl).request("/auth/magic-link/verify?token=nope")
      expect(garbage.status).toBe(410)

      const reasons = yield* env.server.sql<{ failure_reason: string }>`
        SELECT failure_reason FROM auth_attempts WHERE method = 'magic_link' AND NOT success ORDER BY created_at
      `
      expect(reasons.map((r) => r.failure_reason)).toEqual([
        "token_retired",
        "token_used",
        "token_expired",
        "invalid_token"
      ])
    })
  )
})

Fixture.describe(`magic-link sessions replaced (${TestDatabase.kind} database)`, (it) => {
  it.effect("signing in replaces a pre-login session (fixation defence) and logs the attempt with hashes", () =>
    Effect.gen(function* () {
      const env = yield* Fixture.Fixture
      const browser = Browser.make(env.server.baseUrl)
      const email = address("frank")
      yield* requestLink(browser, email)
      yield* browser.request(pathOf((yield* mailFor(env, email)).link))
      const before = browser.cookies.get("_sm_session")
      assert.isDefined(before)
      yield* requestLink(browser, email)
      yield* browser.request(pathOf((yield* mailFor(env, email, 2)).link), {
        headers: { "user-agent": "TestBrowser/1.0" }
      })
      const after = browser.cookies.get("_sm_session")
      expect(after).not.toBe(before)
      const stale = yield* Http.request(`${env.server.baseUrl}/api/v1/me`, {
        headers: { cookie: `_sm_session=${before}` }
      })
      expect(stale.status).toBe(401)
      expect(Http.envelope(stale).code).toBe("UNAUTHENTICATED")

      const attempts = yield* env.server.sql<{
        success: boolean
        ip_hash: string | null
        user_agent_hash: string | null
      }>`
        SELECT success, ip_hash, user_agent_hash FROM auth_attempts WHERE method = 'magic_link' AND success
      `
      expect(attempts).toHaveLength(2)
      for (const row of attempts) {
        expect(row.ip_hash).toMatch(/^[A-Za-z0-9_-]{43}$/)
        expect(row.ip_hash).not.toContain("127.0.0.1")
      }
      expect(attempts.some((a) => a.user_agent_hash !== null && !a.user_agent_hash.includes("TestBrowser"))).toBe(true)
    })
  )
})

Fixture.describe(
  `magic-link sign-in, signup closed (${TestDatabase.kind} database)`,
  { env: { AUTH__OPEN_SIGNUP: "false" } },
  (it) => {
    it.effect("with auth.open_signup off an unknown address gets the same 410 page; a known one signs in", () =>
      Effect.gen(function* () {
        const env = yield* Fixture.Fixture
        const browser = Browser.make(env.server.baseUrl)
        const stranger = address("stranger")
        yield* requestLink(browser, stranger)
        const refused = yield* browser.request(pathOf((yield* mailFor(env, stranger)).link))
        expect(refused.status).toBe(410)
        const users = yield* env.server.sql<{ n: number }>`SELECT count(*)::int AS n FROM users`
        expect(users[0]?.n).toBe(0)
      })
    )
  }
)

Fixture.describe(
  `magic-link throttle (${TestDatabase.kind} database)`,
  { env: { AUTH__MAGIC_LINK__RATE_LIMIT_SECONDS: "60" } },
  (it) => {
    it.effect("per-address throttle: one mail per window, and only the earliest of concurrent requests mails", () =>
      Effect.gen(function* () {
        const env = yield* Fixture.Fixture
        const email = address("grace")
        const replies = yield* Effect.forEach(
          Array.from({ length: 5 }, () => Browser.make(env.server.baseUrl)),
          (b) => requestLink(b, email),
          { concurrency: "unbounded" }
        )
        expect(replies.every((r) => r.status === 200)).toBe(true)
        yield* Effect.sleep("500 millis")
        expect(env.smtp.mails().filter((m) => m.to === email)).toHaveLength(1)
        const rows = yield* env.server.sql<{ n: number; mailed: number }>`
        SELECT count(*)::int AS n, count(*) FILTER (WHERE mailed)::int AS mailed FROM magic_links WHERE email = ${email}
      `
        expect(rows[0]).toEqual({ n: 5, mailed: 1 })
        const [earliest] = yield* env.server.sql<{ mailed: boolean }>`
        SELECT mailed FROM magic_links WHERE email = ${email} ORDER BY created_at, id LIMIT 1
      `
        expect(earliest?.mailed).toBe(true)
      })
    )
  }
)

Fixture.describe(
  `magic-link disabled (${TestDatabase.kind} database)`,
  { env: { AUTH__ENABLED_METHODS: "passkey" } },
  (it) => {
    it.effect("with magic links not among auth.enabled_methods the routes answer 404", () =>
      Effect.gen(function* () {
        const env = yield* Fixture.Fixture
        const reply = yield* Browser.make(env.server.baseUrl).request("/auth/magic-link/request", {
          json: { email: address("henry") }
        })
        expect(reply.status).toBe(404)
        expect(Http.envelope(reply).code).toBe("AUTH_METHOD_UNAVAILABLE")
      })
    )
  }
)
