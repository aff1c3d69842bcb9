import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { assert, beforeEach, describe, it } from "@effect/vitest"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import { PingCheck } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Ping from "../src/Ping.js"
import { ProbeSettings } from "../src/ProbeSettings.js"
import * as Resolver from "../src/Resolver.js"
import { skipUnless } from "./support/Skip.js"

// Outputs recorded from iputils 20221126 (Debian 12), run with LC_ALL=C as the layer runs it.
const recorded = {
  reply: {
    exitCode: 0,
    stdout: [
      "PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.",
      "64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.245 ms",
      "",
      "--- 127.0.0.1 ping statistics ---",
      "1 packets transmitted, 1 received, 0% packet loss, time 0ms",
      "rtt min/avg/max/mdev = 0.245/0.245/0.245/0.000 ms",
      ""
    ].join("\n"),
    stderr: ""
  },
  silence: {
    exitCode: 1,
    stdout: [
      "PING 2001:db8::1(2001:db8::1) 56 data bytes",
      "",
      "--- 2001:db8::1 ping statistics ---",
      "1 packets transmitted, 0 received, 100% packet loss, time 0ms",
      ""
    ].join("\n"),
    stderr: ""
  },
  unreachable: {
    exitCode: 1,
    stdout: [
      "PING 10.255.255.1 (10.255.255.1) 56(84) bytes of data.",
      "From 21.4.2.27 icmp_seq=1 Destination Port Unreachable",
      "",
      "--- 10.255.255.1 ping statistics ---",
      "1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms",
      ""
    ].join("\n"),
    stderr: ""
  },
  // A copy of the binary without its file capability, run as nobody with net.ipv4.ping_group_range = "1 0".
  noCapability: {
    exitCode: 2,
    stdout: "",
    stderr: [
      "ping: socktype: SOCK_RAW",
      "ping: socket: Operation not permitted",
      "ping: => missing cap_net_raw+p capability or setuid?",
      ""
    ].join("\n")
  },
  olderPermission: { exitCode: 2, stdout: "", stderr: "ping: socket: Permission denied\n" },
  busyboxPermission: { exitCode: 1, stdout: "", stderr: "ping: permission denied (are you root?)\n" },
  firewall: {
    exitCode: 1,
    stdout: "PING 192.0.2.1 (192.0.2.1) 56(84) bytes of data.\n",
    stderr: "ping: sendmsg: Operation not permitted\n"
  },
  noRoute: { exitCode: 2, stdout: "", stderr: "ping: connect: Network is unreachable\n" },
  usage: { exitCode: 2, stdout: "", stderr: "ping: invalid option -- 'n'\nUsage: ping [-aAbBdDfhLnOqrRUvV64]\n" }
} satisfies Record<string, Ping.PingRun>

const settings = (allowPrivateTargets: boolean) =>
  Layer.succeed(ProbeSettings, {
    allowPrivateTargets,
    perHostMaxInflight: 2,
    rdapBootstrapUrl: "http://127.0.0.1:1/dns.json",
    rdapMaxInflight: 2,
    userAgent: "signalman-test",
    region: "test-region"
  })

const resolving = (addresses: ReadonlyArray<string>) =>
  Layer.succeed(Resolver.Resolver, {
    lookup: (host) =>
      addresses.length === 0
        ? Effect.fail(new Resolver.ResolveError({ host, message: `dns: no address for ${host}` }))
        : Effect.succeed(addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }) as const))
  })

// A Pinger answering each address with a recorded run, or never (silence until interrupted).
const fakePinger = (runs: Record<string, Ping.PingRun | "never">, asked: Array<string>) =>
  Layer.succeed(Ping.Pinger, {
    echo: (address) => {
      asked.push(address)
      const run = runs[address]
      return run === undefined || run === "never" ? Effect.never : Effect.succeed(run)
    }
  })

const check = (fields: Record<string, unknown>): PingCheck =>
  Schema.decodeUnknownSync(PingCheck)({ type: "ping", host: "target.example", ...fields })

const probe = (
  fields: Record<string, unknown>,
  layers: { addresses: ReadonlyArray<string>; pinger: Layer.Layer<Ping.Pinger>; allowPrivateTargets?: boolean }
): Effect.Effect<ProbeOutcome> =>
  Ping.probe(check(fields)).pipe(
    Effect.provide(
      Layer.mergeAll(settings(layers.allowPrivateTargets ?? false), resolving(layers.addresses), layers.pinger)
    )
  )

