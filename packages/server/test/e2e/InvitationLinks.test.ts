/**
 * The links in an invitation mail, and invitations carried through sign-in.
 */
import { assert, expect } from "@effect/vitest"
import { Invitation, Me } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Browser from "../support/Browser.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import { uniqueEmail } from "../support/Identity.js"
import * as SmtpCatcher from "../support/SmtpCatcher.js"
import * as TestDatabase from "../support/TestDatabase.js"

const Invitations = Schema.Struct({ data: Schema.Array(Invitation) })

/** An org owner on the block's server, and a way to invite an address to their org and read the mail's links. */
const setup = Effect.gen(function* () {
  const { server, smtp } = yield* Fixture.Fixture
  const owner = yield* Fixture.person()
  const org = owner.org
  const invite = (email: string) =>
    Effect.gen(function* () {
      yield* owner.browser.request(`/api/v1/orgs/${org.id}/invitations`, { json: { email } })
      const mail = (yield* Effect.promise(() => smtp.waitFor(email)))[0]
      const accept = /(https?:\/\/\S+\/invitations\/accept\?token=([A-Za-z0-9_-]+))/.exec(mail?.text ?? "")
      const decline = /(https?:\/\/\S+\/invitations\/decline\?token=[A-Za-z0-9_-]+)/.exec(mail?.text ?? "")
      return {
        acceptPath: new URL(accept?.[1] ?? "").pathname + new URL(accept?.[1] ?? "").search,
        token: accept?.[2] ?? "",
        declinePath: new URL(decline?.[1] ?? "").pathname + new URL(decline?.[1] ?? "").search
      }
    })
  return { smtp, server, owner, org, invite }
})

Fixture.describe(`invitation links (${TestDatabase.kind} database)`, (it) => {
  it.effect(
    "a new address follows the accept link, signs in carrying it, and lands in the org without a personal one",
    () =>
      Effect.gen(function* () {
        const { smtp, server, org, invite } = yield* setup
        const email = uniqueEmail("newcomer")
        const { acceptPath, token } = yield* invite(email)
        const browser = Browser.make(server.baseUrl)
        const toLogin = yield* browser.request(acceptPath)
        expect(toLogin.status).toBe(303)
        expect(toLogin.headers.get("location")).toBe(`/login?invitation=${token}`)
        const loginPage = yield* browser.request(toLogin.headers.get("location") ?? "")
        expect(loginPage.text).toContain(`name="invitation" value="${token}"`)

        yield* browser.request("/auth/magic-link/request", { json: { email, invitation: token } })
        const mails = yield* Effect.promise(() => smtp.waitFor(email, 2))
        const mail = mails[1]
        assert.isDefined(mail)
        const link = new URL(SmtpCatcher.magicLinkOf(mail).link)
        const landed = yield* browser.request(`${link.pathname}${link.search}`)
        expect(landed.headers.get("location")).toBe(`/?joined=${org.slug}`)
        const me = Http.wire(yield* browser.request("/api/v1/me"), Me)
        expect(me.orgs).toEqual([expect.objectContaining({ slug: org.slug, role: "member" })])
        expect(me.active_org?.slug).toBe(org.slug)
      })
  )

  it.effect("a signed-in invitee redeems at once; a carried invitation that fails lands on /?invite=missed", () =>
    Effect.gen(function* () {
      const { smtp, server, org, invite } = yield* setup
      const email = uniqueEmail("member")
      const { acceptPath } = yield* invite(email)
      const member = yield* Fixture.person({ email })
      const joined = yield* member.browser.request(acceptPath)
      expect(joined.headers.get("location")).toBe(`/?joined=${org.slug}`)

      // Someone else's invitation carried through sign-in: login still works, the banner says it missed.
      const other = uniqueEmail("other")
      const { token } = yield* invite(other)
      const stranger = Browser.make(server.baseUrl)
      const strangerEmail = uniqueEmail("stranger")
      yield* stranger.request("/auth/magic-link/request", { json: { email: strangerEmail, invitation: token } })
      const [mail] = yield* Effect.promise(() => smtp.waitFor(strangerEmail))
      assert.isDefined(mail)
      const link = new URL(SmtpCatcher.magicLinkOf(mail).link)
      const landed = yield* stranger.request(`${link.pathname}${link.search}`)
      expect(landed.status).toBe(303)
      expect(landed.headers.get("location")).toBe("/?invite=missed")
      expect(stranger.cookies.has("_sm_session")).toBe(true)
    })
  )

  it.effect("the decline link only renders; its form declines, with one answer for any token", () =>
    Effect.gen(function* () {
      const { server, owner, org, invite } = yield* setup
      const email = uniqueEmail("decliner")
      const { declinePath, token } = yield* invite(email)
      const browser = Browser.make(server.baseUrl)
      const confirm = yield* browser.request(declinePath)
      expect(confirm.status).toBe(200)
      expect(confirm.text).toContain('action="/invitations/decline"')
      const stillPending = Http.wire(yield* owner.browser.request(`/api/v1/orgs/${org.id}/invitations`), Invitations)
      expect(stillPending.data).toHaveLength(1)
      const form = (t: string) =>
        browser.request("/invitations/decline", {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `token=${encodeURIComponent(t)}`
        })
      const declined = yield* form(token)
      const unknown = yield* form("no-such-token")
      expect(declined.status).toBe(200)
      expect(declined.text).toBe(unknown.text)
      const after = Http.wire(yield* owner.browser.request(`/api/v1/orgs/${org.id}/invitations`), Invitations)
      expect(after.data).toHaveLength(0)
    })
  )
})
