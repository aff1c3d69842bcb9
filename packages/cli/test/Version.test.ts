import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { userAgent } from "../src/ServiceClient.js"
import { version } from "../src/Version.js"
import { cliDir } from "./support/CliProcess.js"

describe("Version", () => {
  it("is the package's version, and the User-Agent carries it", () => {
    const manifest = Schema.decodeUnknownSync(Schema.parseJson(Schema.Struct({ version: Schema.String })))(
      fs.readFileSync(path.join(cliDir, "package.json"), "utf8")
    )
    assert.strictEqual(version, manifest.version)
    assert.strictEqual(userAgent, `signalman-cli/${manifest.version}`)
  })
})
