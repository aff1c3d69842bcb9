/**
 * OAuth sign-in with the four providers against fake providers over HTTPS (support/FakeOAuth.ts), trusted through
 * the run's test CA in NODE_EXTRA_CA_CERTS: sign-up, sign-in, linking by attested email, every failure mode of the
 * spec's table with its attempts row, linking from a session, removal and its refusal.
 */
import { assert, expect, inject, layer } from "@effect/vitest"
import { Me } from "@signalman/core/Identity"
import { LinkStarted, SignInMethod } from "@signalman/core/OAuth"
import { Passkey, RegistrationCeremony } from "@signalman/core/Passkey"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Browser from "../support/Browser.js"
import * as FakeOAuth from "../support/FakeOAuth.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { uniqueEmail } from "../support/Identity.js"
import * as Soft from "../support/SoftAuthenticator.js"
import * as TestDatabase from "../support/TestDatabase.js"

class Fakes extends Context.Tag("test/FakeOAuth")<Fakes, FakeOAuth.FakeOAuth>() {}

const Methods = Schema.Struct({ data: Schema.Array(SignInMethod) })

/** A server whose settings name the fakes, with the fakes beside it. */
const serverWith = (providers: ReadonlyArray<FakeOAuth.Provider>, env: Record<string, string>) =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const fakes = yield* FakeOAuth.make(inject("testCa"))
      const running = yield* Fixture.start({ env: { ...fakes.env(providers), ...env } })
      return Context.make(Fixture.Fixture, running).pipe(Context.add(Fakes, fakes))
    })
  )

/** The path and query of an absolute URL on the server, for the test browser's own base URL. */
const pathOf = (link: string) => {
  const url = new URL(link)
  return `${url.pathname}${url.search}`
}

/** Follows the provider's consent (automatic in the fakes): the callback URL it sends the browser back to. */
const consent = (location: string) =>
  Effect.promise(async () => {
    const response = await fetch(location, { redirect: "manual" })
    const back = response.headers.get("location")
    if (response.status !== 302 || back === null)
      throw new Error(`consent answered ${response.status}: ${await response.text()}`)
    return back
  })

/** A whole dance from `/auth/{provider}/login`: the callback's reply. */
const dance = (browser: Browser.Browser, provider: FakeOAuth.Provider, query = "") =>
  Effect.gen(function* () {
    const start = yield* browser.request(`/auth/${provider}/login${query}`)
    expect(start.status, start.text).toBe(303)
    const back = yield* consent(start.headers.get("location") ?? "")
    return { callback: yield* browser.request(pathOf(back)), callbackPath: pathOf(back) }
  })

const attempts = (method: string) =>
  Effect.flatMap(Fixture.server, (server) =>
    server.sql<{ readonly success: boolean; readonly failure_reason: string | null }>`
      SELECT success, failure_reason FROM auth_attempts WHERE method = ${method} ORDER BY created_at, id
    `.pipe(Effect.orDie)
  )

const lastAttempt = (method: string) => Effect.map(attempts(method), (rows) => rows.at(-1))

const me = (browser: Browser.Browser) => Effect.map(browser.request("/api/v1/me"), (reply) => Http.expectOk(reply, Me))

const methodsOf = (browser: Browser.Browser) =>
  Effect.map(browser.request("/api/v1/me/sign-in-methods"), (reply) => Http.expectOk(reply, Methods).data)

/** The credential-change rows of a person, oldest first. */
const events = (userId: string) =>
  Effect.flatMap(Fixture.server, (server) =>
    server.sql<{ readonly change: string; readonly method: string; readonly origin: string; readonly label: string }>`
      SELECT change, method, origin, label FROM credential_events WHERE user_id = ${userId} ORDER BY created_at, id
    `.pipe(Effect.orDie)
  )

/** The mails an address received, waiting for the `count`th. */
const mails = (email: string, count: number) =>
  Effect.flatMap(Fixture.smtp, (smtp) => Effect.promise(() => smtp.waitFor(email, count)))

