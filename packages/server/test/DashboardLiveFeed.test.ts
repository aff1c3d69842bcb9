/**
 * The dashboard's live feed on stand-in readings: one poll serves every tab of an org with the same rendered rows and
 * no other org's tab; a tab that cannot keep up is ended and catches up from the database when it reconnects; a
 * reconnect from too long ago is told to reload; a draining process ends every stream. On the live clock: the
 * poller looks once a second.
 */
import { describe, expect, it } from "@effect/vitest"
import { OrgId } from "@signalman/core/Identity"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { LiveFeed, QUEUE, ROWS_PER_MESSAGE } from "../src/dashboard/live/Feed.js"
import type { Figures } from "../src/engine/MonitorFigures.js"
import { Readings } from "../src/engine/Readings.js"
import type { ChangeRow, StateRow } from "../src/engine/Repo.js"
import { Lifecycle } from "../src/infra/Lifecycle.js"
import { Advisories } from "../src/targets/Advisories.js"

const A = OrgId.make("01900000-0000-7000-8000-0000000000a1")
const B = OrgId.make("01900000-0000-7000-8000-0000000000b1")
const unused = Effect.dieMessage("not read by the live feed")

/** Readings whose `changes` answer what the test put in `rows`; every monitor is down with no figures. */
const stand = () => {
  const rows: Array<ChangeRow> = []
  const asked: Array<ReadonlyArray<string>> = []
  const readings = Readings.make({
    results: () => unused,
    state: () => unused,
    latency: () => unused,
    latencyByRegion: () => unused,
    flowSteps: () => unused,
    screenshot: () => unused,
    uptime: () => unused,
    summary: () => unused,
    statesOfOrg: () => unused,
    states: (ids) =>
      Effect.succeed(
        new Map<string, StateRow>(ids.map((id) => [id, { id, kind: "http", state: "down", held: false }]))
      ),
    figures: (ids) => {
      const none: Figures = { recent: [], hours: [], uptimeDay: null, uptimeMonth: null }
      return Effect.succeed(new Map(ids.map((id) => [id, none])))
    },
    changes: (orgIds, floor) =>
      Effect.sync(() => {
        asked.push(orgIds)
        return rows.filter(
          (r) =>
            orgIds.includes(r.org_id) &&
            ((r.latest !== null && r.latest.getTime() > floor.getTime()) || r.updated_at.getTime() > floor.getTime())
        )
      })
  })
  const layer = LiveFeed.Default.pipe(
    Layer.provide(Layer.succeed(Readings, readings)),
    Layer.provide(Layer.succeed(Advisories, { of: () => Effect.succeed(new Map()) })),
    Layer.provideMerge(Lifecycle.Default)
  )
  return { rows, asked, layer }
}

const change = (id: string, org: string, latest: number): ChangeRow => ({
  id,
  org_id: org,
  latest: new Date(latest),
  updated_at: new Date(latest - 3_600_000)
})

const decoder = new TextDecoder()

/**
 * A tab: its stream pulled chunk by chunk, each answered as text (undefined once the stream has ended). The stream
 * subscribes when first pulled, so the tab is open once its first text (`first`) is read.
 */
const tab = (org: OrgId, since?: number) =>
  Effect.gen(function* () {
    const feed = yield* LiveFeed
    const pull = yield* Stream.toPull(
      feed.subscribe({ orgId: org, sessionId: "s", since, stillAllowed: Effect.succeed(true) })
    )
    const read = Effect.match(pull, {
      onFailure: () => undefined,
      onSuccess: (chunk) =>
        Chunk.toReadonlyArray(chunk)
          .map((bytes) => decoder.decode(bytes))
          .join("")
    })
    return { first: yield* read, read }
  })

/** The next text within a bound, or "(nothing)". */
const next = (read: Effect.Effect<string | undefined>, ms = 3_000) =>
  Effect.map(Effect.timeout(read, ms), (text) => text).pipe(
    Effect.catchTag("TimeoutException", () => Effect.succeed("(nothing)"))
  )

describe("dashboard live feed", () => {
  it.scopedLive("one poll serves every tab of the org with the same rows, and no tab of another org", () => {
    const { rows, asked, layer } = stand()
    return Effect.gen(function* () {
      const first = yield* tab(A)
      const second = yield* tab(A)
      const other = yield* tab(B)
      for (const t of [first, second, other]) expect(t.first).toBe("retry: 3000\n\n: connected\n\n")
      const polled = asked.length
      rows.push(change("01900000-0000-7000-8000-0000000000c1", A, Date.now()))
      const [one, two] = [yield* next(first.read), yield* next(second.read)]
      expect(one).toMatch(/^event: monitors\nid: \d+\ndata: \{"rows":\[\{"id":"01900000-0000-7000-8000-0000000000c1"/)
      expect(one).toContain(`"state":"down","stateText":"Down"`)
      expect(one).toContain(`<span class=\\"state state-down\\">Down</span>`)
      expect(two).toBe(one)
      expect(yield* next(other.read, 1_500)).toBe("(nothing)")
      // One statement per poll for both orgs, whatever the number of tabs.
      expect(asked.slice(polled).every((orgs) => orgs.length === 2)).toBe(true)
      // Seen once: the next poll sends nothing for it.
      expect(yield* next(first.read, 1_500)).toBe("(nothing)")
    }).pipe(Effect.provide(layer))
  })

  it.scopedLive("a tab that falls behind is ended; reconnecting with its last id, it catches up", () => {
    const { rows, layer } = stand()
    return Effect.gen(function* () {
      const since = Date.now()
      const slow = yield* tab(A)
      expect(slow.first).toBe("retry: 3000\n\n: connected\n\n")
      // More rows in one poll than the tab's queue holds messages of, and the tab reads none of them.
      const count = (QUEUE + 2) * ROWS_PER_MESSAGE
      // The first in the very millisecond of `since` (the id of the tab's last message): it is caught up too.
      for (let i = 0; i < count; i++) {
        rows.push(change(`01900000-0000-7000-8000-${String(i).padStart(12, "0")}`, A, i === 0 ? since : Date.now()))
      }
      yield* Effect.sleep("2500 millis")
      expect(yield* next(slow.read)).toBeUndefined()
      // Its first answer carries everything it missed, read from the database.
      const back = yield* tab(A, since)
      expect(back.first?.startsWith("retry: 3000\n\n: connected\n\nevent: monitors\n")).toBe(true)
      expect((back.first?.match(/"id":"01900000-0000-7000-8000-/g) ?? []).length).toBe(count)
    }).pipe(Effect.provide(layer))
  })

  it.scopedLive("a reconnect from too long ago is told to reload; draining ends every stream", () => {
    const { layer } = stand()
    return Effect.gen(function* () {
      const stale = yield* tab(A, Date.now() - 3_600_000)
      expect(stale.first).toMatch(/^retry: 3000\n\n: connected\n\nevent: stale\nid: \d+\ndata: \{\}\n\n$/)
      const open = yield* tab(B)
      expect(open.first).toBe("retry: 3000\n\n: connected\n\n")
      const lifecycle = yield* Lifecycle
      expect(yield* lifecycle.drain("1 millis")).toBe(true)
      expect(yield* next(open.read)).toBeUndefined()
      expect(yield* next(stale.read)).toBeUndefined()
    }).pipe(Effect.provide(layer))
  })
})
