import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Config from "../src/config/Config.js"
import { version } from "../src/config/Version.js"
import * as Probes from "../src/probes/Probes.js"

describe("the local region's probes", () => {
  it("the version they report is the server package's", () => {
    const manifest: unknown = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../package.json"), "utf8"))
    expect(manifest).toMatchObject({ version })
  })

  it("their User-Agent is Signalman/<version> (+<public base URL>), else localhost at the configured port", () => {
    expect(Probes.userAgent(Config.fromEnv({ AUTH__PUBLIC_BASE_URL: "https://status.example.com/" }))).toBe(
      `Signalman/${version} (+https://status.example.com)`
    )
    expect(Probes.userAgent(Config.fromEnv({ PORT: "9090" }))).toBe(`Signalman/${version} (+http://localhost:9090)`)
  })
})

describe("the local region's browser", () => {
  const flow = Schema.decodeUnknownSync(CheckSpec)({
    type: "flow",
    start_url: "https://shop.example.com/",
    steps: [{ action: "assert_text", text: "Welcome" }]
  })
  const probesWith = (env: Record<string, string>) =>
    Probes.Probes.Default.pipe(Layer.provide(Config.layer(Config.fromEnv(env))))

  it.scoped("none: no flows here; the layer builds, flowCapable is false and a flow is an error result", () =>
    Effect.gen(function* () {
      const probes = Context.get(yield* Layer.build(probesWith({ CHECKER__BROWSER_PATH: "none" })), Probes.Probes)
      expect(yield* probes.flowCapable).toBe(false)
      const result = yield* probes.runOnce(flow)
      expect(result).toMatchObject({
        status: "error",
        error: "flows: no browser is available in this region (checker.browser_path is none)",
        region: "local"
      })
    })
  )

  it.scoped("a path that is no browser is found out when a flow asks, not at boot", () =>
    Effect.gen(function* () {
      const probes = Context.get(yield* Layer.build(probesWith({ CHROMIUM_PATH: "/nowhere/chromium" })), Probes.Probes)
      expect(yield* probes.flowCapable).toBe(false)
      const result = yield* probes.runOnce(flow)
      expect(result.status).toBe("error")
      expect(result.error).toMatch(
        /^flows: no browser is available in this region \(browser: checker\.browser_path is \/nowhere\/chromium, which is not an executable file/
      )
    })
  )
})
