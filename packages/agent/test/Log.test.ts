import { assert, describe, it } from "@effect/vitest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Schema from "effect/Schema"
import * as Log from "../src/Log.js"

const Line = Schema.parseJson(
  Schema.Struct({
    time: Schema.String,
    level: Schema.String,
    message: Schema.String,
    fields: Schema.Record({ key: Schema.String, value: Schema.Unknown })
  })
)

const capture = (effect: Effect.Effect<void>, secrets: ReadonlyArray<string> = []) => {
  const lines: Array<string> = []
  return Effect.as(
    effect.pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, Log.make({ write: (line) => lines.push(line), secrets }))),
      Logger.withMinimumLogLevel(LogLevel.Debug)
    ),
    lines
  )
}

describe("Log", () => {
  it.effect("one JSON object per line: time, level, message, fields", () =>
    Effect.gen(function* () {
      const lines = yield* capture(
        Effect.logWarning("Cannot reach the service; retrying").pipe(
          Effect.annotateLogs({ attempt: 2, error: "ECONNREFUSED" })
        )
      )
      assert.strictEqual(lines.length, 1)
      assert.isTrue(lines[0]!.endsWith("\n") && !lines[0]!.slice(0, -1).includes("\n"))
      const line = Schema.decodeUnknownSync(Line)(lines[0])
      assert.deepStrictEqual(
        { level: line.level, message: line.message, fields: line.fields },
        { level: "warn", message: "Cannot reach the service; retrying", fields: { attempt: 2, error: "ECONNREFUSED" } }
      )
      assert.isFalse(Number.isNaN(Date.parse(line.time)))
    })
  )

  it.effect("levels by name, and a cause in fields", () =>
    Effect.gen(function* () {
      const lines = yield* capture(
        Effect.all([Effect.logDebug("d"), Effect.logInfo("i"), Effect.logError("e", Cause.fail(new Error("boom")))])
      )
      const decoded = lines.map((text) => Schema.decodeUnknownSync(Line)(text))
      assert.deepStrictEqual(
        decoded.map((line) => line.level),
        ["debug", "info", "error"]
      )
      assert.include(String(decoded[2]?.fields["cause"]), "boom")
    })
  )

  it.effect("a secret is scrubbed wherever it appears: message, fields, cause", () =>
    Effect.gen(function* () {
      const token = "sm_agent_secret0123"
      const lines = yield* capture(
        Effect.logError(`with ${token} inside`, new Error(`Authorization: Bearer ${token}`)).pipe(
          Effect.annotateLogs("header", `Bearer ${token}`)
        ),
        [token]
      )
      assert.notInclude(lines[0], token)
      assert.include(lines[0], Log.REDACTED)
    })
  )

  it("scrub leaves a line without secrets unchanged, and ignores an empty secret", () => {
    assert.strictEqual(Log.scrub("plain", ["", "other"]), "plain")
    assert.strictEqual(Log.scrub("a-b-a", ["a"]), "[redacted]-b-[redacted]")
  })
})
