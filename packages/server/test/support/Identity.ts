/**
 * Signed-in people for tests, made through the real magic-link flow with mail caught by the SMTP catcher.
 */
import { CreatedApiToken } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Browser from "./Browser.js"
import * as Http from "./Http.js"
import * as SmtpCatcher from "./SmtpCatcher.js"
import type * as TestServer from "./TestServer.js"

export interface Person {
  readonly email: string
  readonly browser: Browser.Browser
}

let sequence = 0
export const uniqueEmail = (label: string) => `${label}-${Date.now().toString(36)}-${sequence++}@example.com`

// Only the address is needed, so a server in its own process (ServerProcess) signs people in the same way.
export const signIn = (
  server: Pick<TestServer.Running, "baseUrl">,
  smtp: SmtpCatcher.SmtpCatcher,
  email = uniqueEmail("user")
) =>
  Effect.gen(function* () {
    const browser = Browser.make(server.baseUrl)
    const before = smtp.mails().filter((m) => m.to === email).length
    yield* browser.request("/auth/magic-link/request", { json: { email } })
    const mails = yield* Effect.promise(() => smtp.waitFor(email, before + 1))
    const mail = mails[before]
    if (mail === undefined) return yield* Effect.dieMessage(`no sign-in mail for ${email}`)
    const { link } = SmtpCatcher.magicLinkOf(mail)
    const url = new URL(link)
    const reply = yield* browser.request(`${url.pathname}${url.search}`)
    if (reply.status !== 303) return yield* Effect.dieMessage(`sign-in failed: ${reply.status} ${reply.text}`)
    return { email, browser } satisfies Person
  })

export const mintToken = (person: Person, body: Record<string, unknown> = {}) =>
  Effect.gen(function* () {
    const reply = yield* person.browser.request("/api/v1/me/api-tokens", {
      json: { name: "test", scopes: ["full_access"], ...body }
    })
    if (reply.status !== 201) return yield* Effect.dieMessage(`token create failed: ${reply.status} ${reply.text}`)
    return Http.decode(reply, CreatedApiToken)
  })

/** A request with an API token; an `authorization` header in `init` wins, as a test sending a bad one means it. */
export const bearer = (
  server: Pick<TestServer.Running, "baseUrl">,
  token: string,
  path: string,
  init: RequestInit & { readonly json?: unknown } = {}
) => {
  const headers = new Headers(init.headers)
  if (!headers.has("authorization")) headers.set("authorization", `Bearer ${token}`)
  return Http.request(`${server.baseUrl}${path}`, { ...init, headers })
}