// Looked up the way the layer's spawn finds it: an executable `ping` in a PATH directory.
const hasPing = (process.env["PATH"] ?? "").split(path.delimiter).some((dir) => {
  try {
    fs.accessSync(path.join(dir, "ping"), fs.constants.X_OK)
    return true
  } catch {
    return false
  }
})

const hasIPv6Loopback = Object.values(os.networkInterfaces()).some((addresses) =>
  (addresses ?? []).some((address) => address.address === "::1")
)

describe("Ping", () => {
  describe("interpret (recorded iputils outputs)", () => {
    it("a reply reads its round-trip time", () => {
      assert.deepStrictEqual(Ping.interpret(recorded.reply), { _tag: "Reply", rttMs: 0.245 })
    })

    it("a reply without a time= line falls back to the summary", () => {
      const summaryOnly = { ...recorded.reply, stdout: "rtt min/avg/max/mdev = 1.5/2.25/3.0/0.1 ms\n" }
      assert.deepStrictEqual(Ping.interpret(summaryOnly), { _tag: "Reply", rttMs: 2.25 })
    })

    it("exit 1 with no reply is silence", () => {
      assert.deepStrictEqual(Ping.interpret(recorded.silence), { _tag: "NoReply", reason: "no reply" })
    })

    it("an ICMP error is no reply, naming the error", () => {
      assert.deepStrictEqual(Ping.interpret(recorded.unreachable), {
        _tag: "NoReply",
        reason: "Destination Port Unreachable"
      })
    })

    it("no permission to open the socket is told apart, with the reason", () => {
      assert.deepStrictEqual(Ping.interpret(recorded.noCapability), {
        _tag: "NoPermission",
        reason: "socket: Operation not permitted"
      })
      assert.deepStrictEqual(Ping.interpret(recorded.olderPermission), {
        _tag: "NoPermission",
        reason: "socket: Permission denied"
      })
      assert.strictEqual(Ping.interpret(recorded.busyboxPermission)._tag, "NoPermission")
      assert.deepStrictEqual(Ping.interpret(recorded.firewall), {
        _tag: "NoPermission",
        reason: "sendmsg: Operation not permitted"
      })
    })

    it("no route to the address is no reply", () => {
      assert.deepStrictEqual(Ping.interpret(recorded.noRoute), {
        _tag: "NoReply",
        reason: "connect: Network is unreachable"
      })
    })

    it("a ping that refuses our options failed to run", () => {
      assert.deepStrictEqual(Ping.interpret(recorded.usage), { _tag: "Failed", reason: "invalid option -- 'n'" })
    })
  })

  describe("probe", () => {
    it.live("one echo per address in turn until a reply: the reply's round-trip time is duration_ms", () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        const outcome = yield* probe(
          {},
          {
            addresses: ["2606:4700::1", "1.1.1.1", "8.8.8.8"],
            pinger: fakePinger({ "2606:4700::1": recorded.noRoute, "1.1.1.1": recorded.reply }, asked)
          }
        )
        assert.deepStrictEqual(outcome, {
          status: "up",
          duration_ms: 0.245,
          error: null,
          details: { host: "target.example", address: "1.1.1.1" },
          phases: null
        })
        assert.deepStrictEqual(asked, ["2606:4700::1", "1.1.1.1"])
      })
    )

    it.live("silence from every address for the whole timeout is down, the time split between them", () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        const outcome = yield* probe(
          { timeout: 1 },
          { addresses: ["1.1.1.1", "8.8.8.8"], pinger: fakePinger({ "1.1.1.1": "never", "8.8.8.8": "never" }, asked) }
        )
        assert.strictEqual(outcome.status, "down")
        assert.match(outcome.error ?? "", /^ping: no reply from target\.example \(1\.1\.1\.1: no reply within 0\.5 s; /)
        assert.deepStrictEqual(asked, ["1.1.1.1", "8.8.8.8"])
        assert.isAtLeast(outcome.duration_ms, 950)
        assert.isBelow(outcome.duration_ms, 2500)
      })
    )

    it.live("an ICMP error from every address is down with the reasons", () =>
      Effect.gen(function* () {
        const outcome = yield* probe(
          {},
          { addresses: ["1.1.1.1"], pinger: fakePinger({ "1.1.1.1": recorded.unreachable }, []) }
        )
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "ping: no reply from target.example (1.1.1.1: Destination Port Unreachable)")
      })
    )

    it.live("no permission to open the ICMP socket is error with the reason, and stops there", () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        const outcome = yield* probe(
          {},
          { addresses: ["1.1.1.1", "8.8.8.8"], pinger: fakePinger({ "1.1.1.1": recorded.noCapability }, asked) }
        )
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(
          outcome.error,
          "ping: no permission to open an ICMP socket (socket: Operation not permitted)"
        )
        assert.deepStrictEqual(asked, ["1.1.1.1"])
      })
    )

    it.live("internal addresses are filtered out; the rest are pinged", () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        const outcome = yield* probe(
          {},
          { addresses: ["10.0.0.7", "8.8.8.8"], pinger: fakePinger({ "8.8.8.8": recorded.reply }, asked) }
        )
        assert.strictEqual(outcome.status, "up")
        assert.deepStrictEqual(asked, ["8.8.8.8"])
      })
    )

    it.live("a name with only internal addresses is blocked: error, nothing pinged", () =>
      Effect.gen(function* () {
        const asked: Array<string> = []
        const outcome = yield* probe({}, { addresses: ["127.0.0.1", "::1"], pinger: fakePinger({}, asked) })
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "blocked: target.example resolves to 127.0.0.1, a loopback address")
        assert.deepStrictEqual(asked, [])
      })
    )

    it.live("a name that does not resolve is down", () =>
      Effect.gen(function* () {
        const outcome = yield* probe({}, { addresses: [], pinger: fakePinger({}, []) })
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "dns: no address for target.example")
      })
    )

    it.live("a missing ping binary is error saying so", () =>
      Effect.gen(function* () {
        const outcome = yield* probe(
          {},
          { addresses: ["127.0.0.1"], pinger: Ping.layerCommand("/nonexistent/ping"), allowPrivateTargets: true }
        )
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(
          outcome.error,
          "ping: the system ping binary (/nonexistent/ping) is not installed; install iputils-ping"
        )
      })
    )

    it.live("with the system layers, loopback without allow_private_targets is blocked before ping runs", () =>
      Effect.gen(function* () {
        const outcome = yield* Ping.probe(check({ host: "127.0.0.1" })).pipe(
          Effect.provide(Layer.mergeAll(settings(false), Resolver.layer, Ping.layer))
        )
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "blocked: 127.0.0.1 is a loopback address")
      })
    )
  })

  describe("the command layer, against a stand-in ping (runs everywhere)", () => {
    // A shell script in place of iputils ping: it records how it was called and answers by address with the
    // recorded outputs above, so spawning, arguments, locale, exit codes and the kill at the share are tested on
    // machines without ping too.
    const script = [
      "#!/bin/sh",
      'here=$(dirname "$0")',
      'echo "LC_ALL=$LC_ALL $*" >> "$here/calls"',
      "for address; do :; done",
      'case "$address" in',
      `  127.0.0.1|::1) printf '%s' '${recorded.reply.stdout}'; exit 0 ;;`,
      `  192.0.2.1) printf '%s' '${recorded.silence.stdout}'; exit 1 ;;`,
      '  192.0.2.2) echo $$ > "$here/pid"; exec sleep 30 ;;',
      `  *) printf '%s' '${recorded.noCapability.stderr}' >&2; exit 2 ;;`,
      "esac",
      ""
    ].join("\n")

    const standIn = Effect.acquireRelease(
      Effect.sync(() => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "signalman-ping-"))
        fs.writeFileSync(path.join(dir, "ping"), script, { mode: 0o755 })
        return dir
      }),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )

    const calls = (dir: string): ReadonlyArray<string> =>
      fs.readFileSync(path.join(dir, "calls"), "utf8").trim().split("\n")

    const run = (dir: string, addresses: ReadonlyArray<string>, timeout: number) =>
      probe({ timeout }, { addresses, pinger: Ping.layerCommand(path.join(dir, "ping")), allowPrivateTargets: true })

    it.scopedLive("runs -n -c 1 -W <secs> -4 <address> in the C locale and reads the reply's time", () =>
      Effect.gen(function* () {
        const dir = yield* standIn
        const outcome = yield* run(dir, ["127.0.0.1"], 5)
        assert.deepStrictEqual(outcome, {
          status: "up",
          duration_ms: 0.245,
          error: null,
          details: { host: "target.example", address: "127.0.0.1" },
          phases: null
        })
        assert.deepStrictEqual(calls(dir), ["LC_ALL=C -n -c 1 -W 5 -4 127.0.0.1"])
      })
    )

    it.scopedLive("an IPv6 address is pinged with -6; -W is the share rounded up to whole seconds", () =>
      Effect.gen(function* () {
        const dir = yield* standIn
        const outcome = yield* run(dir, ["192.0.2.1", "::1"], 3)
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        assert.deepStrictEqual(calls(dir), ["LC_ALL=C -n -c 1 -W 2 -4 192.0.2.1", "LC_ALL=C -n -c 1 -W 3 -6 ::1"])
      })
    )

    it.scopedLive("exit 1 without a reply from every address is down", () =>
      Effect.gen(function* () {
        const dir = yield* standIn
        const outcome = yield* run(dir, ["192.0.2.1"], 2)
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "ping: no reply from target.example (192.0.2.1: no reply)")
      })
    )

    it.scopedLive("no permission on stderr with exit 2 is error with the reason", () =>
      Effect.gen(function* () {
        const dir = yield* standIn
        const outcome = yield* run(dir, ["192.0.2.9"], 2)
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(
          outcome.error,
          "ping: no permission to open an ICMP socket (socket: Operation not permitted)"
        )
      })
    )

    it.scopedLive("a ping that outlives its share is killed, and the check is down at its timeout", () =>
      Effect.gen(function* () {
        const dir = yield* standIn
        const outcome = yield* run(dir, ["192.0.2.2"], 1)
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "ping: no reply from target.example (192.0.2.2: no reply within 1 s)")
        assert.isBelow(outcome.duration_ms, 2500)
        const pid = Number(fs.readFileSync(path.join(dir, "pid"), "utf8"))
        const gone = Effect.suspend(() => {
          try {
            process.kill(pid, 0)
            return Effect.fail("still running")
          } catch {
            return Effect.void
          }
        })
        yield* gone.pipe(Effect.retry({ times: 50, schedule: Schedule.spaced("20 millis") }))
      })
    )

    it.scopedLive("a ping that cannot be executed is error saying so", () =>
      Effect.gen(function* () {
        const dir = yield* standIn
        fs.chmodSync(path.join(dir, "ping"), 0o644)
        const outcome = yield* run(dir, ["127.0.0.1"], 2)
        assert.strictEqual(outcome.status, "error")
        assert.match(outcome.error ?? "", /^ping: cannot run .*\/ping: spawn .*EACCES$/)
      })
    )
  })

  describe("the system ping, for real (needs `ping` from iputils-ping; skipped without it)", () => {
    const real = (host: string) =>
      Ping.probe(check({ host, timeout: 5 })).pipe(
        Effect.provide(Layer.mergeAll(settings(true), Resolver.layer, Ping.layer))
      )

    beforeEach((context) => {
      skipUnless(context, hasPing, "ping probe tests skipped: no `ping` on this machine (install iputils-ping)")
    })

    it.live("127.0.0.1 answers; duration_ms is the round-trip time", () =>
      Effect.gen(function* () {
        const outcome = yield* real("127.0.0.1")
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        assert.isAbove(outcome.duration_ms, 0)
        assert.isBelow(outcome.duration_ms, 1000)
        assert.deepStrictEqual(outcome.details, { host: "127.0.0.1", address: "127.0.0.1" })
      })
    )

    it.live("::1 answers (needs an IPv6 loopback)", (context) => {
      skipUnless(context, hasIPv6Loopback, "ping ::1 test skipped: no IPv6 loopback (::1) on this machine")
      return Effect.gen(function* () {
        const outcome = yield* real("::1")
        assert.strictEqual(outcome.status, "up", outcome.error ?? "")
        assert.isBelow(outcome.duration_ms, 1000)
      })
    })
  })
})
