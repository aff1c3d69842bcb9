import { assert, describe, it } from "@effect/vitest"
import * as Redacted from "effect/Redacted"
import * as Credentials from "../src/Credentials.js"

const stored = { url: "https://signalman.example", token: "sm_live_stored", org: "shop" }

const plain = (c: Credentials.Credentials) => ({
  url: c.url,
  token: c.token === undefined ? undefined : Redacted.value(c.token),
  org: c.org,
  source: c.source
})

describe("Credentials", () => {
  it("each of url, token and org: the flag, else the environment, else what login stored", () => {
    assert.deepStrictEqual(plain(Credentials.resolve({}, {}, stored)), {
      url: "https://signalman.example",
      token: "sm_live_stored",
      org: "shop",
      source: { url: "login", token: "login", org: "login" }
    })
    assert.deepStrictEqual(
      plain(Credentials.resolve({}, { SIGNALMAN_TOKEN: "sm_live_env", SIGNALMAN_ORG: "other" }, stored)),
      {
        url: "https://signalman.example",
        token: "sm_live_env",
        org: "other",
        source: { url: "login", token: "environment", org: "environment" }
      }
    )
    assert.deepStrictEqual(
      plain(
        Credentials.resolve(
          { url: "https://signalman.example/", token: Redacted.make("sm_live_flag") },
          { SIGNALMAN_URL: "https://elsewhere.example", SIGNALMAN_TOKEN: "sm_live_env" },
          stored
        )
      ),
      {
        url: "https://signalman.example/",
        token: "sm_live_flag",
        org: "shop",
        source: { url: "flag", token: "flag", org: "login" }
      }
    )
  })

  it("the stored token and org go only to the stored service", () => {
    const elsewhere = Credentials.resolve({}, { SIGNALMAN_URL: "https://elsewhere.example" }, stored)
    assert.deepStrictEqual(plain(elsewhere), {
      url: "https://elsewhere.example",
      token: undefined,
      org: undefined,
      source: { url: "environment", token: undefined, org: undefined }
    })
    const otherPort = Credentials.resolve({ url: "https://signalman.example:8443" }, {}, stored)
    assert.isUndefined(otherPort.token)
  })

  it("nothing given: the local default and no token; an empty variable counts as unset", () => {
    assert.deepStrictEqual(plain(Credentials.resolve({}, { SIGNALMAN_URL: "", SIGNALMAN_TOKEN: "" }, undefined)), {
      url: Credentials.DEFAULT_URL,
      token: undefined,
      org: undefined,
      source: { url: "default", token: undefined, org: undefined }
    })
  })
})
