import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Channel from "../src/Channel.js"

const settings = (kind: string, config: Record<string, unknown>) =>
  Schema.decodeUnknownSync(Channel.Settings)({ kind, config })

describe("Channel.split", () => {
  it("shows every populated secret as *** and keeps the values apart; a null secret stays null", () => {
    const ntfy = settings("ntfy", { topic: "alerts", token: "tk_secret" })
    expect(Channel.split(ntfy, {})).toEqual(
      Either.right({
        shown: { server_url: "https://ntfy.sh", topic: "alerts", token: "***", priority: 4 },
        secrets: { token: "tk_secret" }
      })
    )
    const open = settings("ntfy", { topic: "alerts" })
    expect(Channel.split(open, {})).toEqual(
      Either.right({ shown: { server_url: "https://ntfy.sh", topic: "alerts", token: null, priority: 4 }, secrets: {} })
    )
  })

  it("*** takes the kept value, header names case-insensitively; with nothing kept it names the field", () => {
    const hook = settings("webhook", {
      url: "https://hooks.example.com/",
      headers: { authorization: "***", "X-Env": "prod" },
      secret: "***"
    })
    const kept = { "headers.Authorization": "Bearer old", secret: "whsec_old" }
    expect(Channel.split(hook, kept)).toEqual(
      Either.right({
        shown: { url: "https://hooks.example.com/", headers: { authorization: "***", "X-Env": "***" }, secret: "***" },
        secrets: { secret: "whsec_old", "headers.authorization": "Bearer old", "headers.X-Env": "prod" }
      })
    )
    expect(Channel.split(hook, {})).toEqual(Either.left("config.secret"))
    expect(Channel.split(settings("slack", { webhook_url: "***" }), {})).toEqual(Either.left("config.webhook_url"))
  })

  it("a webhook config without a secret keeps the stored one", () => {
    const hook = settings("webhook", { url: "https://hooks.example.com/" })
    expect(Channel.split(hook, { secret: "whsec_old", "headers.X": "dropped" })).toEqual(
      Either.right({
        shown: { url: "https://hooks.example.com/", headers: {}, secret: "***" },
        secrets: { secret: "whsec_old" }
      })
    )
  })

  it("reveal puts the secrets back: the result decodes to the settings split", () => {
    const original = settings("webhook", {
      url: "https://hooks.example.com/",
      headers: { Authorization: "Bearer t" },
      secret: "a-secret-of-16-chars"
    })
    const split = Either.getOrThrow(Channel.split(original, {}))
    expect(settings("webhook", Channel.reveal(split.shown, split.secrets))).toEqual(original)
  })
})

describe("Channel.addresses", () => {
  it("names the URLs a delivery dials, leaving out a secret URL sent as ***", () => {
    expect(Channel.addresses(settings("webhook", { url: "https://h.example/" }))).toEqual([
      { field: "config.url", url: "https://h.example/" }
    ])
    expect(Channel.addresses(settings("slack", { webhook_url: "***" }))).toEqual([])
    expect(Channel.addresses(settings("email", { addresses: ["a@example.com"] }))).toEqual([])
  })
})
