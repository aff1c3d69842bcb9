/**
 * The dashboard's live updates: one poller per process, shared by every open tab (docs/dashboard.md, "Live
 * updates"). Results may be stored by another process (a worker, an agent's ingest on another API process), so the
 * poller reads the database rather than listening in-process: about once a second, while any tab is open, it asks
 * which monitors of the watched orgs have a result or a row change since its floor (`Readings.changes`, one
 * statement for all of them), reads those monitors' states and figures in a few batched statements, renders their
 * row parts once, and hands the same bytes to every tab of the org.
 *
 * Bounds: a tab holds at most `QUEUE` messages; a tab that falls that far behind (a slow client) is ended, and its
 * browser reconnects with the id of the last message it got and catches up from the database. A message carries at
 * most `ROWS_PER_MESSAGE` rows. What is remembered per org is the monitors with a result in the last
 * `SETTLE_MS`, dropped with the org's last tab. Quiet tabs get a comment every `HEARTBEAT_MS` so proxies keep them
 * open; each tab's session and membership are checked again every `RECHECK_MS`; when the process starts draining
 * every stream is ended, so shutdown waits for none of them.
 */
import type { OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import * as Stream from "effect/Stream"
import { Readings } from "../../engine/Readings.js"
import type { ChangeRow } from "../../engine/Repo.js"
import { Lifecycle } from "../../infra/Lifecycle.js"
import { Advisories } from "../../targets/Advisories.js"
import * as Rows from "../monitors/Rows.js"
import * as Sse from "./Sse.js"

/** How often the poller looks, while any tab is open. */
export const POLL_MS = 1_000
/** How far back a poll looks for results: a check's result is stored when it ends, up to its timeout after its time. */
export const SETTLE_MS = 120_000
/** A reconnecting tab further behind than this reloads instead of catching up monitor by monitor. */
export const CATCH_UP_MS = 300_000
export const HEARTBEAT_MS = 20_000
export const RECHECK_MS = 60_000
export const QUEUE = 16
export const ROWS_PER_MESSAGE = 50
/** How long a browser waits before reconnecting. */
export const RETRY_MS = 3_000

/** One open tab. */
interface Tab {
  readonly orgId: string
  readonly sessionId: string
  readonly queue: Queue.Queue<Uint8Array>
  /** Whether the tab's person may still read the org (a live session, still a member). */
  readonly stillAllowed: Effect.Effect<boolean>
  lastWrite: number
  lastCheck: number
}

/** An org some tab watches: its tabs, and what the poller saw of its monitors (the key of each one's last change). */
interface Watch {
  readonly tabs: Set<Tab>
  seen: Map<string, string>
  /** Whether `seen` is the org's baseline yet (made by its first tab's catch-up read, not by the poller). */
  primed: boolean
}

/** A row's update as the page's script reads it (client/live.ts). */
export interface RowUpdate {
  readonly id: string
  readonly state: string
  readonly stateText: string
  readonly parts: Readonly<Record<string, string>>
}

export interface Subscription {
  readonly orgId: OrgId
  readonly sessionId: string
  /** The time (ms) the tab's page was rendered, or of the last message it got: what it must catch up from. */
  readonly since: number | undefined
  readonly stillAllowed: Effect.Effect<boolean>
}

const keyOf = (row: ChangeRow) => `${row.latest?.getTime() ?? ""}|${row.updated_at.getTime()}`

const chunks = <A>(items: ReadonlyArray<A>, size: number): ReadonlyArray<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

/** The messages carrying these updates, stamped with the moment they stand for. */
export const messages = (updates: ReadonlyArray<RowUpdate>, at: number): ReadonlyArray<Uint8Array> =>
  chunks(updates, ROWS_PER_MESSAGE).map((rows) =>
    Sse.bytes(Sse.event("monitors", String(at), JSON.stringify({ rows })))
  )

export class LiveFeed extends Effect.Service<LiveFeed>()("Signalman/DashboardLiveFeed", {
  scoped: Effect.gen(function* () {
    const readings = yield* Readings
    const advisories = yield* Advisories
    const lifecycle = yield* Lifecycle
    const watches = new Map<string, Watch>()
    const tabs = new Set<Tab>()
    // Open while any tab is: the poller waits on it instead of polling for nobody.
    const watched = yield* Effect.makeLatch(false)

    const end = (tab: Tab) => Effect.asVoid(Queue.shutdown(tab.queue))

    const send = (tab: Tab, message: Uint8Array, now: number) => {
      if (Queue.unsafeOffer(tab.queue, message)) {
        tab.lastWrite = now
        return Effect.void
      }
      // Full: the client reads slower than the org changes. Ending the stream makes the browser reconnect and catch
      // up from the database, which costs less than holding everything it has not read.
      return end(tab)
    }

    /** The row updates of these monitors (any orgs), rendered once. */
    const updates = (ids: ReadonlyArray<string>, now: number) =>
      Effect.gen(function* () {
        if (ids.length === 0) return new Map<string, RowUpdate>()
        const at = new Date(now)
        const [states, figures, advised] = yield* Effect.all(
          [readings.states(ids), readings.figures(ids, at), advisories.of(ids)],
          { concurrency: 3 }
        )
        const out = new Map<string, RowUpdate>()
        for (const id of ids) {
          const state = states.get(id)
          // Gone meanwhile (deleted): nothing to show; the page drops it on its next load.
          if (state === undefined) continue
          const snapshot = { state, figures: figures.get(id), advisories: advised.get(id) ?? [] }
          out.set(id, {
            id,
            state: state.state,
            stateText: Rows.stateWords[state.state],
            parts: Rows.parts(snapshot, at)
          })
        }
        return out
      })

    const poll = Effect.gen(function* () {
      const now = Date.now()
      if (lifecycle.isDraining()) {
        yield* Effect.forEach(tabs, end, { discard: true })
        return
      }
      const orgIds = [...watches.keys()]
      const rows = orgIds.length === 0 ? [] : yield* readings.changes(orgIds, new Date(now - SETTLE_MS))
      const byOrg = new Map<string, Array<ChangeRow>>()
      for (const row of rows) byOrg.set(row.org_id, [...(byOrg.get(row.org_id) ?? []), row])
      const changed = new Map<string, Array<string>>()
      for (const orgId of orgIds) {
        const watch = watches.get(orgId)
        if (watch === undefined || !watch.primed) continue
        const seen = new Map<string, string>()
        for (const row of byOrg.get(orgId) ?? []) {
          const key = keyOf(row)
          seen.set(row.id, key)
          if (watch.seen.get(row.id) !== key) changed.set(orgId, [...(changed.get(orgId) ?? []), row.id])
        }
        watch.seen = seen
      }
      const all = [...changed.values()].flat()
      const rendered = yield* updates(all, now)
      for (const [orgId, ids] of changed) {
        const watch = watches.get(orgId)
        if (watch === undefined) continue
        const batch = messages(
          ids.flatMap((id) => {
            const update = rendered.get(id)
            return update === undefined ? [] : [update]
          }),
          now
        )
        for (const tab of watch.tabs) for (const message of batch) yield* send(tab, message, now)
      }
      const beat = Sse.bytes(Sse.comment("keep-alive"))
      for (const tab of tabs) {
        if (now - tab.lastWrite >= HEARTBEAT_MS) yield* send(tab, beat, now)
        if (now - tab.lastCheck >= RECHECK_MS) {
          tab.lastCheck = now
          if (!(yield* tab.stillAllowed)) yield* end(tab)
        }
      }
    })

    yield* Effect.forkScoped(
      Effect.forever(
        Effect.zipRight(
          watched.await,
          Effect.zipRight(
            poll.pipe(Effect.catchAllCause((cause) => Effect.logWarning("Live updates: a poll failed", cause))),
            Effect.sleep(POLL_MS)
          )
        )
      )
    )
    yield* Effect.addFinalizer(() => Effect.forEach(tabs, end, { discard: true }))

    const add = (tab: Tab) =>
      Effect.sync(() => {
        tabs.add(tab)
        const watch = watches.get(tab.orgId) ?? { tabs: new Set<Tab>(), seen: new Map<string, string>(), primed: false }
        watch.tabs.add(tab)
        watches.set(tab.orgId, watch)
        return watch
      }).pipe(Effect.tap(() => watched.open))

    const remove = (tab: Tab) =>
      Effect.gen(function* () {
        tabs.delete(tab)
        const watch = watches.get(tab.orgId)
        watch?.tabs.delete(tab)
        if (watch !== undefined && watch.tabs.size === 0) watches.delete(tab.orgId)
        if (tabs.size === 0) yield* watched.close
        yield* Queue.shutdown(tab.queue)
      })

    /**
     * What a new tab must catch up on: every monitor of its org with a result or a change after `since`. The same
     * read makes the org's baseline when the org had no tab yet, so the poller announces only what follows it.
     */
    const catchUp = (tab: Tab, watch: Watch, since: number | undefined, now: number) =>
      Effect.gen(function* () {
        const stale = since !== undefined && now - since > CATCH_UP_MS
        const staleMessage = [Sse.bytes(Sse.event("stale", String(now), "{}"))]
        const fresh = !watch.primed
        if (!fresh && (since === undefined || stale)) return stale ? staleMessage : []
        const floor = since === undefined || stale ? now - SETTLE_MS : Math.min(since, now - SETTLE_MS)
        const rows = yield* readings.changes([tab.orgId], new Date(floor))
        if (fresh) {
          watch.seen = new Map(rows.map((r) => [r.id, keyOf(r)]))
          watch.primed = true
        }
        if (stale) return staleMessage
        if (since === undefined) return []
        const behind = rows
          // At or after: a result checked in the very millisecond of the tab's last message may have been stored after
          // that poll read, and sending a row again costs one re-render.
          .filter((r) => (r.latest !== null && r.latest.getTime() >= since) || r.updated_at.getTime() >= since)
          .map((r) => r.id)
        const rendered = yield* updates(behind, now)
        return messages([...rendered.values()], now)
      })

    /** The open tabs of a session (a bound on how many one person keeps open). */
    const openBy = (sessionId: string) => [...tabs].filter((t) => t.sessionId === sessionId).length

    /** A tab's stream: a reconnect delay, a first comment, what it must catch up on, then the org's updates. */
    const subscribe = (subscription: Subscription): Stream.Stream<Uint8Array> =>
      Stream.unwrapScoped(
        Effect.gen(function* () {
          const now = Date.now()
          const queue = yield* Queue.bounded<Uint8Array>(QUEUE)
          const tab: Tab = {
            orgId: subscription.orgId,
            sessionId: subscription.sessionId,
            queue,
            stillAllowed: subscription.stillAllowed,
            lastWrite: now,
            lastCheck: now
          }
          const watch = yield* Effect.acquireRelease(add(tab), () => remove(tab))
          const first = [Sse.bytes(`${Sse.retry(RETRY_MS)}${Sse.comment("connected")}`)]
          const behind = yield* catchUp(tab, watch, subscription.since, now)
          return Stream.concat(Stream.fromIterable([...first, ...behind]), Stream.fromQueue(queue))
        })
      )

    return { subscribe, openBy, open: () => tabs.size }
  })
}) {}
