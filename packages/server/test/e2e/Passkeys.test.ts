/**
 * Passkeys over HTTP, with a software authenticator speaking real WebAuthn (SoftAuthenticator.ts): adding one,
 * signing in with it, and every refusal: the method off, no session, no CSRF header, a ceremony reused, expired or
 * finished by another session, a bad or foreign assertion, a retired passkey, a credential reported as not
 * discoverable, the eleventh passkey; removal ending the other sessions; adding and removing recorded and mailed as
 * credential events; the counter checked, not enforced.
 */
import { assert, expect } from "@effect/vitest"
import { SignedIn } from "@signalman/core/Identity"
import { LoginCeremony, Passkey, RegistrationCeremony } from "@signalman/core/Passkey"
import * as Effect from "effect/Effect"
import * as Metric from "effect/Metric"
import { counterStalled } from "../../src/passkeys/Passkeys.js"
import * as Browser from "../support/Browser.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as Soft from "../support/SoftAuthenticator.js"
import * as TestDatabase from "../support/TestDatabase.js"
import * as TestServer from "../support/TestServer.js"

/** The origin the browser is on: the default public base URL is http://localhost:<port>. */
const originOf = (server: { readonly baseUrl: string }) => `http://localhost:${new URL(server.baseUrl).port}`

const startRegistration = (person: Fixture.Person, name = "Laptop") =>
  Effect.map(person.browser.request("/auth/passkey/register/start", { json: { name } }), (reply) =>
    Http.expectOk(reply, RegistrationCeremony)
  )

/** Adds a passkey to the person's account; the software credential and the stored passkey. */
const addPasskey = (person: Fixture.Person, name = "Laptop", extra: Parameters<typeof Soft.register>[2] = {}) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const ceremony = yield* startRegistration(person, name)
    const made = Soft.register(ceremony.options, originOf(server), extra)
    const finished = yield* person.browser.request("/auth/passkey/register/finish", {
      json: { ceremony_id: ceremony.ceremony_id, credential: made.response }
    })
    return { credential: made.credential, passkey: Http.expectOk(finished, Passkey, 201) }
  })

const startLogin = (browser: Browser.Browser, body: Record<string, string> = {}) =>
  Effect.map(browser.request("/auth/passkey/login/start", { json: body }), (reply) =>
    Http.expectOk(reply, LoginCeremony)
  )

/** A sign-in attempt in a fresh browser; the reply. */
const signInWith = (
  credential: Soft.Credential,
  extra: Parameters<typeof Soft.assert>[3] = {},
  browser?: Browser.Browser
) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const b = browser ?? Browser.make(server.baseUrl)
    const ceremony = yield* startLogin(b)
    const reply = yield* b.request("/auth/passkey/login/finish", {
      json: {
        ceremony_id: ceremony.ceremony_id,
        credential: Soft.assert(credential, ceremony.options.challenge, originOf(server), extra)
      }
    })
    return { reply, browser: b }
  })

const lastAttempt = (userId: string | null) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const rows = yield* server.sql<{ success: boolean; failure_reason: string | null; user_id: string | null }>`
      SELECT success, failure_reason, user_id FROM auth_attempts
      WHERE method = 'passkey' AND ${userId === null ? server.sql`true` : server.sql`user_id = ${userId}`}
      ORDER BY created_at DESC LIMIT 1
    `.pipe(Effect.orDie)
    return rows[0]
  })

const reasonCount = (reason: string) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const rows = yield* server.sql<{ n: number }>`
      SELECT count(*)::int AS n FROM auth_attempts WHERE method = 'passkey' AND failure_reason = ${reason}
    `.pipe(Effect.orDie)
    return rows[0]?.n ?? 0
  })

