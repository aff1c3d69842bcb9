/**
 * The fleet end to end (issue 14, "How to test"): the real server and real agent processes (`packages/agent`'s
 * bin, run from source as `pnpm agent` runs it) in three regions, `a` and `c` with a browser and `b` without one,
 * probing real HTTP and TLS targets and flow pages this file serves on loopback.
 *
 * Nothing here hands the agents jobs or writes results: the server's leases, the agents' probes and the ingest do
 * it all. What is arranged by hand: http monitors run every 10 s (the operator lowers the account's interval floor,
 * a production path); each flow monitor's first slot is moved to now in `schedules` (a flow's interval floor is
 * 300 s and its first run lands at its phase somewhere in those 300 s; check-now runs a flow in the server's own
 * browser, not in the monitor's regions, so no production path makes an agent run a new flow promptly), which runs
 * it once, the next slot being 300 s on, after the file has ended; and a screenshot's expiry is moved into the past
 * before the pruning sweep is run, as FlowResults.test.ts does.
 *
 * One server and one fleet for the file (the agents are the server's, not an account's); each test works as a
 * person of its own, and the agents of a test's own (the guarded one, the revoked one) live in regions of their own.
 */
import * as NodeHttp from "node:http"
import * as NodeHttps from "node:https"
import type * as Net from "node:net"
import * as Zlib from "node:zlib"
import * as SqlClient from "@effect/sql/SqlClient"
import { expect } from "@effect/vitest"
import { IncidentPage } from "@signalman/core/api/Incidents"
import { Agent, CreatedAgent, OperatorRegion } from "@signalman/core/api/Operator"
import { FlowSteps, LatencyByRegion, ResultPage } from "@signalman/core/api/Results"
import { CreatedChannel } from "@signalman/core/Channel"
import { Target } from "@signalman/core/Target"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { EvidenceRepo } from "../../src/engine/EvidenceRepo.js"
import { pruneEvidence } from "../../src/engine/Upkeep.js"
import * as AgentProcess from "../support/AgentProcess.js"
import { eventually } from "../support/Eventually.js"
import * as FakeReceiver from "../support/FakeReceiver.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

const ADMIN = "operator-secret-for-the-fleet-0123456789"
const REGIONS = ["a", "b", "c"] as const
type Region = (typeof REGIONS)[number]
/** The interval of the http monitors, the kind's floor (the plan's is lowered to it by an override). */
const INTERVAL = 10
/** Long enough for a round in every region on a loaded machine: an interval, the lease lookahead and delivery. */
const ROUND_MS = 40_000

const env = {
  OPERATOR__ADMIN_TOKEN: ADMIN,
  // The webhook receiver is on loopback (the agents have a setting of their own for their targets).
  CHECKER__ALLOW_PRIVATE_TARGETS: "true",
  // The local region is not under test, and the machine's browser must not decide anything about it.
  CHECKER__BROWSER_PATH: "none",
  AGENTS__POLL_INTERVAL_MS: "200",
  AGENTS__LOOKAHEAD_MS: "500",
  // A revoked agent is refused, and its stream closed, within half a second.
  AGENTS__RECHECK_MS: "500",
  AGENTS__LEASE_SECS: "20",
  NOTIFIER__POLL_INTERVAL_MS: "100",
  INCIDENTS__TICK_INTERVAL_SECS: "1"
}

// ---------------------------------------------------------------------------------------------------------------
// The targets: one handler behind an HTTP and an HTTPS listener
// ---------------------------------------------------------------------------------------------------------------

interface Seen {
  readonly path: string
  readonly region: string | undefined
  readonly userAgent: string | undefined
  readonly tls: boolean
  /** The phase of the path's failing set the request was answered under (see `Site.fail`). */
  readonly phase: number
}

interface Site {
  readonly http: string
  readonly https: string
  readonly seen: ReadonlyArray<Seen>
  /** From now on `/p/<key>` answers 500 to requests whose X-Signalman-Region is in `regions`, 200 to the others. */
  readonly fail: (key: string, regions: ReadonlyArray<string>) => number
}

const header = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : value?.join(",")

const page = (body: string) => `<!doctype html><html><head><title>Fleet</title></head><body>${body}</body></html>`

