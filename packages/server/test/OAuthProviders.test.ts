import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as Config from "../src/config/Config.js"
import * as Providers from "../src/oauth/Providers.js"

const config = (env: Record<string, string>) => Config.fromEnv(env)

describe("OAuth providers offered", () => {
  it("offered when listed with both client id and secret; listed without them is incompletely configured", () => {
    const values = config({
      AUTH__ENABLED_METHODS: "magic_link,github,google,gitlab",
      AUTH__GITHUB__CLIENT_ID: "id",
      AUTH__GITHUB__CLIENT_SECRET: "secret",
      AUTH__GOOGLE__CLIENT_ID: "id",
      AUTH__GITLAB__CLIENT_ID: "id",
      AUTH__GITLAB__CLIENT_SECRET: "secret",
      AUTH__MICROSOFT__CLIENT_ID: "id",
      AUTH__MICROSOFT__CLIENT_SECRET: "secret"
    })
    expect(Providers.availability(values, "github")).toEqual({
      _tag: "Ready",
      setup: {
        provider: "github",
        clientId: "id",
        clientSecret: "secret",
        baseUrl: "https://github.com",
        apiUrl: "https://api.github.com"
      }
    })
    expect(Providers.availability(values, "google")).toEqual({
      _tag: "Incomplete",
      missing: ["auth.google.client_secret"]
    })
    // GitLab has no default instance: its base URL is part of a complete configuration.
    expect(Providers.availability(values, "gitlab")).toEqual({ _tag: "Incomplete", missing: ["auth.gitlab.base_url"] })
    // Configured but not listed: off.
    expect(Providers.availability(values, "microsoft")).toEqual({ _tag: "Disabled" })
    expect(Providers.ready(values).map((s) => s.provider)).toEqual(["github"])
  })

  it.effect("the requirement answers 404 AUTH_METHOD_UNAVAILABLE for unknown, disabled and incomplete providers", () =>
    Effect.gen(function* () {
      const values = config({ AUTH__ENABLED_METHODS: "google" })
      for (const provider of ["google", "github", "carrier-pigeon"]) {
        const refused = yield* Effect.flip(Providers.require(values, provider))
        expect([refused.status, refused.code, refused.field]).toEqual([404, "AUTH_METHOD_UNAVAILABLE", "provider"])
      }
    })
  )

  it.effect("says at boot, once per incomplete provider, which settings it lacks", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.make(({ message, annotations }) => {
        lines.push(`${String(message)} ${JSON.stringify(Object.fromEntries(annotations))}`)
      })
      yield* Providers.reportIncomplete(
        config({ AUTH__ENABLED_METHODS: "google,microsoft", AUTH__MICROSOFT__CLIENT_ID: "id" })
      ).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
      expect(lines).toHaveLength(2)
      expect(lines[0]).toContain("Google is enabled but incompletely configured")
      expect(lines[0]).toContain("auth.google.client_id")
      expect(lines[1]).toContain('"missing":["auth.microsoft.client_secret"]')
    })
  )
})
