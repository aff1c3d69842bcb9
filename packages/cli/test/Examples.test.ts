/**
 * The example config (examples/cli-config) is valid, in YAML and in TypeScript, and the two describe the same state.
 */
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ConfigCheck from "../src/ConfigCheck.js"
import { cliDir } from "./support/CliProcess.js"

const example = path.resolve(cliDir, "../../examples/cli-config")
const env = { SHOP_API_TOKEN: "example-token", SLACK_WEBHOOK_URL: "https://hooks.slack.example/services/T/B/X" }

describe("examples/cli-config", () => {
  it.effect("signalman.yaml and signalman.config.ts are valid and equal", () =>
    Effect.gen(function* () {
      const yaml = yield* ConfigCheck.check({ cwd: example, file: "signalman.yaml", env })
      const ts = yield* ConfigCheck.check({ cwd: example, file: "signalman.config.ts", env })
      assert.deepStrictEqual(
        [yaml.desired.variables, yaml.desired.channels, yaml.desired.monitors].map((list) => list.length),
        [2, 2, 5]
      )
      assert.deepStrictEqual(ts.desired, yaml.desired)
    })
  )
})