const usersWith = (email: string) =>
  Effect.flatMap(Fixture.server, (server) =>
    server.sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM users WHERE email = ${email}`.pipe(
      Effect.orDie,
      Effect.map((rows) => rows[0]?.n ?? 0)
    )
  )

let nextId = 1000
const githubPersona = (email: string, verified = true): FakeOAuth.Persona<"github"> => ({
  id: nextId++,
  login: `octo${nextId}`,
  emails: [
    { email: `noreply${nextId}@users.noreply.example.com`, primary: false, verified: true },
    { email, primary: true, verified }
  ]
})

const ALL = ["github", "google", "microsoft", "gitlab"] as const

layer(serverWith(ALL, { AUTH__ENABLED_METHODS: "magic_link,github,google,microsoft,gitlab" }), {
  excludeTestServices: true
})(`OAuth sign-in (${TestDatabase.kind} database)`, (it) => {
  it.effect("GitHub: a new person signs up with the verified primary address, gets an org, and signs in again", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const email = uniqueEmail("gh")
      const persona = githubPersona(email)
      fakes.as("github", persona)
      const browser = Browser.make(server.baseUrl)
      const { callback } = yield* dance(browser, "github")
      expect(callback.status, callback.text).toBe(303)
      expect(callback.headers.get("location")).toBe("/")
      expect(browser.cookies.get("_sm_session")).toMatch(/^[A-Za-z0-9_-]{43}$/)
      const first = yield* me(browser)
      expect(first.email).toBe(email)
      expect(first.email_verified).toBe(true)
      expect(first.orgs).toHaveLength(1)
      expect(first.orgs[0]?.role).toBe("owner")
      const [method] = yield* methodsOf(browser)
      expect(method?.provider).toBe("github")
      expect(method?.provider_user_id).toBe(String(persona.id))
      expect(method?.label).toBe(persona.login)
      expect(method?.last_used_at).not.toBeNull()
      expect(yield* lastAttempt("github_oauth")).toEqual({ success: true, failure_reason: null })
      expect(yield* events(first.id)).toEqual([
        { change: "added", method: "github", origin: "signup", label: persona.login }
      ])

      // Again, from a fresh browser: the same account, no second org.
      const again = Browser.make(server.baseUrl)
      expect((yield* dance(again, "github")).callback.status).toBe(303)
      const second = yield* me(again)
      expect(second.id).toBe(first.id)
      expect(second.orgs).toHaveLength(1)
    })
  )

  it.effect("GitHub: no verified primary address creates and links nothing; a linked identity still signs in", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const email = uniqueEmail("gh-unverified")
      const persona = githubPersona(email, false)
      fakes.as("github", persona)
      const browser = Browser.make(server.baseUrl)
      const { callback } = yield* dance(browser, "github", "?redirect_after=%2Fmonitors")
      expect(callback.status).toBe(303)
      expect(callback.headers.get("location")).toBe("/login?oauth=no_verified_email&redirect_after=%2Fmonitors")
      expect(browser.cookies.has("_sm_session")).toBe(false)
      expect(yield* lastAttempt("github_oauth")).toEqual({ success: false, failure_reason: "no_verified_email" })
      expect(yield* usersWith(email)).toBe(0)
      const page = yield* browser.request(callback.headers.get("location") ?? "")
      expect(page.text).toContain("could not vouch for your email address")

      // Verified once and linked; later the provider stops vouching: the identity still signs in.
      fakes.as("github", { ...persona, emails: persona.emails.map((e) => ({ ...e, verified: true })) })
      expect((yield* dance(browser, "github")).callback.headers.get("location")).toBe("/")
      const id = (yield* me(browser)).id
      fakes.as("github", persona)
      const later = Browser.make(server.baseUrl)
      const { callback: again } = yield* dance(later, "github")
      expect(again.headers.get("location")).toBe("/")
      expect((yield* me(later)).id).toBe(id)
    })
  )

  it.effect("Google: email_verified attests through discovery and PKCE; false attests nothing", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const email = uniqueEmail("google")
      // Sent as the person typed it: kept lower-cased, as every address is.
      const typed = email.replace(/^g/, "G").replace("example.com", "Example.COM")
      fakes.as("google", { sub: `g-${nextId++}`, email: typed, email_verified: true })
      const browser = Browser.make(server.baseUrl)
      expect((yield* dance(browser, "google")).callback.headers.get("location")).toBe("/")
      expect((yield* me(browser)).email).toBe(email)
      expect((yield* methodsOf(browser))[0]?.label).toBe(typed)

      const unverified = uniqueEmail("google-unverified")
      fakes.as("google", { sub: `g-${nextId++}`, email: unverified, email_verified: false })
      const { callback } = yield* dance(Browser.make(server.baseUrl), "google")
      expect(callback.headers.get("location")).toBe("/login?oauth=no_verified_email")
      expect(yield* lastAttempt("google_oauth")).toEqual({ success: false, failure_reason: "no_verified_email" })
      expect(yield* usersWith(unverified)).toBe(0)
    })
  )

  it.effect("Microsoft: xms_edov or the personal tenant's own domains attest; the key is {tid}/{oid}, else sub", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const tid = "72f988bf-86f1-41af-91ab-2d7cd011db47"
      const work = uniqueEmail("ms-work")
      fakes.as("microsoft", { sub: "s1", tid, oid: `oid-${nextId++}`, email: work, xms_edov: true })
      const a = Browser.make(server.baseUrl)
      expect((yield* dance(a, "microsoft")).callback.headers.get("location")).toBe("/")
      expect((yield* methodsOf(a))[0]?.provider_user_id).toMatch(new RegExp(`^${tid}/oid-\\d+$`))

      // A work account whose domain nobody verified attests nothing.
      const unverified = uniqueEmail("ms-unverified")
      fakes.as("microsoft", { sub: "s2", tid, oid: `oid-${nextId++}`, email: unverified })
      expect((yield* dance(Browser.make(server.baseUrl), "microsoft")).callback.headers.get("location")).toBe(
        "/login?oauth=no_verified_email"
      )
      expect(yield* lastAttempt("microsoft_oauth")).toEqual({ success: false, failure_reason: "no_verified_email" })

      // A personal account on outlook.com attests; one on another domain, or a country variant, does not.
      const personal = "9188040d-6c67-4c5b-b112-36a304b66dad"
      const outlook = `person-${nextId++}@outlook.com`
      fakes.as("microsoft", { sub: "s3", tid: personal, oid: `oid-${nextId++}`, email: outlook })
      const b = Browser.make(server.baseUrl)
      expect((yield* dance(b, "microsoft")).callback.headers.get("location")).toBe("/")
      expect((yield* me(b)).email).toBe(outlook)
      for (const elsewhere of [`p-${nextId++}@example.com`, `p-${nextId++}@hotmail.co.uk`]) {
        fakes.as("microsoft", { sub: "s4", tid: personal, oid: `oid-${nextId++}`, email: elsewhere })
        expect((yield* dance(Browser.make(server.baseUrl), "microsoft")).callback.headers.get("location")).toBe(
          "/login?oauth=no_verified_email"
        )
        expect(yield* usersWith(elsewhere)).toBe(0)
      }

      // Without tid and oid the key is sub.
      const sub = `sub-${nextId++}`
      fakes.as("microsoft", { sub, email: uniqueEmail("ms-sub"), xms_edov: true })
      const c = Browser.make(server.baseUrl)
      expect((yield* dance(c, "microsoft")).callback.headers.get("location")).toBe("/")
      expect((yield* methodsOf(c))[0]?.provider_user_id).toBe(sub)
    })
  )

  it.effect("GitLab: the pinned issuer's email_verified attests, keyed {iss}/{sub}; a foreign iss fails upstream", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const sub = String(nextId++)
      fakes.as("gitlab", { sub, email: uniqueEmail("gitlab"), email_verified: true })
      const browser = Browser.make(server.baseUrl)
      expect((yield* dance(browser, "gitlab")).callback.headers.get("location")).toBe("/")
      expect((yield* methodsOf(browser))[0]?.provider_user_id).toBe(`${fakes.gitlabIssuer}/${sub}`)

      fakes.as("gitlab", {
        sub: "9",
        email: uniqueEmail("gitlab-foreign"),
        email_verified: true,
        iss: "https://gitlab.example.com"
      })
      const { callback } = yield* dance(Browser.make(server.baseUrl), "gitlab")
      expect(Http.refusal(callback)).toEqual({ status: 500, code: "INTERNAL_ERROR", field: null })
      expect(yield* lastAttempt("gitlab_oauth")).toEqual({ success: false, failure_reason: "oauth_upstream_failed" })

      fakes.as("gitlab", { sub: String(nextId++), email: uniqueEmail("gitlab-unverified"), email_verified: false })
      expect((yield* dance(Browser.make(server.baseUrl), "gitlab")).callback.headers.get("location")).toBe(
        "/login?oauth=no_verified_email"
      )
    })
  )

  it.effect(
    "an attested address already signed up links to that account; a soft-deleted one goes to restore only",
    () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture.Fixture
        const fakes = yield* Fakes
        const alice = yield* Fixture.person({ label: "match" })
        fakes.as("github", githubPersona(alice.email))
        const browser = Browser.make(server.baseUrl)
        expect((yield* dance(browser, "github")).callback.headers.get("location")).toBe("/")
        expect((yield* me(browser)).id).toBe(alice.userId)
        expect((yield* methodsOf(alice.browser)).map((m) => m.provider)).toEqual(["github"])
        // Linked by address: on record as email_match, and the account is told, naming the provider.
        expect((yield* events(alice.userId)).map((e) => [e.method, e.origin])).toEqual([["github", "email_match"]])
        const told = (yield* mails(alice.email, 2))[1]
        expect(`${told?.subject ?? ""}\n${told?.text ?? ""}`).toContain("GitHub")

        // Deleted, then Google with the same address: the session opens on /account/restore and the account stays
        // deleted.
        const bob = yield* Fixture.person({ label: "deleted" })
        expect((yield* bob.browser.request("/api/v1/me", { method: "DELETE" })).status).toBe(200)
        fakes.as("google", { sub: `g-${nextId++}`, email: bob.email, email_verified: true })
        const other = Browser.make(server.baseUrl)
        expect((yield* dance(other, "google", "?redirect_after=%2Fmonitors")).callback.headers.get("location")).toBe(
          "/account/restore"
        )
        const still = yield* me(other)
        expect(still.id).toBe(bob.userId)
        expect(still.deletion_scheduled_for).not.toBeNull()
        // Recorded, not mailed inside the grace window.
        expect((yield* events(bob.userId)).map((e) => [e.method, e.origin])).toEqual([["google", "email_match"]])
      })
  )

  it.effect("two callbacks opening one new identity at once: one account, one identity, both signed in", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const email = uniqueEmail("race")
      fakes.as("google", { sub: `g-${nextId++}`, email, email_verified: true })
      const tabs = [Browser.make(server.baseUrl), Browser.make(server.baseUrl)]
      const backs = yield* Effect.forEach(tabs, (tab) =>
        Effect.flatMap(tab.request("/auth/google/login"), (start) => consent(start.headers.get("location") ?? ""))
      )
      const replies = yield* Effect.forEach(tabs, (tab, i) => tab.request(pathOf(backs[i] ?? "")), {
        concurrency: "unbounded"
      })
      expect(replies.map((r) => [r.status, r.headers.get("location")])).toEqual([
        [303, "/"],
        [303, "/"]
      ])
      const ids = yield* Effect.forEach(tabs, (tab) => Effect.map(me(tab), (m) => m.id))
      expect(ids[0]).toBe(ids[1])
      expect(yield* usersWith(email)).toBe(1)
      expect(yield* methodsOf(tabs[0] ?? Browser.make(server.baseUrl))).toHaveLength(1)
    })
  )

  it.effect("the fixation defence: the session the browser came with ends; a carried redirect_after is followed", () =>
    Effect.gen(function* () {
      const fakes = yield* Fakes
      const alice = yield* Fixture.person({ label: "fixation" })
      const before = alice.browser.cookies.get("_sm_session")
      fakes.as("google", { sub: `g-${nextId++}`, email: uniqueEmail("fixation-google"), email_verified: true })
      const { callback } = yield* dance(alice.browser, "google", "?redirect_after=%2Fmonitors")
      expect(callback.headers.get("location")).toBe("/monitors")
      const after = alice.browser.cookies.get("_sm_session")
      expect(after).not.toBe(before)
      const stale = Browser.make((yield* Fixture.server).baseUrl)
      stale.cookies.set("_sm_session", before ?? "")
      expect((yield* stale.request("/api/v1/me")).status).toBe(401)
      // An address off this host is not followed.
      fakes.as("google", { sub: `g-${nextId++}`, email: uniqueEmail("offsite"), email_verified: true })
      const offsite = yield* dance(
        Browser.make((yield* Fixture.server).baseUrl),
        "google",
        "?redirect_after=%2F%2Fevil.example"
      )
      expect(offsite.callback.headers.get("location")).toBe("/")
    })
  )

  it.effect("a carried invitation is redeemed by the invited address signing up with a provider", () =>
    Effect.gen(function* () {
      const { server, smtp } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const owner = yield* Fixture.person({ label: "inviter" })
      const email = uniqueEmail("invitee")
      yield* owner.browser.request(`/api/v1/orgs/${owner.org.id}/invitations`, { json: { email } })
      const mail = (yield* Effect.promise(() => smtp.waitFor(email)))[0]
      const token = /invitations\/accept\?token=([A-Za-z0-9_-]+)/.exec(mail?.text ?? "")?.[1]
      assert.isDefined(token)
      fakes.as("gitlab", { sub: String(nextId++), email, email_verified: true })
      const browser = Browser.make(server.baseUrl)
      const { callback } = yield* dance(browser, "gitlab", `?invitation=${token}`)
      expect(callback.headers.get("location")).toBe(`/?joined=${owner.org.slug}`)
      const joined = yield* me(browser)
      // Invited and new: no personal org, a member of the inviter's.
      expect(joined.orgs.map((o) => o.slug)).toEqual([owner.org.slug])
      expect(joined.orgs[0]?.role).toBe("member")
    })
  )

  it.effect("400 INVALID_STATE: unknown, replayed, another provider's, expired; each logged as invalid_state", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const browser = Browser.make(server.baseUrl)
      const invalid = (path: string) =>
        Effect.gen(function* () {
          const before = (yield* attempts(path.split("/")[2] + "_oauth")).length
          const reply = yield* browser.request(path)
          expect(Http.refusal(reply)).toEqual({ status: 400, code: "INVALID_STATE", field: "state" })
          const rows = yield* attempts(path.split("/")[2] + "_oauth")
          expect(rows.length).toBe(before + 1)
          expect(rows.at(-1)).toEqual({ success: false, failure_reason: "invalid_state" })
        })
      yield* invalid(`/auth/github/callback?state=${"A".repeat(43)}&code=x`)
      yield* invalid("/auth/github/callback?code=x")

      // Replayed: the state is spent by the first callback.
      fakes.as("github", githubPersona(uniqueEmail("replay")))
      const { callback, callbackPath } = yield* dance(browser, "github")
      expect(callback.status).toBe(303)
      yield* invalid(callbackPath)

      // Minted for GitHub, shown to Google's callback: refused, and spent.
      const start = yield* browser.request("/auth/github/login")
      const state = new URL(start.headers.get("location") ?? "").searchParams.get("state")
      yield* invalid(`/auth/google/callback?state=${state}&code=x`)
      yield* invalid(`/auth/github/callback?state=${state}&code=x`)

      // Past its 10 minutes.
      const late = yield* browser.request("/auth/google/login")
      const lateState = new URL(late.headers.get("location") ?? "").searchParams.get("state")
      yield* server.sql`UPDATE oauth_states SET expires_at = now() - interval '1 second'`.pipe(Effect.orDie)
      yield* invalid(`/auth/google/callback?state=${lateState}&code=x`)

      // A browser is answered with a page saying the same.
      const html = yield* browser.request("/auth/github/callback?state=nope", { headers: { accept: "text/html" } })
      expect(html.status).toBe(400)
      expect(html.text).toContain("INVALID_STATE")
    })
  )

  it.effect("a callback opened in another browser than the one that began it is INVALID_STATE, and spent", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      // Login CSRF: someone begins a dance with their own provider account and gets another person's browser to
      // open the callback. The state is bound to the browser that began it (the _sm_oauth cookie).
      fakes.as("github", githubPersona(uniqueEmail("csrf")))
      const attacker = Browser.make(server.baseUrl)
      const start = yield* attacker.request("/auth/github/login")
      expect(start.headers.get("set-cookie") ?? "").toMatch(/_sm_oauth=[A-Za-z0-9_-]{43};.*HttpOnly/i)
      const callbackPath = pathOf(yield* consent(start.headers.get("location") ?? ""))
      const victim = Browser.make(server.baseUrl)
      const before = (yield* attempts("github_oauth")).length
      expect(Http.refusal(yield* victim.request(callbackPath))).toEqual({
        status: 400,
        code: "INVALID_STATE",
        field: "state"
      })
      expect((yield* victim.request("/api/v1/me")).status).toBe(401)
      const rows = yield* attempts("github_oauth")
      expect(rows.slice(before)).toEqual([{ success: false, failure_reason: "invalid_state" }])
      // Tried once: not even the browser that began it can finish it now.
      expect(Http.refusal(yield* attacker.request(callbackPath))).toMatchObject({ status: 400, code: "INVALID_STATE" })
    })
  )

  it.effect("consent denied or no code: back to /login carrying the invitation, oauth_denied and missing_code", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const browser = Browser.make(server.baseUrl)
      fakes.as("microsoft", { sub: "x", deny: true })
      const denied = yield* dance(browser, "microsoft", "?invitation=abc&redirect_after=%2Fmonitors")
      expect(denied.callback.headers.get("location")).toBe(
        "/login?oauth=denied&invitation=abc&redirect_after=%2Fmonitors"
      )
      expect(yield* lastAttempt("microsoft_oauth")).toEqual({ success: false, failure_reason: "oauth_denied" })
      fakes.as("github", { ...githubPersona(uniqueEmail("nocode")), noCode: true })
      const missing = yield* dance(browser, "github")
      expect(missing.callback.headers.get("location")).toBe("/login?oauth=missing_code")
      expect(yield* lastAttempt("github_oauth")).toEqual({ success: false, failure_reason: "missing_code" })
      const page = yield* browser.request("/login?oauth=denied&invitation=abc")
      expect(page.text).toContain("Sign-in was cancelled")
      expect(page.text).toContain('href="/auth/github/login?invitation=abc"')
    })
  )

  it.effect("the provider failing is 500 with oauth_upstream_failed", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      fakes.as("google", { sub: "z", email: uniqueEmail("upstream"), email_verified: true, tokenFails: true })
      const { callback } = yield* dance(Browser.make(server.baseUrl), "google")
      expect(Http.refusal(callback)).toEqual({ status: 500, code: "INTERNAL_ERROR", field: null })
      expect(yield* lastAttempt("google_oauth")).toEqual({ success: false, failure_reason: "oauth_upstream_failed" })
    })
  )

  it.effect("404 AUTH_METHOD_UNAVAILABLE for a provider that does not exist", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const browser = Browser.make(server.baseUrl)
      for (const path of ["/auth/carrier-pigeon/login", "/auth/carrier-pigeon/callback?state=x"]) {
        expect(Http.refusal(yield* browser.request(path))).toEqual({
          status: 404,
          code: "AUTH_METHOD_UNAVAILABLE",
          field: "provider"
        })
      }
    })
  )

  it.effect("/login offers each provider as a plain link, carrying the invitation and redirect_after", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const page = yield* Browser.make(server.baseUrl).request("/login?invitation=t1&redirect_after=%2Fmonitors")
      expect(page.status).toBe(200)
      for (const [provider, name] of [
        ["github", "GitHub"],
        ["google", "Google"],
        ["microsoft", "Microsoft"],
        ["gitlab", "GitLab"]
      ]) {
        expect(page.text).toContain(
          `<a class="provider" href="/auth/${provider}/login?invitation=t1&amp;redirect_after=%2Fmonitors">Sign in with ${name}</a>`
        )
      }
      expect(page.text).toContain('action="/login"')
    })
  )

  it.effect("linking from a session: CSRF applies, the identity joins the account, recorded and mailed", () =>
    Effect.gen(function* () {
      const fakes = yield* Fakes
      const alice = yield* Fixture.person({ label: "linker" })
      const refused = yield* alice.browser.request("/auth/microsoft/link", { method: "POST", csrf: false })
      expect(Http.refusal(refused)).toEqual({ status: 403, code: "CSRF_REQUIRED", field: null })
      const byToken = yield* alice.api("/auth/microsoft/link", { method: "POST" })
      expect(Http.refusal(byToken).code).toBe("SESSION_REQUIRED")
      // Another address at the provider: linking needs the session, not a matching address.
      fakes.as("microsoft", {
        sub: "l",
        tid: "t-link",
        oid: `oid-${nextId++}`,
        email: uniqueEmail("other"),
        xms_edov: true
      })
      const started = Http.expectOk(
        yield* alice.browser.request("/auth/microsoft/link", { method: "POST" }),
        LinkStarted
      )
      const back = yield* consent(started.redirect)
      const done = yield* alice.browser.request(pathOf(back))
      expect(done.headers.get("location")).toBe("/settings/account?linked=microsoft")
      const [linked] = yield* methodsOf(alice.browser)
      expect(linked?.provider).toBe("microsoft")
      // Linked, not yet used to sign in.
      expect(linked?.last_used_at).toBeNull()
      expect((yield* events(alice.userId)).map((e) => [e.change, e.method, e.origin])).toEqual([
        ["added", "microsoft", "session"]
      ])
      const told = (yield* mails(alice.email, 2))[1]
      expect(`${told?.subject ?? ""}\n${told?.text ?? ""}`).toContain("Microsoft")
      // Signing in with it opens Alice's account.
      const browser = Browser.make((yield* Fixture.server).baseUrl)
      expect((yield* dance(browser, "microsoft")).callback.headers.get("location")).toBe("/")
      expect((yield* me(browser)).id).toBe(alice.userId)

      // The same identity for another account: refused, still Alice's.
      const bob = yield* Fixture.person({ label: "taker" })
      const again = Http.expectOk(yield* bob.browser.request("/auth/microsoft/link", { method: "POST" }), LinkStarted)
      const taken = yield* bob.browser.request(pathOf(yield* consent(again.redirect)))
      expect(taken.headers.get("location")).toBe("/settings/account?oauth=identity_taken")
      expect(yield* methodsOf(bob.browser)).toEqual([])
    })
  )

  it.effect("a link finished elsewhere or after the session changed is refused before any token exchange", () =>
    Effect.gen(function* () {
      const fakes = yield* Fakes
      const alice = yield* Fixture.person({ label: "link-a" })
      const mallory = yield* Fixture.person({ label: "link-m" })
      fakes.as("gitlab", { sub: String(nextId++), email: uniqueEmail("gl-link"), email_verified: true })
      const exchanges = fakes.tokenRequests.gitlab
      // In another account's browser: the state is not that browser's (its _sm_oauth cookie), 400 INVALID_STATE.
      const started = Http.expectOk(yield* alice.browser.request("/auth/gitlab/link", { method: "POST" }), LinkStarted)
      const elsewhere = yield* mallory.browser.request(pathOf(yield* consent(started.redirect)))
      expect(Http.refusal(elsewhere)).toEqual({ status: 400, code: "INVALID_STATE", field: "state" })
      expect(fakes.tokenRequests.gitlab).toBe(exchanges)
      expect(yield* methodsOf(alice.browser)).toEqual([])
      expect(yield* methodsOf(mallory.browser)).toEqual([])
      // In the browser that began it, once its session has ended: link_user_id no longer matches the live session.
      const again = Http.expectOk(yield* alice.browser.request("/auth/gitlab/link", { method: "POST" }), LinkStarted)
      const back = yield* consent(again.redirect)
      expect((yield* alice.browser.request("/auth/logout", { method: "POST" })).status).toBeLessThan(400)
      expect((yield* alice.browser.request(pathOf(back))).headers.get("location")).toBe("/login?oauth=link_mismatch")
      expect(fakes.tokenRequests.gitlab).toBe(exchanges)
      expect((yield* lastAttempt("gitlab_oauth"))?.failure_reason).toBe("invalid_state")
    })
  )

  it.effect("removing a provider: 204, the other sessions end; two of one vendor are named by provider_user_id", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture.Fixture
      const fakes = yield* Fakes
      const alice = yield* Fixture.person({ label: "remover" })
      const link = (persona: FakeOAuth.Persona<"github">) =>
        Effect.gen(function* () {
          fakes.as("github", persona)
          const started = Http.expectOk(
            yield* alice.browser.request("/auth/github/link", { method: "POST" }),
            LinkStarted
          )
          const done = yield* alice.browser.request(pathOf(yield* consent(started.redirect)))
          expect(done.headers.get("location")).toBe("/settings/account?linked=github")
        })
      const first = githubPersona(alice.email)
      const second = githubPersona(uniqueEmail("second-gh"))
      yield* link(first)
      yield* link(second)
      // Another browser of Alice's, signed in with GitHub.
      fakes.as("github", first)
      const laptop = Browser.make(server.baseUrl)
      expect((yield* dance(laptop, "github")).callback.headers.get("location")).toBe("/")

      const ambiguous = yield* alice.browser.request("/api/v1/me/sign-in-methods/github", { method: "DELETE" })
      expect(Http.refusal(ambiguous)).toEqual({ status: 400, code: "VALIDATION_FAILED", field: "provider_user_id" })
      const missing = yield* alice.browser.request("/api/v1/me/sign-in-methods/gitlab", { method: "DELETE" })
      expect(Http.refusal(missing)).toEqual({ status: 404, code: "NOT_FOUND", field: "provider" })
      const removed = yield* alice.browser.request(`/api/v1/me/sign-in-methods/github?provider_user_id=${second.id}`, {
        method: "DELETE"
      })
      expect(removed.status).toBe(204)
      expect((yield* methodsOf(alice.browser)).map((m) => m.provider_user_id)).toEqual([String(first.id)])
      expect((yield* laptop.request("/api/v1/me")).status).toBe(401)
      expect((yield* events(alice.userId)).at(-1)).toMatchObject({
        change: "removed",
        method: "github",
        origin: "session"
      })
      expect((yield* alice.browser.request("/api/v1/me")).status).toBe(200)
      // With magic links offered, even the last provider goes.
      expect((yield* alice.browser.request("/api/v1/me/sign-in-methods/github", { method: "DELETE" })).status).toBe(204)
      expect(yield* methodsOf(alice.browser)).toEqual([])
    })
  )
})

layer(
  serverWith(["github"], {
    // GitLab listed without its client secret: incompletely configured. Google not listed: disabled. Passkeys on:
    // a passkey is a way in, as a provider is.
    AUTH__ENABLED_METHODS: "github,gitlab,passkey",
    AUTH__GITLAB__CLIENT_ID: "gitlab-client",
    AUTH__GITLAB__BASE_URL: "https://gitlab.invalid"
  }),
  { excludeTestServices: true }
)(`OAuth without magic links (${TestDatabase.kind} database)`, (it) => {
  it.effect(
    "disabled and incompletely configured providers are 404 AUTH_METHOD_UNAVAILABLE on start and callback",
    () =>
      Effect.gen(function* () {
        const browser = Browser.make((yield* Fixture.server).baseUrl)
        for (const path of [
          "/auth/gitlab/login",
          "/auth/gitlab/callback?state=x&code=y",
          "/auth/google/login",
          "/auth/google/callback?state=x&code=y"
        ]) {
          expect(Http.refusal(yield* browser.request(path)), path).toEqual({
            status: 404,
            code: "AUTH_METHOD_UNAVAILABLE",
            field: "provider"
          })
        }
        const page = yield* browser.request("/login")
        expect(page.status).toBe(200)
        expect(page.text).toContain("Sign in with GitHub")
        expect(page.text).not.toContain("Sign in with GitLab")
        expect(page.text).not.toContain('action="/login"')
      })
  )

  it.effect("removing the only way in is 409 LAST_SIGN_IN_METHOD; the identity stays", () =>
    Effect.gen(function* () {
      const fakes = yield* Fakes
      fakes.as("github", githubPersona(uniqueEmail("only")))
      const browser = Browser.make((yield* Fixture.server).baseUrl)
      expect((yield* dance(browser, "github")).callback.headers.get("location")).toBe("/")
      const refused = yield* browser.request("/api/v1/me/sign-in-methods/github", { method: "DELETE" })
      expect(Http.refusal(refused)).toEqual({ status: 409, code: "LAST_SIGN_IN_METHOD", field: "provider" })
      expect((yield* methodsOf(browser)).map((m) => m.provider)).toEqual(["github"])
      expect((yield* browser.request("/api/v1/me")).status).toBe(200)
    })
  )

  it.effect("a passkey is a way in: the provider goes while a passkey is left, then the last passkey is refused", () =>
    Effect.gen(function* () {
      const fakes = yield* Fakes
      fakes.as("github", githubPersona(uniqueEmail("keyed")))
      const server = yield* Fixture.server
      const browser = Browser.make(server.baseUrl)
      expect((yield* dance(browser, "github")).callback.headers.get("location")).toBe("/")
      // A passkey added from the session, by a software authenticator speaking WebAuthn (the default public base URL
      // is http://localhost:<port>, the relying party's origin).
      const ceremony = Http.expectOk(
        yield* browser.request("/auth/passkey/register/start", { json: { name: "Laptop" } }),
        RegistrationCeremony
      )
      const made = Soft.register(ceremony.options, `http://localhost:${new URL(server.baseUrl).port}`)
      const passkey = Http.expectOk(
        yield* browser.request("/auth/passkey/register/finish", {
          json: { ceremony_id: ceremony.ceremony_id, credential: made.response }
        }),
        Passkey,
        201
      )
      expect((yield* browser.request("/api/v1/me/sign-in-methods/github", { method: "DELETE" })).status).toBe(204)
      expect(yield* methodsOf(browser)).toEqual([])
      const refused = yield* browser.request(`/api/v1/me/passkeys/${passkey.id}`, { method: "DELETE" })
      expect(Http.refusal(refused)).toEqual({ status: 409, code: "LAST_SIGN_IN_METHOD", field: "id" })
      const left = yield* server.sql<{ n: number }>`SELECT count(*)::int AS n FROM passkeys WHERE id = ${passkey.id}`
      expect(left[0]?.n).toBe(1)
    })
  )
})
