import { describe, expect, it } from "@effect/vitest"
import { passkeyButton } from "../src/login/PasskeyButton.js"

describe("the login page's passkey part", () => {
  it("is rendered hidden for the script to show, carrying the invitation and redirect_after escaped", () => {
    const markup = passkeyButton({ script: "/assets/login.x.js", secure: true }, 'inv"><b>', "/settings/account")
    expect(markup).toContain('<section id="passkey-sign-in" aria-labelledby="passkey-title" hidden>')
    expect(markup).toContain('data-invitation="inv&quot;&gt;&lt;b&gt;"')
    expect(markup).toContain('data-redirect-after="/settings/account"')
    expect(markup).not.toContain("<script")
    expect(markup).not.toContain("secure connection")
  })

  it("says so when the public base URL is not a secure context", () => {
    const markup = passkeyButton({ script: "/assets/login.x.js", secure: false })
    expect(markup).toContain("Passkeys need a secure connection (https, or localhost")
    expect(markup).not.toContain("data-invitation")
  })
})