/**
 * The monitored site. `/p/<key>` is an API whose health depends on the asking region; `/multi` answers each region
 * with a status of its own (200, 201, 202 for a, b, c), so a result shows which region's header its request
 * carried; `/login` and `/welcome` are a sign-in form that welcomes only `password`; `/slow` shows `#late` 10 s
 * after it loads.
 */
const site = (password: string = crypto.randomUUID()): Effect.Effect<Site, never, Scope.Scope> =>
  Effect.gen(function* () {
    const tls = yield* FakeReceiver.certificate
    const seen: Array<Seen> = []
    const failing = new Map<string, { readonly regions: ReadonlySet<string>; readonly phase: number }>()
    const answer = (secure: boolean): NodeHttp.RequestListener => {
      return (request, response) => {
        const url = new URL(request.url ?? "/", "http://site")
        const region = header(request.headers["x-signalman-region"])
        const key = /^\/p\/([a-z0-9-]+)$/.exec(url.pathname)?.[1]
        const state = key === undefined ? undefined : failing.get(key)
        seen.push({
          path: url.pathname,
          region,
          userAgent: header(request.headers["user-agent"]),
          tls: secure,
          phase: state?.phase ?? 0
        })
        const send = (status: number, body: string, type = "text/plain") =>
          response.writeHead(status, { "content-type": type, "cache-control": "no-store" }).end(body)
        if (key !== undefined) {
          return send(region !== undefined && state?.regions.has(region) === true ? 500 : 200, key)
        }
        switch (url.pathname) {
          case "/multi":
            return send(200 + REGIONS.indexOf(region as Region), "ok")
          case "/login":
            return send(
              200,
              page(`<h1>Sign in</h1><form action="/welcome" method="get">
                <input id="password" name="password" type="password"><button id="go">Sign in</button></form>`),
              "text/html"
            )
          case "/welcome":
            return url.searchParams.get("password") === password
              ? send(200, page(`<h1 id="greeting">Welcome back</h1>`), "text/html")
              : send(200, page(`<h1 id="refused">Wrong password</h1>`), "text/html")
          case "/slow":
            return send(
              200,
              page(`<p>Loading</p><script>setTimeout(() => {
                const late = document.createElement("p"); late.id = "late"; late.textContent = "late";
                document.body.append(late) }, 10000)</script>`),
              "text/html"
            )
          default:
            return send(404, "not found")
        }
      }
    }
    const listen = (server: NodeHttp.Server) =>
      Effect.acquireRelease(
        Effect.async<number>((resume) => {
          server.listen(0, "127.0.0.1", () => resume(Effect.succeed((server.address() as Net.AddressInfo).port)))
        }),
        () =>
          Effect.async<void>((resume) => {
            server.closeAllConnections()
            server.close(() => resume(Effect.void))
          })
      )
    const httpPort = yield* listen(NodeHttp.createServer(answer(false)))
    const httpsPort = yield* listen(NodeHttps.createServer({ key: tls.key, cert: tls.cert }, answer(true)))
    let phases = 0
    return {
      http: `http://127.0.0.1:${httpPort}`,
      https: `https://127.0.0.1:${httpsPort}`,
      seen,
      fail: (key, regions) => {
        phases += 1
        failing.set(key, { regions: new Set(regions), phase: phases })
        return phases
      }
    }
  })

// ---------------------------------------------------------------------------------------------------------------
// The fleet: three regions, an agent process in each
// ---------------------------------------------------------------------------------------------------------------

interface Member {
  readonly region: string
  readonly id: string
  readonly process: AgentProcess.AgentProcess
}

interface FleetShape {
  readonly members: Readonly<Record<Region, Member>>
  /** Every agent process this file started, its own tests' included: none may ever print a secret. */
  readonly processes: Array<AgentProcess.AgentProcess>
}

class Fleet extends Context.Tag("test/Fleet")<Fleet, FleetShape>() {}

const operator = (path: string, init: { readonly method?: string; readonly json?: unknown } = {}) =>
  Effect.flatMap(Fixture.server, (server) =>
    Http.request(`${server.baseUrl}/operator${path}`, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: { authorization: `Bearer ${ADMIN}` },
      ...(init.json === undefined ? {} : { json: init.json })
    })
  )

