#!/usr/bin/env node
/**
 * @since 0.1.0
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { run } from "./Cli.js"

run(process.argv).pipe(
  // A failed command has printed its reason; the exit code says the rest.
  Effect.catchTags({
    NotReady: () =>
      Effect.sync(() => {
        process.exitCode = 1
      }),
    Failed: ({ code }) =>
      Effect.sync(() => {
        process.exitCode = code
      }),
    CredentialsFileError: (error) =>
      Effect.zipRight(
        Console.error(`signalman: ${error.message}`),
        Effect.sync(() => {
          process.exitCode = 1
        })
      )
  }),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
