import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as HashMap from "effect/HashMap"
import * as Logger from "effect/Logger"
import * as Config from "../src/config/Config.js"
import * as Logging from "../src/Logging.js"
import { withRequestId } from "../src/Logging.js"

/** Handled as the request with this id, as the listener leaves it (`ResponseHeaders.prepare`). */
const inRequest =
  (requestId: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>) =>
    Effect.provideService(
      self,
      HttpServerRequest.HttpServerRequest,
      HttpServerRequest.fromWeb(new Request("http://127.0.0.1/api/v1/me", { headers: { "x-request-id": requestId } }))
    )

const capture = () => {
  const lines: Array<Record<string, unknown>> = []
  const logger = withRequestId(
    Logger.make<unknown, void>(({ annotations, message }) => {
      lines.push({ message, ...Object.fromEntries(HashMap.toEntries(annotations)) })
    })
  )
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

describe("Logging", () => {
  it.effect("a line logged while a request is handled carries its request_id", () => {
    const { lines, layer } = capture()
    return Effect.gen(function* () {
      yield* Effect.log("inside").pipe(inRequest("req-1"))
      // A fiber forked by the request keeps the id, as its annotations would.
      yield* Effect.fork(Effect.log("forked")).pipe(
        Effect.flatMap((fiber) => fiber.await),
        inRequest("req-2")
      )
      yield* Effect.log("outside")
      expect(lines).toEqual([
        { message: ["inside"], request_id: "req-1" },
        { message: ["forked"], request_id: "req-2" },
        { message: ["outside"] }
      ])
    }).pipe(Effect.provide(layer))
  })

  it.effect("an explicit request_id annotation is kept as it is", () => {
    const { lines, layer } = capture()
    return Effect.log("x").pipe(
      Effect.annotateLogs("request_id", "given"),
      inRequest("from-request"),
      Effect.zipRight(Effect.sync(() => expect(lines).toEqual([{ message: ["x"], request_id: "given" }]))),
      Effect.provide(layer)
    )
  })

  it.effect("the service's logger provided twice (the process and the app) writes each line once", () => {
    const written: Array<unknown> = []
    const log = console.log
    console.log = (...args: Array<unknown>) => {
      written.push(...args)
    }
    const config = Config.fromEnv({ LOG__FORMAT: "json" })
    return Effect.log("once").pipe(
      Effect.provide(Logging.layer(config)),
      Effect.provide(Logging.layer(config)),
      Effect.ensuring(Effect.sync(() => (console.log = log))),
      Effect.zipRight(
        Effect.sync(() => expect(written.filter((line) => String(line).includes('"once"')).length).toBe(1))
      )
    )
  })
})
