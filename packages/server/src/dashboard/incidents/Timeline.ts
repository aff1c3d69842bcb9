/**
 * An incident's timeline as its page tells it: the engine's notes (opened, impact changed, regions down,
 * acknowledged, recovering, resumed, recovered or resolved), people's updates with their phase, and the
 * notifications sent, in one list, oldest first. Entries at the same instant keep the order they were written in,
 * and a notification comes after the notes and updates of its instant (it was sent because of them).
 */
import type { Delivery, IncidentUpdate } from "@signalman/core/api/Incidents"
import type { Phase } from "@signalman/core/Incident"
import * as DateTime from "effect/DateTime"

export type Entry =
  /** What the engine (or a person's acknowledge or resolve) recorded. */
  | {
      readonly _tag: "Note"
      readonly id: string
      readonly at: DateTime.Utc
      readonly message: string
      readonly by: string | null
    }
  /** A person's public update. */
  | {
      readonly _tag: "Update"
      readonly id: string
      readonly at: DateTime.Utc
      readonly phase: Phase
      readonly message: string
      readonly by: string | null
    }
  /** A notice queued for a channel (its delivery's state beside it). */
  | { readonly _tag: "Notification"; readonly id: string; readonly at: DateTime.Utc; readonly delivery: Delivery }

const rank: Readonly<Record<Entry["_tag"], number>> = { Note: 0, Update: 0, Notification: 1 }

/** The timeline of an incident from its updates (as the API answers them, oldest first) and its deliveries. */
export const entries = (
  updates: ReadonlyArray<IncidentUpdate>,
  deliveries: ReadonlyArray<Delivery>
): ReadonlyArray<Entry> => {
  const written: Array<Entry> = updates.map((u) =>
    u.kind === "update" && u.phase !== null
      ? { _tag: "Update", id: u.id, at: u.created_at, phase: u.phase, message: u.message, by: u.created_by }
      : { _tag: "Note", id: u.id, at: u.created_at, message: u.message, by: u.created_by }
  )
  const sent: Array<Entry> = deliveries.map((d) => ({ _tag: "Notification", id: d.id, at: d.created_at, delivery: d }))
  // Array.prototype.sort is stable: ties keep the order given, updates before deliveries.
  return [...written, ...sent].sort((a, b) => DateTime.Order(a.at, b.at) || rank[a._tag] - rank[b._tag])
}

/** The latest public update, which is what a status page leads with; undefined before anyone posted one. */
export const latestUpdate = (timeline: ReadonlyArray<Entry>): Extract<Entry, { _tag: "Update" }> | undefined => {
  for (let i = timeline.length - 1; i >= 0; i--) {
    const entry = timeline[i]
    if (entry?._tag === "Update") return entry
  }
  return undefined
}
