#!/usr/bin/env node
/**
 * `signalman-agent`: reads the flags and the environment, then runs the agent. The first SIGTERM or SIGINT drains
 * it; a second exits at once. Exit codes are `ExitCode`'s.
 *
 * @since 0.1.0
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberId from "effect/FiberId"
import * as ExitCode from "./ExitCode.js"
import { program } from "./main.js"
import * as Settings from "./Settings.js"
import { version } from "./Version.js"

const exit = (code: number, line?: string): never => {
  if (line !== undefined) process.stderr.write(`${line}\n`)
  process.exit(code)
}

const command = Settings.read(process.argv.slice(2), process.env)
if (Either.isLeft(command)) exit(ExitCode.BAD_SETTINGS, `signalman-agent: ${command.left.message}`)
else if (command.right._tag === "help") {
  process.stdout.write(`${Settings.usage(version)}\n`)
  exit(ExitCode.OK)
} else if (command.right._tag === "version") {
  process.stdout.write(`${version}\n`)
  exit(ExitCode.OK)
} else {
  const settings = command.right.settings
  const drain = Deferred.unsafeMake<void>(FiberId.none)
  let signalled = false
  const onSignal = (signal: "SIGTERM" | "SIGINT") => {
    if (signalled) exit(ExitCode.bySignal(signal), `signalman-agent: second ${signal}: exiting at once`)
    signalled = true
    Deferred.unsafeDone(drain, Effect.void)
  }
  process.on("SIGTERM", () => onSignal("SIGTERM"))
  process.on("SIGINT", () => onSignal("SIGINT"))
  Effect.runPromise(program({ settings, drain: Deferred.await(drain) })).then(
    (ending) => exit(ending.code, ending.line),
    (error: unknown) => exit(ExitCode.FAILED, `signalman-agent: ${String(error)}`)
  )
}
