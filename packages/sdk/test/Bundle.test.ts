/**
 * The SDK bundled for a browser (every dependency in, as an app's bundler would): the build succeeds, so nothing
 * reaches for a Node built-in, and the one file it makes talks to a real server.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import { bundle, index } from "../bench/BrowserBundle.js"
import * as Scripted from "./support/ScriptedServer.js"

describe("the SDK bundled for the browser", () => {
  it("builds with no Node built-in, and the bundle's createClient calls a server", async () => {
    const result = await bundle(`export * from ${JSON.stringify(index)}`, { minify: false })
    const inputs = Object.keys(result.metafile.inputs)
    assert.deepStrictEqual(
      inputs.filter((input) => input.startsWith("node:")),
      []
    )
    const [output] = result.outputFiles
    if (output === undefined) throw new Error("no bundle")
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sdk-bundle-"))
    try {
      const file = path.join(dir, "sdk.mjs")
      fs.writeFileSync(file, output.contents)
      const bundled: unknown = await import(pathToFileURL(file).href)
      if (typeof bundled !== "object" || bundled === null || !("createClient" in bundled)) {
        throw new Error("the bundle exports no createClient")
      }
      const { createClient } = bundled
      if (typeof createClient !== "function") throw new Error("createClient is not a function")
      await Scripted.using([Scripted.json(200, { status: "ok" })], async (server) => {
        const client: unknown = createClient({ baseUrl: server.url })
        const healthz: unknown = typeof client === "object" && client !== null ? Reflect.get(client, "healthz") : null
        if (typeof healthz !== "function") throw new Error("the bundled client has no healthz")
        const health: unknown = await healthz()
        const status = typeof health === "object" && health !== null ? Reflect.get(health, "status") : undefined
        assert.strictEqual(status, "ok")
        assert.match(String(server.received[0]?.headers["user-agent"]), /^signalman-sdk\/\d+\.\d+\.\d+/)
      })
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
