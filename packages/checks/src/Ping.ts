/**
 * The ping check: one ICMP echo to each address the host resolves to, in turn, until one replies; the reply's
 * round-trip time is the result's duration. Node cannot open ICMP sockets, so the echo is sent by the system's
 * `ping` (iputils), behind the {@link Pinger} service so tests can answer with recorded outputs.
 *
 * @since 0.1.0
 */
import { spawn } from "node:child_process"
import * as net from "node:net"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { PingCheck } from "@signalman/core/CheckSpec"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as AddressGuard from "./AddressGuard.js"
import { ProbeSettings } from "./ProbeSettings.js"
import { Resolver } from "./Resolver.js"

/**
 * What one run of the ping command printed and how it exited (`null` when a signal ended it).
 *
 * @since 0.1.0
 * @category models
 */
export interface PingRun {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * The ping command could not be run at all: the binary is missing or cannot be executed.
 *
 * @since 0.1.0
 * @category errors
 */
export class PingUnavailable extends Data.TaggedError("PingUnavailable")<{ readonly message: string }> {}

/**
 * Sends one ICMP echo to one address and reports what the command printed. `timeoutSeconds` is how long to wait
 * for the reply; the caller also interrupts the run when its own share of the check's timeout is spent.
 *
 * @since 0.1.0
 * @category services
 */
export class Pinger extends Context.Tag("Signalman/Pinger")<
  Pinger,
  {
    readonly echo: (address: string, family: 4 | 6, timeoutSeconds: number) => Effect.Effect<PingRun, PingUnavailable>
  }
>() {}

// Output beyond this is not needed to read one echo and would only grow memory if a binary misbehaved.
const maxOutput = 16 * 1024

/**
 * A {@link Pinger} that runs `binary` as iputils ping: `-n -c 1 -W <secs> -4|-6 <address>`, in the C locale so
 * its messages read the same on every host. `-W` takes whole seconds on older iputils, so it is rounded up and
 * the exact share is enforced by interrupting the run, which kills the process.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerCommand = (binary: string): Layer.Layer<Pinger> =>
  Layer.succeed(Pinger, {
    echo: (address, family, timeoutSeconds) =>
      Effect.async<PingRun, PingUnavailable>((resume) => {
        let settled = false
        let stdout = ""
        let stderr = ""
        const wait = String(Math.max(1, Math.ceil(timeoutSeconds)))
        const child = spawn(binary, ["-n", "-c", "1", "-W", wait, family === 6 ? "-6" : "-4", address], {
          stdio: ["ignore", "pipe", "pipe"],
          env: { ...process.env, LC_ALL: "C" }
        })
        child.stdout.on("data", (chunk: Buffer) => {
          if (stdout.length < maxOutput) stdout += chunk.toString("utf8")
        })
        child.stderr.on("data", (chunk: Buffer) => {
          if (stderr.length < maxOutput) stderr += chunk.toString("utf8")
        })
        child.on("error", (cause) => {
          if (settled) return
          settled = true
          const code = "code" in cause ? cause.code : undefined
          resume(
            Effect.fail(
              new PingUnavailable({
                message:
                  code === "ENOENT"
                    ? `ping: the system ping binary (${binary}) is not installed; install iputils-ping`
                    : `ping: cannot run ${binary}: ${cause.message}`
              })
            )
          )
        })
        child.on("close", (exitCode) => {
          if (settled) return
          settled = true
          resume(Effect.succeed({ exitCode, stdout, stderr }))
        })
        return Effect.sync(() => {
          settled = true
          child.kill("SIGKILL")
        })
      })
  })

/**
 * The system's `ping` found on the PATH.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Pinger> = layerCommand("ping")

/**
 * What one echo came to: a reply with its round-trip time; no reply (silence, an ICMP error, no route), which
 * moves on to the next address; no permission to open the ICMP socket; or a command that could not do its job.
 *
 * @since 0.1.0
 * @category models
 */
export type Echo =
  | { readonly _tag: "Reply"; readonly rttMs: number }
  | { readonly _tag: "NoReply"; readonly reason: string }
  | { readonly _tag: "NoPermission"; readonly reason: string }
  | { readonly _tag: "Failed"; readonly reason: string }

// iputils without CAP_NET_RAW and outside net.ipv4.ping_group_range prints `socket: Operation not permitted`
// (older builds `socket: Permission denied`), then a hint about the capability; busybox asks `are you root?`.
const permission = /operation not permitted|permission denied|cap_net_raw|are you root|must be root/i

// A ping that is not iputils or refuses our options: no reply could ever come, so it is not the target's fault.
const unusable = /usage:|invalid option|unrecognized option|illegal option|invalid argument/i

const replyTime = /\btime[=<]\s*([\d.]+)\s*ms\b/
const summaryTime = /=\s*[\d.]+\/([\d.]+)\/[\d.]+/
const icmpError = /^From \S+.*?\s((?:Destination|Time to live|Frag|Source|Packet|Parameter)\b.*)$/im

const lines = (text: string): ReadonlyArray<string> =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")

// `ping: socket: Operation not permitted` reads better without the program's own name.
const withoutProgram = (line: string): string => line.replace(/^\S*ping\d?:\s*/, "")

/**
 * Read one run of iputils ping: a reply with its time, no reply (with the ICMP error if any), no permission, or failed.
 *
 * @since 0.1.0
 * @category parsing
 */
export const interpret = (run: PingRun): Echo => {
  const output = `${run.stderr}\n${run.stdout}`
  const said = lines(run.stderr)
  const permissionLine = lines(output).find((line) => permission.test(line))
  if (run.exitCode !== 0 && permissionLine !== undefined) {
    return { _tag: "NoPermission", reason: withoutProgram(permissionLine) }
  }
  if (run.exitCode === 0) {
    const time = replyTime.exec(run.stdout) ?? summaryTime.exec(run.stdout)
    const rttMs = time === null ? Number.NaN : Number.parseFloat(time[1]!)
    return Number.isFinite(rttMs)
      ? { _tag: "Reply", rttMs }
      : { _tag: "Failed", reason: "ping answered without a round-trip time" }
  }
  if (unusable.test(output)) {
    return { _tag: "Failed", reason: withoutProgram(said[0] ?? lines(output)[0] ?? "usage error") }
  }
  if (run.exitCode === 1) {
    const error = icmpError.exec(run.stdout)
    return { _tag: "NoReply", reason: error === null ? "no reply" : error[1]!.trim() }
  }
  if (run.exitCode === null) return { _tag: "Failed", reason: "ping was ended by a signal" }
  return { _tag: "NoReply", reason: said[0] === undefined ? `exit ${run.exitCode}` : withoutProgram(said[0]) }
}

// A name with more addresses than this is pinged on the first ones only; each would get too thin a share.
const maxAddresses = 8

const seconds = (ms: number): string => `${Math.round(ms / 10) / 100} s`

/**
 * Run a ping check: up with the first reply's round-trip time, down on silence for the whole timeout, error when
 * blocked, not permitted or without a `ping` binary.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (spec: PingCheck): Effect.Effect<ProbeOutcome, never, Pinger | ProbeSettings | Resolver> =>
  Effect.gen(function* () {
    const settings = yield* ProbeSettings
    const resolver = yield* Resolver
    const pinger = yield* Pinger
    const started = yield* Clock.currentTimeMillis
    const finish = (
      status: ProbeOutcome["status"],
      error: string | null,
      details: Record<string, unknown> | null = null,
      duration?: number
    ): Effect.Effect<ProbeOutcome> =>
      Effect.map(Clock.currentTimeMillis, (now) => ({
        status,
        duration_ms: duration ?? now - started,
        error,
        details,
        phases: null
      }))

    const resolved = yield* Effect.either(resolver.lookup(spec.host, "any"))
    if (Either.isLeft(resolved)) return yield* finish("down", resolved.left.message)
    const verdicts = resolved.right.map((address) => ({ address, verdict: AddressGuard.check(address.address) }))
    const allowed = verdicts.filter(({ verdict }) => settings.allowPrivateTargets || verdict.allowed)
    if (allowed.length === 0) {
      const refused = verdicts.map(({ verdict }) => verdict).find((verdict) => !verdict.allowed)
      return yield* finish(
        "error",
        refused === undefined || refused.allowed
          ? `blocked: ${spec.host} has no address to ping`
          : AddressGuard.blockedMessage(spec.host, refused)
      )
    }

    const addresses = allowed.slice(0, maxAddresses).map(({ address }) => address)
    const deadline = started + spec.timeout * 1000
    const silence: Array<string> = []
    for (const [index, { address, family }] of addresses.entries()) {
      const now = yield* Clock.currentTimeMillis
      // An equal share of the time left for each address still to try, so a silent first address cannot starve
      // the others; together they add up to the check's timeout.
      const share = (deadline - now) / (addresses.length - index)
      if (share <= 0) break
      // The Resolver returns IP literals; refusing anything else keeps a hostile string off ping's command line.
      if (net.isIP(address) === 0) {
        silence.push(`${address}: not an IP address`)
        continue
      }
      const run = yield* pinger
        .echo(address, family, share / 1000)
        .pipe(Effect.map(interpret), Effect.timeoutOption(share), Effect.either)
      if (Either.isLeft(run)) return yield* finish("error", run.left.message)
      if (Option.isNone(run.right)) {
        silence.push(`${address}: no reply within ${seconds(share)}`)
        continue
      }
      const echo = run.right.value
      switch (echo._tag) {
        case "Reply":
          return yield* finish("up", null, { host: spec.host, address }, echo.rttMs)
        case "NoPermission":
          // Opening the socket is the usual refusal; a firewall refusing the send (`sendmsg: Operation not
          // permitted`) is the host's doing too, so both are error rather than downtime.
          return yield* finish(
            "error",
            /sendmsg|sendto/.test(echo.reason)
              ? `ping: not permitted to send an ICMP echo (${echo.reason})`
              : `ping: no permission to open an ICMP socket (${echo.reason})`
          )
        case "Failed":
          return yield* finish("error", `ping: ${echo.reason}`)
        case "NoReply":
          silence.push(`${address}: ${echo.reason}`)
      }
    }
    return yield* finish("down", `ping: no reply from ${spec.host} (${silence.join("; ")})`)
  })