const makeRegion = (id: string) =>
  Effect.map(operator("/regions", { json: { id, name: `Region ${id}` } }), (reply) =>
    Http.expectOk(reply, OperatorRegion, 201)
  )

// The suite's browser when it names one; otherwise the agent finds a system or the packaged one itself.
const browserEnv: Record<string, string> =
  process.env["CHROMIUM_PATH"] === undefined ? {} : { CHROMIUM_PATH: process.env["CHROMIUM_PATH"] }

/** A new agent of `region` on the operator surface, and its process started with the token (killed at scope end). */
const enlist = (region: string, agentEnv: Record<string, string>) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const created = Http.expectOk(
      yield* operator("/agents", { json: { region_id: region, name: `agent-${region}` } }),
      CreatedAgent,
      201
    )
    const process = yield* AgentProcess.start({
      SIGNALMAN_URL: server.baseUrl,
      SIGNALMAN_AGENT_TOKEN: created.token,
      // Every monitor of a test's person is on one loopback host: the throttle is not what this file is about.
      AGENT__PER_HOST_MAX_INFLIGHT: "50",
      AGENT__DRAIN_TIMEOUT_SECS: "5",
      ...browserEnv,
      ...agentEnv
    })
    return { region, id: created.id, process } satisfies Member
  })

const fleet = Layer.scoped(
  Fleet,
  Effect.gen(function* () {
    for (const region of REGIONS) yield* makeRegion(region)
    const private_ = { AGENT__ALLOW_PRIVATE_TARGETS: "true" }
    const members = {
      a: yield* enlist("a", private_),
      b: yield* enlist("b", { ...private_, AGENT__BROWSER_PATH: "none" }),
      c: yield* enlist("c", private_)
    }
    yield* Effect.all(
      Object.values(members).map((member) => AgentProcess.waitForLog(member.process, "Connected", 60_000)),
      { concurrency: "unbounded" }
    )
    return { members, processes: Object.values(members).map((member) => member.process) }
  })
)

// ---------------------------------------------------------------------------------------------------------------
// A person and the reads the tests make
// ---------------------------------------------------------------------------------------------------------------

/**
 * A person whose plan allows what the fleet needs (10 s http intervals, five regions, flows), with `api` that keeps
 * the text of every answer it got, for the secret's sake.
 */
const member = Effect.gen(function* () {
  const alice = yield* Fixture.person()
  const answers: Array<string> = []
  const overrides = { min_check_interval_secs: INTERVAL, max_regions: 5, max_flow_checks: 10 }
  expect((yield* operator(`/accounts/${alice.accountId}/overrides`, { method: "PUT", json: overrides })).status).toBe(
    200
  )
  const api = (path: string, init?: RequestInit & { readonly json?: unknown }) =>
    Effect.tap(alice.api(path, init), (reply) => Effect.sync(() => answers.push(reply.text)))
  const create = (body: Record<string, unknown>) =>
    Effect.gen(function* () {
      const reply = yield* api("/api/v1/targets", { json: { name: "m", interval: INTERVAL, ...body } })
      expect(reply.status, reply.text).toBe(201)
      return Http.decode(reply, Target).id
    })
  const results = (id: string, region: string) =>
    Effect.map(api(`/api/v1/targets/${id}/results?region=${region}&limit=100`), (reply) =>
      Http.decode(reply, ResultPage)
    )
  const wire = (id: string) => Effect.map(api(`/api/v1/targets/${id}`), (reply) => Http.wire(reply, Target))
  const incidents = (id: string) =>
    Effect.map(api(`/api/v1/incidents?target_id=${id}`), (reply) => Http.wire(reply, IncidentPage).data)
  return { alice, api, answers, create, results, wire, incidents }
})

/** Moves the monitor's slots in `regions` to now: each runs once, promptly (see the file's comment). */
const dueNow = (id: string, regions: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const server = yield* Fixture.server
    const moved = yield* server.sql<{ region: string }>`
      UPDATE schedules SET next_run_at = date_trunc('milliseconds', now())
      WHERE target_id = ${id} AND region IN ${server.sql.in([...regions])}
      RETURNING region
    `.pipe(Effect.orDie)
    expect(moved.map((row) => row.region).sort()).toEqual([...regions].sort())
  })

const PNG_SIGNATURE = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10])

