import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { describe, expect, it } from "@effect/vitest"
import { CSRF_COOKIE, fromOwnForm, hiddenField, tokenOf } from "../src/viewers/SignInGuard.js"

const TOKEN = "a".repeat(43)

const post = (headers: Record<string, string>) =>
  HttpServerRequest.fromWeb(
    new Request("http://status.example.com/p/acme/sign-in/password", {
      method: "POST",
      headers: { host: "status.example.com", cookie: `${CSRF_COOKIE}=${TOKEN}`, ...headers }
    })
  )

describe("SignInGuard", () => {
  it("a post from the page's own form, with or without fetch metadata, passes", () => {
    expect(fromOwnForm(post({}), TOKEN)).toBe(true)
    expect(fromOwnForm(post({ origin: "https://status.example.com", "sec-fetch-site": "same-origin" }), TOKEN)).toBe(
      true
    )
    expect(fromOwnForm(post({ origin: "https://STATUS.example.com" }), TOKEN)).toBe(true)
  })

  it("a missing or different token, or a token without its cookie, is refused", () => {
    expect(fromOwnForm(post({}), undefined)).toBe(false)
    expect(fromOwnForm(post({}), "b".repeat(43))).toBe(false)
    expect(fromOwnForm(post({}), TOKEN.slice(1))).toBe(false)
    expect(fromOwnForm(post({ cookie: "other=1" }), TOKEN)).toBe(false)
    // A cookie this service did not make (shape) is no token.
    expect(fromOwnForm(post({ cookie: `${CSRF_COOKIE}=short` }), "short")).toBe(false)
  })

  it("a post the browser marks as from another site is refused even with a valid pair", () => {
    const foreign: ReadonlyArray<Record<string, string>> = [
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "https://evil.example" },
      { origin: "https://status.example.com.evil.example" },
      { origin: "null" }
    ]
    for (const headers of foreign) {
      expect(fromOwnForm(post(headers), TOKEN), JSON.stringify(headers)).toBe(false)
    }
  })

  it("the token is read only in the shape this service makes, and written as a hidden field", () => {
    expect(tokenOf(post({}))).toBe(TOKEN)
    expect(tokenOf(post({ cookie: `${CSRF_COOKIE}=<script>` }))).toBeUndefined()
    expect(hiddenField(TOKEN)).toBe(`<input type="hidden" name="csrf" value="${TOKEN}">`)
  })
})
