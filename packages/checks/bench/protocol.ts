/**
 * The messages `bench/probes.ts` exchanges with its children over the IPC channel, decoded on arrival: a child is
 * another program, and a message it sends is untrusted input like any other.
 */
import * as Schema from "effect/Schema"

/** What the loopback server says once it listens: the ports, all on 127.0.0.1. */
export const Listening = Schema.Struct({ _tag: Schema.Literal("Listening"), ports: Schema.Array(Schema.Int) })

/** The CPU time a process has used so far, in milliseconds (user + system). */
export const CpuReport = Schema.Struct({ _tag: Schema.Literal("Cpu"), cpuMs: Schema.Number })

/** A loader (bare loop or engine) is ready: its settings are built and it waits for rounds. */
export const Ready = Schema.Struct({ _tag: Schema.Literal("Ready"), describe: Schema.String })

/** The parent asks a loader for one batch of checks, or the server for its CPU time. */
export const Command = Schema.Union(
  Schema.Struct({ _tag: Schema.Literal("Round"), round: Schema.Int }),
  Schema.Struct({ _tag: Schema.Literal("Cpu") })
)
export type Command = typeof Command.Type

/**
 * One batch as the loader saw it. `elapsedMs` runs from the first check started to the last one settled; `ok`
 * counts checks that got a 200 (the engine's: status `up` with status_code 200); every other check is a failure,
 * described (at most a few) in `problems`. `peakRssBytes` is the highest RSS sampled during the batch (every 10 ms),
 * `maxRssBytes` the process's high-water mark so far (`process.resourceUsage().maxRSS`).
 */
export const RoundReport = Schema.Struct({
  _tag: Schema.Literal("RoundReport"),
  round: Schema.Int,
  checks: Schema.Int,
  ok: Schema.Int,
  failed: Schema.Int,
  problems: Schema.Array(Schema.String),
  elapsedMs: Schema.Number,
  cpuMs: Schema.Number,
  peakRssBytes: Schema.Number,
  maxRssBytes: Schema.Number,
  heapUsedBytes: Schema.Number
})
export type RoundReport = typeof RoundReport.Type

export const ChildMessage = Schema.Union(Listening, CpuReport, Ready, RoundReport)
export type ChildMessage = typeof ChildMessage.Type

export const decodeChildMessage = Schema.decodeUnknownEither(ChildMessage)
export const decodeCommand = Schema.decodeUnknownEither(Command)