/**
 * Reads a PNG through: signature, chunks, IHDR, and the image data inflated to exactly the bytes its size says (8
 * bits a sample). Throws on anything else, so a truncated or mislabelled screenshot fails the test.
 */
const readPng = (bytes: Uint8Array): { readonly width: number; readonly height: number } => {
  const png = Buffer.from(bytes)
  if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error("not a PNG: no signature")
  let offset = 8
  let header: { width: number; height: number; depth: number; colour: number } | undefined
  const data: Array<Buffer> = []
  for (;;) {
    if (offset + 12 > png.length) throw new Error("PNG ends before IEND")
    const length = png.readUInt32BE(offset)
    const type = png.toString("latin1", offset + 4, offset + 8)
    const body = png.subarray(offset + 8, offset + 8 + length)
    offset += 12 + length
    if (type === "IHDR") {
      header = { width: body.readUInt32BE(0), height: body.readUInt32BE(4), depth: body[8]!, colour: body[9]! }
    } else if (type === "IDAT") {
      data.push(body)
    } else if (type === "IEND") {
      break
    }
  }
  if (header === undefined) throw new Error("PNG without IHDR")
  const channels = ({ 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 } as Record<number, number>)[header.colour]
  if (channels === undefined || header.depth !== 8) throw new Error(`unexpected PNG format ${JSON.stringify(header)}`)
  const pixels = Zlib.inflateSync(Buffer.concat(data))
  // Each row: a filter byte, then its samples.
  expect(pixels.length).toBe(header.height * (1 + header.width * channels))
  return { width: header.width, height: header.height }
}

// ---------------------------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------------------------