Fixture.describe(
  `passkeys (${TestDatabase.kind} database)`,
  { env: { AUTH__ENABLED_METHODS: "magic_link,passkey" } },
  (it) => {
    it.effect("a passkey is added with discoverable, verified options and then signs in, carrying redirect_after", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person({ label: "alice" })
        const ceremony = yield* startRegistration(alice, "  Work laptop ")
        expect(ceremony.options.rp.id).toBe("localhost")
        expect(ceremony.options.attestation).toBe("none")
        expect(ceremony.options.authenticatorSelection?.residentKey).toBe("required")
        expect(ceremony.options.authenticatorSelection?.userVerification).toBe("required")
        expect(Buffer.from(ceremony.options.user.id, "base64url").toString()).toBe(alice.userId)
        const made = Soft.register(ceremony.options, originOf(server))
        // Saying nothing of credProps is not a no.
        const finished = yield* alice.browser.request("/auth/passkey/register/finish", {
          json: { ceremony_id: ceremony.ceremony_id, credential: made.response }
        })
        const passkey = Http.expectOk(finished, Passkey, 201)
        expect(passkey.name).toBe("Work laptop")
        expect(passkey.rp_id).toBe("localhost")
        expect(passkey.retired).toBe(false)
        expect(passkey.last_used_at).toBeNull()

        const browser = Browser.make(server.baseUrl)
        // The login page offers it through its one same-origin script, under the page's strict policy.
        const page = yield* browser.request("/login?redirect_after=/settings/account")
        expect(page.text).toMatch(/<script src="\/assets\/login\.[0-9a-f]{16}\.js" defer><\/script>/)
        expect(page.text).toContain('data-redirect-after="/settings/account"')
        expect(page.text).not.toMatch(/<script>/)
        expect(page.headers.get("content-security-policy")).toBe(
          "default-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'"
        )
        const script = page.text.match(/src="(\/assets\/login\.[0-9a-f]+\.js)"/)?.[1] ?? ""
        const served = yield* browser.request(script)
        expect(served.status).toBe(200)
        expect(served.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
        const login = yield* startLogin(browser, { redirect_after: "/settings/account" })
        expect(login.options.userVerification).toBe("required")
        expect(login.options.allowCredentials ?? []).toEqual([])
        const reply = yield* browser.request("/auth/passkey/login/finish", {
          json: {
            ceremony_id: login.ceremony_id,
            credential: Soft.assert(made.credential, login.options.challenge, originOf(server))
          }
        })
        expect(Http.expectOk(reply, SignedIn).redirect).toBe("/settings/account")
        const me = yield* browser.request("/api/v1/me")
        expect((me.json as { email: string }).email).toBe(alice.email)
        expect(yield* lastAttempt(alice.userId)).toEqual({ success: true, failure_reason: null, user_id: alice.userId })
        const used = yield* server.sql<{ last_used_at: Date | null; counter: string }>`
          SELECT last_used_at, counter::text AS counter FROM passkeys WHERE id = ${passkey.id}
        `.pipe(Effect.orDie)
        expect(used[0]?.last_used_at).not.toBeNull()
        expect(used[0]?.counter).toBe("1")
      })
    )

    it.effect(
      "signing in replaces the session the browser arrived with (fixation defence) and carries an invitation",
      () =>
        Effect.gen(function* () {
          const bob = yield* Fixture.person({ label: "bob" })
          const { credential } = yield* addPasskey(bob)
          const before = bob.browser.cookies.get("_sm_session")
          const { reply } = yield* signInWith(credential, {}, bob.browser)
          expect(reply.status).toBe(200)
          const after = bob.browser.cookies.get("_sm_session")
          expect(after).toBeDefined()
          expect(after).not.toBe(before)
          const server = yield* Fixture.server
          const old = Browser.make(server.baseUrl)
          old.cookies.set("_sm_session", before ?? "")
          expect((yield* old.request("/api/v1/me")).status).toBe(401)

          // A carried invitation that cannot be redeemed never breaks the sign-in: the generic banner.
          const browser = Browser.make(server.baseUrl)
          const ceremony = yield* startLogin(browser, { invitation: "no-such-invitation", redirect_after: "/x" })
          const carried = yield* browser.request("/auth/passkey/login/finish", {
            json: {
              ceremony_id: ceremony.ceremony_id,
              credential: Soft.assert(credential, ceremony.options.challenge, originOf(server))
            }
          })
          expect(Http.expectOk(carried, SignedIn).redirect).toBe("/?invite=missed")
        })
    )

    it.effect("a stalled counter raises the metric and a warning, and the sign-in goes on", () =>
      Effect.gen(function* () {
        const carol = yield* Fixture.person({ label: "carol" })
        const { credential } = yield* addPasskey(carol)
        const before = (yield* Metric.value(counterStalled)).count
        expect((yield* signInWith(credential, { counter: 5 })).reply.status).toBe(200)
        expect((yield* Metric.value(counterStalled)).count).toBe(before)
        // Counting, then standing still, then going back: both stalls, both signed in.
        expect((yield* signInWith(credential, { counter: 5 })).reply.status).toBe(200)
        expect((yield* signInWith(credential, { counter: 2 })).reply.status).toBe(200)
        expect((yield* Metric.value(counterStalled)).count).toBe(before + 2)
      })
    )

    it.effect(
      "login refusals: ceremony reused or expired, bad signature, unknown credential, foreign user handle",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const dan = yield* Fixture.person({ label: "dan" })
          const erin = yield* Fixture.person({ label: "erin" })
          const { credential } = yield* addPasskey(dan)
          const origin = originOf(server)

          // Reused: the ceremony is gone after its first finish.
          const browser = Browser.make(server.baseUrl)
          const ceremony = yield* startLogin(browser)
          const body = {
            ceremony_id: ceremony.ceremony_id,
            credential: Soft.assert(credential, ceremony.options.challenge, origin)
          }
          expect((yield* browser.request("/auth/passkey/login/finish", { json: body })).status).toBe(200)
          const invalidStates = yield* reasonCount("invalid_state")
          const again = yield* browser.request("/auth/passkey/login/finish", { json: body })
          expect(Http.refusal(again)).toEqual({ status: 400, code: "INVALID_STATE", field: "ceremony_id" })
          expect(yield* reasonCount("invalid_state")).toBe(invalidStates + 1)

          // Expired: five minutes are up (moved back in the database).
          const late = yield* startLogin(browser)
          yield* server.sql`
          UPDATE passkey_ceremonies SET expires_at = now() - interval '1 second' WHERE id = ${late.ceremony_id}
        `.pipe(Effect.orDie)
          const expired = yield* browser.request("/auth/passkey/login/finish", {
            json: { ceremony_id: late.ceremony_id, credential: Soft.assert(credential, late.options.challenge, origin) }
          })
          expect(Http.refusal(expired)).toEqual({ status: 400, code: "INVALID_STATE", field: "ceremony_id" })
          expect((yield* lastAttempt(null))?.failure_reason).toBe("state_expired")

          // A signature that does not verify.
          const tampered = yield* signInWith(credential, { tamper: true })
          expect(Http.refusal(tampered.reply)).toEqual({ status: 400, code: "PASSKEY_INVALID", field: "credential" })
          expect(tampered.reply.headers.getSetCookie().some((c) => c.startsWith("_sm_session="))).toBe(false)
          // Not verified, so it names no account: anyone with the credential's id could send this.
          expect(yield* lastAttempt(null)).toEqual({
            success: false,
            failure_reason: "invalid_assertion",
            user_id: null
          })

          // A user handle naming another account, on a valid signature: refused, never signed in as either; the
          // signature verified, so the attempt is the credential holder's.
          const foreign = yield* signInWith(credential, { userHandle: Buffer.from(erin.userId).toString("base64url") })
          expect(Http.refusal(foreign.reply)).toEqual({ status: 400, code: "PASSKEY_INVALID", field: "credential" })
          expect(yield* lastAttempt(null)).toEqual({
            success: false,
            failure_reason: "invalid_assertion",
            user_id: dan.userId
          })
          const noHandle = yield* signInWith(credential, { userHandle: null })
          expect(Http.refusal(noHandle.reply).code).toBe("PASSKEY_INVALID")

          // A credential no account holds (never stored).
          const stranger = Soft.register(
            { challenge: "x", rp: { id: "localhost" }, user: { id: Buffer.from(dan.userId).toString("base64url") } },
            origin
          ).credential
          const unknowns = yield* reasonCount("unknown_credential")
          const unknown = yield* signInWith(stranger)
          expect(Http.refusal(unknown.reply)).toEqual({ status: 400, code: "PASSKEY_INVALID", field: "credential" })
          expect(yield* reasonCount("unknown_credential")).toBe(unknowns + 1)

          // Another origin's assertion (a phishing page relaying): the origin is signed, so it fails.
          const phished = yield* startLogin(browser)
          const relayed = yield* browser.request("/auth/passkey/login/finish", {
            json: {
              ceremony_id: phished.ceremony_id,
              credential: Soft.assert(credential, phished.options.challenge, "http://evil.localhost:1234")
            }
          })
          expect(Http.refusal(relayed).code).toBe("PASSKEY_INVALID")
          // After all that the passkey still works.
          expect((yield* signInWith(credential)).reply.status).toBe(200)
        })
    )

    it.effect("a passkey made for another host is retired: refused at sign-in, labelled on the account page", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const fay = yield* Fixture.person({ label: "fay" })
        const { credential, passkey } = yield* addPasskey(fay, "Old phone")
        yield* server.sql`UPDATE passkeys SET rp_id = 'old.example' WHERE id = ${passkey.id}`.pipe(Effect.orDie)
        const { reply } = yield* signInWith(credential)
        expect(Http.refusal(reply)).toEqual({ status: 400, code: "PASSKEY_INVALID", field: "credential" })
        // Refused before any signature is checked: the attempt names no account.
        expect(yield* lastAttempt(null)).toEqual({
          success: false,
          failure_reason: "credential_retired",
          user_id: null
        })
        const page = yield* fay.browser.request("/settings/account")
        expect(page.status).toBe(200)
        expect(page.text).toContain("Old phone")
        expect(page.text).toContain("retired: made for old.example")
      })
    )

    it.effect("registration needs a session, the CSRF header, and is bound to the session that began it", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const gus = yield* Fixture.person({ label: "gus" })
        const nobody = yield* Browser.make(server.baseUrl).request("/auth/passkey/register/start", {
          json: { name: "x" }
        })
        expect(Http.refusal(nobody).status).toBe(401)
        const noCsrf = yield* gus.browser.request("/auth/passkey/register/start", { json: { name: "x" }, csrf: false })
        expect(Http.refusal(noCsrf)).toMatchObject({ status: 403, code: "CSRF_REQUIRED" })
        const byToken = yield* gus.api("/auth/passkey/register/start", { json: { name: "x" } })
        expect(Http.refusal(byToken)).toMatchObject({ status: 403, code: "SESSION_REQUIRED" })
        const unnamed = yield* gus.browser.request("/auth/passkey/register/start", { json: { name: "  " } })
        expect(Http.refusal(unnamed).field).toBe("name")

        // Gus's ceremony finished by another of Gus's sessions, then by another account: refused, and left in place.
        const ceremony = yield* startRegistration(gus)
        const made = Soft.register(ceremony.options, originOf(server))
        const body = { ceremony_id: ceremony.ceremony_id, credential: made.response }
        const second = yield* Fixture.person({ email: gus.email })
        const otherSession = yield* second.browser.request("/auth/passkey/register/finish", { json: body })
        expect(Http.refusal(otherSession)).toEqual({ status: 400, code: "INVALID_STATE", field: "ceremony_id" })
        const hal = yield* Fixture.person({ label: "hal" })
        const otherAccount = yield* hal.browser.request("/auth/passkey/register/finish", { json: body })
        expect(Http.refusal(otherAccount)).toEqual({ status: 400, code: "INVALID_STATE", field: "ceremony_id" })
        Http.expectOk(yield* gus.browser.request("/auth/passkey/register/finish", { json: body }), Passkey, 201)
        // Used once: the same finish again is refused.
        const reused = yield* gus.browser.request("/auth/passkey/register/finish", { json: body })
        expect(Http.refusal(reused)).toEqual({ status: 400, code: "INVALID_STATE", field: "ceremony_id" })

        // Expired.
        const late = yield* startRegistration(gus, "Late")
        yield* server.sql`
          UPDATE passkey_ceremonies SET expires_at = now() - interval '1 second' WHERE id = ${late.ceremony_id}
        `.pipe(Effect.orDie)
        const expired = yield* gus.browser.request("/auth/passkey/register/finish", {
          json: { ceremony_id: late.ceremony_id, credential: Soft.register(late.options, originOf(server)).response }
        })
        expect(Http.refusal(expired)).toEqual({ status: 400, code: "INVALID_STATE", field: "ceremony_id" })

        // An attestation for another challenge does not verify.
        const other = yield* startRegistration(gus, "Other")
        const wrong = yield* gus.browser.request("/auth/passkey/register/finish", {
          json: {
            ceremony_id: other.ceremony_id,
            credential: Soft.register({ ...other.options, challenge: "AAAA" }, originOf(server)).response
          }
        })
        expect(Http.refusal(wrong)).toEqual({ status: 400, code: "PASSKEY_INVALID", field: "credential" })
      })
    )

    it.effect("a browser reporting credProps rk false is refused with PASSKEY_NOT_DISCOVERABLE; rk true is kept", () =>
      Effect.gen(function* () {
        const ivy = yield* Fixture.person({ label: "ivy" })
        const server = yield* Fixture.server
        const ceremony = yield* startRegistration(ivy, "Key")
        const reply = yield* ivy.browser.request("/auth/passkey/register/finish", {
          json: {
            ceremony_id: ceremony.ceremony_id,
            credential: Soft.register(ceremony.options, originOf(server), { rk: false }).response
          }
        })
        expect(Http.refusal(reply)).toEqual({ status: 400, code: "PASSKEY_NOT_DISCOVERABLE", field: "credential" })
        const stored = yield* server.sql<{ n: number }>`
          SELECT count(*)::int AS n FROM passkeys WHERE user_id = ${ivy.userId}
        `.pipe(Effect.orDie)
        expect(stored[0]?.n).toBe(0)
        const kept = yield* addPasskey(ivy, "Key", { rk: true })
        expect(kept.passkey.name).toBe("Key")
      })
    )

    it.effect("ten passkeys per account: the eleventh is 422 QUOTA_EXCEEDED, also when two race for the tenth", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const jo = yield* Fixture.person({ label: "jo" })
        for (let i = 1; i <= 8; i++) yield* addPasskey(jo, `Key ${i}`)
        // Two registrations begun with room for one: both start, one finishes, the other is refused under the lock.
        const a = yield* startRegistration(jo, "Key 9")
        const b = yield* startRegistration(jo, "Key 10")
        const c = yield* startRegistration(jo, "Key 11")
        const finish = (ceremony: RegistrationCeremony) =>
          jo.browser.request("/auth/passkey/register/finish", {
            json: {
              ceremony_id: ceremony.ceremony_id,
              credential: Soft.register(ceremony.options, originOf(server)).response
            }
          })
        expect((yield* finish(a)).status).toBe(201)
        const [second, third] = yield* Effect.all([finish(b), finish(c)], { concurrency: 2 })
        const statuses = [second?.status, third?.status].sort()
        expect(statuses).toEqual([201, 422])
        const refused = [second, third].find((r) => r?.status === 422)
        assert.isDefined(refused)
        const error = Http.envelope(refused)
        expect(error.code).toBe("QUOTA_EXCEEDED")
        expect(error.details).toMatchObject({ quota: "passkeys_per_user", current: 10, limit: 10 })
        // At ten, starting is refused at once.
        const start = yield* jo.browser.request("/auth/passkey/register/start", { json: { name: "Key 12" } })
        expect(Http.refusal(start)).toMatchObject({ status: 422, code: "QUOTA_EXCEEDED" })
      })
    )

    it.effect("removing a passkey ends the other sessions, keeps this one, and it no longer signs in", () =>
      Effect.gen(function* () {
        const kim = yield* Fixture.person({ label: "kim" })
        const other = yield* Fixture.person({ email: kim.email })
        const lee = yield* Fixture.person({ label: "lee" })
        const { credential, passkey } = yield* addPasskey(kim)
        const foreign = yield* lee.browser.request(`/api/v1/me/passkeys/${passkey.id}`, { method: "DELETE" })
        expect(Http.refusal(foreign)).toMatchObject({ status: 404, code: "NOT_FOUND" })
        const noCsrf = yield* kim.browser.request(`/api/v1/me/passkeys/${passkey.id}`, {
          method: "DELETE",
          csrf: false
        })
        expect(Http.refusal(noCsrf)).toMatchObject({ status: 403, code: "CSRF_REQUIRED" })
        const removed = yield* kim.browser.request(`/api/v1/me/passkeys/${passkey.id}`, { method: "DELETE" })
        expect(removed.status).toBe(204)
        expect((yield* kim.browser.request("/api/v1/me")).status).toBe(200)
        expect((yield* other.browser.request("/api/v1/me")).status).toBe(401)
        const again = yield* kim.browser.request(`/api/v1/me/passkeys/${passkey.id}`, { method: "DELETE" })
        expect(Http.refusal(again)).toMatchObject({ status: 404, code: "NOT_FOUND" })
        const { reply } = yield* signInWith(credential)
        expect(Http.refusal(reply).code).toBe("PASSKEY_INVALID")

        // Both changes are on record and mailed, naming the passkey.
        const server = yield* Fixture.server
        const events = yield* server.sql<{ change: string; method: string; origin: string; label: string }>`
          SELECT change, method, origin, label FROM credential_events WHERE user_id = ${kim.userId} ORDER BY created_at
        `.pipe(Effect.orDie)
        expect(events).toEqual([
          { change: "added", method: "passkey", origin: "session", label: "Laptop" },
          { change: "removed", method: "passkey", origin: "session", label: "Laptop" }
        ])
        const smtp = yield* Fixture.smtp
        const mails = yield* Effect.promise(() => smtp.waitFor(kim.email, 4))
        const changes = mails.filter((m) => m.subject.includes("sign-in method"))
        expect(changes.map((m) => m.subject)).toEqual([
          "A sign-in method was added to your Signalman account",
          "A sign-in method was removed from your Signalman account"
        ])
        expect(changes[0]?.text).toContain('passkey "Laptop" was added')
      })
    )

    it.effect("the hard purge of an account takes its passkeys and ceremonies with it", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const max = yield* Fixture.person({ label: "max" })
        yield* addPasskey(max)
        yield* startRegistration(max)
        yield* server.sql`DELETE FROM users WHERE id = ${max.userId}`.pipe(Effect.orDie)
        const left = yield* server.sql<{ n: number }>`
          SELECT (SELECT count(*) FROM passkeys WHERE user_id = ${max.userId})
               + (SELECT count(*) FROM passkey_ceremonies WHERE user_id = ${max.userId}) AS n
        `.pipe(Effect.orDie)
        expect(Number(left[0]?.n)).toBe(0)
      })
    )
  }
)

