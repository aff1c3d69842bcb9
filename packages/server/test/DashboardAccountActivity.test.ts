import { describe, expect, it } from "@effect/vitest"
import { methodWords, outcomeWords } from "../src/dashboard/settings/AccountActivity.js"

describe("the account page's activity in words", () => {
  it("names methods as people call them, a provider's <id>_oauth by the provider", () => {
    expect(
      ["magic_link", "passkey", "api_token", "github_oauth", "microsoft_oauth", "gitlab_oauth"].map(methodWords)
    ).toEqual(["Email link or code", "Passkey", "API token", "GitHub", "Microsoft", "GitLab"])
    expect(methodWords("acme_oauth")).toBe("acme oauth")
  })

  it("says why an attempt failed, and a reason it does not know as it is logged", () => {
    expect(outcomeWords(true, null)).toBe("Signed in")
    expect(outcomeWords(false, "invalid_state")).toBe(
      "Failed: the sign-in took too long or was started in another browser"
    )
    expect(outcomeWords(false, "no_verified_email")).toBe("Failed: the provider did not confirm an email address")
    expect(outcomeWords(false, "some_new_reason")).toBe("Failed: some new reason")
    expect(outcomeWords(false, null)).toBe("Failed: no reason recorded")
  })
})