Fixture.describeWith(
  `the fleet: the server and real agents in three regions (${TestDatabase.kind} database)`,
  fleet.pipe(Layer.provideMerge(Fixture.layer({ env }))),
  (it) => {
    it.effect("the operator sees each agent's last sign of life, version and browser", () =>
      Effect.gen(function* () {
        const { members } = yield* Fleet
        const ids = REGIONS.map((region) => members[region].id)
        // Each said hello before its "Connected" line; its stream opens right after.
        const listed = yield* eventually(
          Effect.map(
            operator("/agents"),
            (reply) => Http.decode(reply, Schema.Struct({ data: Schema.Array(Agent) })).data
          ),
          (agents) => ids.every((id) => agents.find((a) => a.id === id)?.connected === true)
        )
        const now = Date.now()
        for (const region of REGIONS) {
          const agent = listed.find((a) => a.id === members[region].id)
          expect(agent, region).toMatchObject({ region_id: region, version: "0.1.0", connected: true })
          const seen = agent?.last_seen_at ?? null
          expect(seen, region).not.toBeNull()
          if (seen !== null) expect(now - DateTime.toEpochMillis(seen), region).toBeLessThan(60_000)
        }
        // a and c found a browser (and said which); b was told it has none.
        expect(listed.find((a) => a.id === members.a.id)?.browser).toMatch(/chrom/i)
        expect(listed.find((a) => a.id === members.c.id)?.browser).toMatch(/chrom/i)
        expect(listed.find((a) => a.id === members.b.id)?.browser).toBeNull()
        const regions = Http.decode(yield* operator("/regions"), Schema.Struct({ data: Schema.Array(OperatorRegion) }))
        const capable = (id: string) => regions.data.find((r) => r.id === id)?.flow_capable
        expect(REGIONS.map(capable)).toEqual([true, false, true])
      })
    )

    it.scoped(
      "a monitor in regions a, b and c is probed from all three, over HTTP and TLS, each request naming its region",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const target = yield* site()
          const { create, results, api } = yield* member
          const plain = yield* create({ check: { type: "http", url: `${target.http}/multi` }, regions: REGIONS })
          const tls = yield* create({
            check: { type: "http", url: `${target.https}/multi`, verify_tls: false },
            regions: REGIONS
          })
          // The same TLS target verified: the agents do not trust a self-signed certificate by default.
          const verified = yield* create({ check: { type: "http", url: `${target.https}/multi` }, regions: REGIONS })

          const latest = (id: string, region: string) => Effect.map(results(id, region), (page) => page.data[0])
          for (const region of REGIONS) {
            const code = 200 + REGIONS.indexOf(region)
            for (const id of [plain, tls]) {
              const result = yield* eventually(latest(id, region), (r) => r !== undefined, { timeoutMs: ROUND_MS })
              // The status the site answered that region's header with: the request carried its own region.
              expect(result, `${region} ${id === tls ? "tls" : "http"}`).toMatchObject({ region, status: "up" })
              expect(result?.details?.["status_code"], region).toBe(code)
            }
            const refused = yield* eventually(latest(verified, region), (r) => r !== undefined, {
              timeoutMs: ROUND_MS
            })
            expect(refused, region).toMatchObject({ region, status: "down" })
            expect(refused?.error, region).toMatch(/certificate/i)
          }
          // `local` never ran it: the regions are the agents'.
          expect((yield* results(plain, "local")).total).toBe(0)

          const byRegion = Http.decode(yield* api(`/api/v1/targets/${plain}/latency/by-region`), LatencyByRegion)
          expect(byRegion.regions.map((r) => r.region).sort()).toEqual([...REGIONS])
          for (const series of byRegion.regions) {
            expect(
              series.buckets.reduce((n, bucket) => n + bucket.checks, 0),
              series.region
            ).toBeGreaterThan(0)
          }

          // Every request of these monitors named a region of the fleet and the agents' User-Agent; every region was
          // heard over plain HTTP and over TLS.
          const multi = target.seen.filter((s) => s.path === "/multi")
          for (const request of multi) {
            expect(REGIONS as ReadonlyArray<string | undefined>).toContain(request.region)
            expect(request.userAgent).toBe(`Signalman/0.1.0 (+${server.baseUrl})`)
          }
          for (const tlsUsed of [false, true]) {
            const heard = new Set(multi.filter((s) => s.tls === tlsUsed).map((s) => s.region))
            expect([...heard].sort(), tlsUsed ? "tls" : "http").toEqual([...REGIONS])
          }
        }),
      90_000
    )

    it.scoped(
      "each region policy with some regions failing: advisories short of it, one incident and one notice at it, recovery",
      () =>
        Effect.gen(function* () {
          const target = yield* site()
          const hook = yield* FakeReceiver.make()
          const { api, create, results, wire, incidents } = yield* member
          const channel = Http.expectOk(
            yield* api("/api/v1/channels", { json: { name: "hook", kind: "webhook", config: { url: hook.url } } }),
            CreatedChannel,
            201
          )

          /**
           * Each policy walks its failing sets in order, then every region recovers. A set short of the policy shows as
           * advisories and opens nothing; a set that meets it opens the incident, with those regions down.
           */
          interface Step {
            readonly failing: ReadonlyArray<Region>
            readonly meets: boolean
          }
          const scenarios: ReadonlyArray<{
            readonly key: string
            readonly policy: unknown
            readonly steps: Array<Step>
          }> = [
            { key: "any", policy: "any", steps: [{ failing: ["a"], meets: true }] },
            {
              key: "majority",
              policy: "majority",
              steps: [
                { failing: ["a"], meets: false },
                { failing: ["a", "b"], meets: true }
              ]
            },
            {
              key: "all",
              policy: "all",
              steps: [
                { failing: ["a", "b"], meets: false },
                { failing: ["a", "b", "c"], meets: true }
              ]
            },
            {
              key: "count",
              policy: { count: 2 },
              steps: [
                { failing: ["c"], meets: false },
                { failing: ["b", "c"], meets: true }
              ]
            }
          ]

          /** Waits until each region's request under `phase` was answered and its result is in, as the site said. */
          const round = (id: string, key: string, phase: number, failing: ReadonlyArray<Region>) =>
            Effect.gen(function* () {
              const answered = yield* eventually(
                Effect.sync(
                  () =>
                    new Set(target.seen.filter((s) => s.path === `/p/${key}` && s.phase === phase).map((s) => s.region))
                ),
                (regions) => regions.size === REGIONS.length,
                { timeoutMs: ROUND_MS }
              )
              expect([...answered].sort(), `${key}: regions that asked in phase ${phase}`).toEqual([...REGIONS])
              for (const region of REGIONS) {
                const expected = failing.includes(region) ? "down" : "up"
                const seen = yield* eventually(
                  Effect.map(results(id, region), (page) => page.data[0]?.status),
                  (status) => status === expected
                )
                expect(seen, `${key}: ${region} in phase ${phase}`).toBe(expected)
              }
            })

          const walk = (scenario: (typeof scenarios)[number]) =>
            Effect.gen(function* () {
              const { key, steps } = scenario
              // The first failing set is in place before the monitor's first round.
              let phase = target.fail(key, steps[0]!.failing)
              const id = yield* create({
                name: `policy ${key}`,
                check: { type: "http", url: `${target.http}/p/${key}` },
                regions: REGIONS,
                region_policy: scenario.policy,
                alert_confirmations: 1,
                recovery_period_secs: 0,
                renotify_interval_secs: 0,
                alerts: [{ channel_id: channel.id }]
              })
              for (const [index, step] of steps.entries()) {
                if (index > 0) phase = target.fail(key, step.failing)
                yield* round(id, key, phase, step.failing)
                if (step.meets) {
                  const [opened, ...more] = yield* eventually(incidents(id), (list) => list.length > 0)
                  expect(more, key).toEqual([])
                  expect(opened, key).toMatchObject({ status: "open", regions_down: [...step.failing] })
                  expect((yield* wire(id)).advisories, key).toEqual([])
                } else {
                  const advised = yield* eventually(
                    Effect.map(wire(id), (t) => (t.advisories ?? []).map((a) => [a.region, a.status])),
                    (list) => list.length === step.failing.length
                  )
                  expect(advised, key).toEqual(step.failing.map((region) => [region, "down"]))
                  expect(yield* incidents(id), `${key}: no incident short of the policy`).toEqual([])
                }
              }
              phase = target.fail(key, [])
              yield* round(id, key, phase, [])
              const [closed, ...more] = yield* eventually(incidents(id), (list) => list[0]?.status === "closed")
              expect(more, key).toEqual([])
              // The regions that were down stay on the closed incident.
              expect(closed, key).toMatchObject({ status: "closed", regions_down: [...steps.at(-1)!.failing] })
              const advisories = yield* eventually(
                Effect.map(wire(id), (t) => t.advisories ?? []),
                (list) => list.length === 0
              )
              expect(advisories, key).toEqual([])
              return { key, id, incident: closed!.id }
            })

          const walked = yield* Effect.all(scenarios.map(walk), { concurrency: "unbounded" })

          // One notice per transition: opened, then recovered, for each monitor, whatever the regions did between.
          const eventsOf = (id: string) =>
            hook
              .received()
              .map((r) => JSON.parse(r.body) as { type: string; target: { id: string }; incident: { id: string } })
              .filter((body) => body.target.id === id)
          yield* hook.waitFor(walked.length * 2)
          for (const { key, id, incident } of walked) {
            const events = eventsOf(id)
            expect(
              events.map((e) => e.type),
              key
            ).toEqual(["incident.opened", "incident.recovered"])
            expect(
              events.map((e) => e.incident.id),
              key
            ).toEqual([incident, incident])
          }
          expect(hook.received()).toHaveLength(walked.length * 2)
        }),
      120_000
    )

    it.scoped(
      "flows run on the agents: a login with a secret passes, a slow selector fails with a readable screenshot, a name for an internal address is refused by the proxy",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const { processes } = yield* Fleet
          const secret = `fleet-pw-${Math.random().toString(36).slice(2, 10)}`
          const target = yield* site(secret)
          const { alice, api, answers, create, results } = yield* member
          expect(
            (yield* api("/api/v1/variables", { json: { key: "password", is_secret: true, value: secret } })).status
          ).toBe(201)

          // Region d: an agent with a browser and the internal-address guard on, as agents run by default.
          yield* makeRegion("d")
          const guarded = yield* enlist("d", {})
          processes.push(guarded.process)
          yield* AgentProcess.waitForLog(guarded.process, "Connected", 60_000)

          const flow = (start: string, steps: ReadonlyArray<Record<string, unknown>>, stepTimeout: number) => ({
            type: "flow",
            start_url: start,
            steps,
            step_timeout: stepTimeout,
            timeout: 40
          })
          const login = flow(
            `${target.http}/login`,
            [
              { action: "fill", selector: "#password", value: "{{password}}" },
              { action: "click", selector: "#go" },
              { action: "wait_for", selector: "#greeting" },
              { action: "assert_text", text: "Welcome back" },
              { action: "assert_url", contains: "/welcome" }
            ],
            10
          )
          const loginId = yield* create({ name: "login", check: login, interval: 300, regions: ["a", "c"] })
          const slowId = yield* create({
            name: "slow",
            check: flow(
              `${target.http}/slow`,
              [
                { action: "wait_for", selector: "#late" },
                { action: "assert_text", text: "late" }
              ],
              1
            ),
            interval: 300,
            regions: ["a"]
          })
          // loopback by name: the start page cannot be somewhere the guard allows (every address this machine
          // answers on is internal), so the refusal is tested where the browser first dials, through the proxy.
          const port = new URL(target.http).port
          const blockedId = yield* create({
            name: "internal",
            check: flow(`http://localhost:${port}/login`, [{ action: "assert_text", text: "Sign in" }], 5),
            interval: 300,
            regions: ["d"]
          })
          // b's agent has no browser: no flow may run there.
          const refused = yield* api("/api/v1/targets", {
            json: { name: "f", check: login, interval: 300, regions: ["b"] }
          })
          expect(Http.refusal(refused)).toEqual({ status: 422, code: "NO_FLOW_CAPABLE_AGENT", field: "regions" })

          yield* dueNow(loginId, ["a", "c"])
          yield* dueNow(slowId, ["a"])
          yield* dueNow(blockedId, ["d"])
          const first = (id: string, region: string) =>
            Effect.map(
              eventually(results(id, region), (page) => page.total > 0, { timeoutMs: 60_000 }),
              (page) => page.data[0]
            )

          for (const region of ["a", "c"]) {
            const passed = yield* first(loginId, region)
            expect(passed, region).toMatchObject({ region, status: "up", error: null })
            expect(passed?.details?.["steps"], region).toEqual(
              ["fill", "click", "wait_for", "assert_text", "assert_url"].map((action, i) =>
                expect.objectContaining({ index: i + 1, action, status: "passed", error: null })
              )
            )
            // The site welcomed the secret (so the agent filled in the real value); the result says ***.
            expect(passed?.details?.["final_url"], region).toBe(`${target.http}/welcome?password=***`)
          }
          const welcomed = target.seen.filter((s) => s.path === "/welcome")
          expect(welcomed.map((s) => s.region).sort()).toEqual(["a", "c"])
          for (const request of target.seen.filter((s) => s.path === "/login" || s.path === "/welcome")) {
            expect(request.userAgent).toBe(`Signalman/0.1.0 (+${server.baseUrl})`)
          }

          const slow = yield* first(slowId, "a")
          expect(slow).toMatchObject({
            region: "a",
            status: "down",
            error: 'step 1 wait_for "#late": not found within 1 s'
          })
          expect(slow?.details?.["steps"]).toEqual([
            expect.objectContaining({ index: 1, action: "wait_for", status: "failed" }),
            expect.objectContaining({ index: 2, action: "assert_text", status: "skipped", duration_ms: 0 })
          ])
          const screenshot = slow?.details?.["screenshot_url"]
          expect(screenshot).toMatch(new RegExp(`^/api/v1/targets/${slowId}/results/[0-9a-f-]{36}/screenshot$`))

          const blocked = yield* first(blockedId, "d")
          expect(blocked).toMatchObject({ region: "d", status: "error" })
          expect(blocked?.error).toMatch(/^blocked: .*127\.0\.0\.1.*loopback/)
          // The proxy dialed nothing: the site never heard from region d.
          expect(target.seen.filter((s) => s.region === "d")).toEqual([])

          // The failure's screenshot: a whole PNG of the page at its viewport, until it is pruned.
          const getShot = Effect.promise(async () => {
            const response = await fetch(`${server.baseUrl}${String(screenshot)}`, {
              headers: { authorization: `Bearer ${alice.token}` }
            })
            const bytes = new Uint8Array(await response.arrayBuffer())
            return { status: response.status, type: response.headers.get("content-type"), bytes }
          })
          const image = yield* getShot
          expect([image.status, image.type]).toEqual([200, "image/png"])
          expect(readPng(image.bytes)).toEqual({ width: 1280, height: 800 })
          const evidenceId = String(screenshot).split("/")[6]!
          yield* server.sql`UPDATE result_evidence SET expires_at = now() - interval '1 second' WHERE id = ${evidenceId}`
          const pruned = yield* pruneEvidence.pipe(
            Effect.provide(EvidenceRepo.Default),
            Effect.provideService(SqlClient.SqlClient, server.sql)
          )
          expect(pruned).toBe(1)
          const left = yield* server.sql<{ n: number }>`
            SELECT count(*)::int AS n FROM result_evidence WHERE id = ${evidenceId}
          `
          expect(left[0]?.n).toBe(0)
          const gone = yield* getShot
          expect(gone.status).toBe(404)
          expect(Http.envelope(Http.body(gone.status, Buffer.from(gone.bytes).toString("utf8"))).code).toBe("NOT_FOUND")

          // The per-step series: the login's five steps ran in a and c, the slow flow's one step failed in a.
          const steps = (id: string, query = "") =>
            Effect.map(api(`/api/v1/targets/${id}/flow-steps${query}`), (reply) => Http.wire(reply, FlowSteps).steps)
          const totals = (list: ReadonlyArray<(typeof FlowSteps.Encoded)["steps"][number]>) =>
            list.map((step) => [
              step.index,
              step.action,
              step.series.reduce((n, point) => n + point.count, 0),
              step.series.reduce((n, point) => n + point.failures, 0)
            ])
          const actions = ["fill", "click", "wait_for", "assert_text", "assert_url"]
          expect(totals(yield* steps(loginId))).toEqual(actions.map((action, i) => [i + 1, action, 2, 0]))
          expect(totals(yield* steps(loginId, "?region=c"))).toEqual(actions.map((action, i) => [i + 1, action, 1, 0]))
          expect(totals(yield* steps(slowId))).toEqual([[1, "wait_for", 1, 1]])

          // The secret was in no agent's log, no result and no answer of the API; nor in any stored result.
          for (const { stdout, stderr } of processes) {
            expect(stdout().includes(secret) || stderr().includes(secret)).toBe(false)
          }
          expect(answers.length).toBeGreaterThan(10)
          expect(answers.filter((text) => text.includes(secret))).toEqual([])
          const stored = yield* server.sql<{ n: number }>`
            SELECT count(*)::int AS n FROM check_results
            WHERE strpos(coalesce(details::text, '') || coalesce(error, ''), ${secret}) > 0
          `
          expect(stored[0]?.n).toBe(0)
        }),
      120_000
    )

    it.scoped("a revoked agent stops with its one line and exit 3; an unknown token stops a fresh agent at once", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const { processes } = yield* Fleet
        yield* makeRegion("r")
        const doomed = yield* enlist("r", { AGENT__BROWSER_PATH: "none" })
        processes.push(doomed.process)
        yield* AgentProcess.waitForLog(doomed.process, "Connected", 60_000)
        expect((yield* operator(`/agents/${doomed.id}`, { method: "DELETE" })).status).toBe(204)
        const revoked = yield* AgentProcess.waitExit(doomed.process, 20_000)
        expect([revoked.code, revoked.signal]).toEqual([3, null])
        expect(revoked.stderr).toBe(
          "signalman-agent: the server refused the agent token: This agent token was revoked by the operator; mint a new one\n"
        )
        expect(doomed.process.logs().at(-1)).toMatchObject({
          level: "error",
          message: "The service refused the agent token"
        })

        const started = Date.now()
        const stranger = yield* AgentProcess.start({
          SIGNALMAN_URL: server.baseUrl,
          SIGNALMAN_AGENT_TOKEN: `sm_agent_${"A".repeat(43)}`,
          AGENT__BROWSER_PATH: "none"
        })
        processes.push(stranger)
        const refused = yield* AgentProcess.waitExit(stranger, 20_000)
        expect([refused.code, refused.signal]).toEqual([3, null])
        expect(refused.stderr).toMatch(
          /^signalman-agent: the server refused the agent token: Unknown agent token[^\n]*\n$/
        )
        // At once: its first hello was refused, with no retry (a tsx start on a loaded machine is most of this).
        expect(Date.now() - started).toBeLessThan(15_000)
        expect(stranger.logs().filter((line) => line.message === "Cannot reach the service; retrying")).toEqual([])
      })
    )
  }
)