Fixture.describe(`passkeys off (${TestDatabase.kind} database)`, (it) => {
  it.effect("every gated passkey endpoint is 404 AUTH_METHOD_UNAVAILABLE when passkey is not enabled", () =>
    Effect.gen(function* () {
      const server = yield* Fixture.server
      const nia = yield* Fixture.person({ label: "nia" })
      const anonymous = Browser.make(server.baseUrl)
      const id = "0190f3a0-0000-7000-8000-000000000000"
      const replies = [
        yield* anonymous.request("/auth/passkey/login/start", { json: {} }),
        yield* anonymous.request("/auth/passkey/login/finish", {
          json: {
            ceremony_id: id,
            credential: {
              id: "AA",
              rawId: "AA",
              type: "public-key",
              response: { clientDataJSON: "AA", authenticatorData: "AA", signature: "AA" },
              clientExtensionResults: {}
            }
          }
        }),
        yield* nia.browser.request("/auth/passkey/register/start", { json: { name: "Laptop" } }),
        yield* nia.browser.request("/auth/passkey/register/finish", {
          json: {
            ceremony_id: id,
            credential: {
              id: "AA",
              rawId: "AA",
              type: "public-key",
              response: { clientDataJSON: "AA", attestationObject: "AA" },
              clientExtensionResults: {}
            }
          }
        })
      ]
      for (const reply of replies) {
        expect(Http.refusal(reply)).toEqual({ status: 404, code: "AUTH_METHOD_UNAVAILABLE", field: null })
      }
      // Removing is not gated: a passkey stored while the method was on can still be cleaned up.
      const remove = yield* nia.browser.request(`/api/v1/me/passkeys/${id}`, { method: "DELETE" })
      expect(Http.refusal(remove)).toMatchObject({ status: 404, code: "NOT_FOUND" })
      const login = yield* anonymous.request("/login")
      expect(login.text).not.toContain("passkey")
    })
  )

  it.effect("with passkey enabled, a public base URL on an IP address refuses to start, saying why", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(
        Effect.scoped(
          TestServer.start({
            AUTH__ENABLED_METHODS: "magic_link,passkey",
            AUTH__PUBLIC_BASE_URL: "http://127.0.0.1:8080"
          })
        )
      )
      assert.isTrue(exit._tag === "Failure")
      expect(String(exit._tag === "Failure" ? exit.cause : "")).toContain("127.0.0.1 is an IP address")
    })
  )
})
