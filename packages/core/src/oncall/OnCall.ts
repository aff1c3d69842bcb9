/**
 * Who is on call when (decisions.md "On-call: schedules and escalation policies"), as pure functions of a
 * schedule's rules and an instant.
 *
 * - A layer's rotation starts at its `starts_at`. Handoffs fall on a grid anchored at the rotation's `handoff` (a
 *   wall-clock time in the schedule's zone) on the local date of `starts_at`, one rotation length apart. The first
 *   participant holds the layer from `starts_at` until the next handoff on that grid (a short first shift when
 *   `starts_at` is not at the handoff time); each participant in turn then holds it for `count` units. A weekly
 *   layer starting on a Monday hands off on Mondays.
 * - `days` and `weeks` rotations hand off at `handoff` local time on the day they fall on, so a shift across a
 *   daylight-saving change lasts an hour (or, where the change is half an hour, half an hour) less or more.
 *   `hours` rotations are fixed durations on their grid, so across a change their wall-clock times move.
 * - A wall-clock time that does not exist (skipped by the clock moving forward) is moved forward by the gap (02:30
 *   on a spring-forward night in Berlin is 03:30 CEST); one that happens twice is read as its first occurrence.
 *   This is Temporal's "compatible" reading.
 * - Restrictions limit when a layer covers: on each of their days, from `from` until `to` (past midnight when
 *   `to` is at or before `from`). Outside every restriction the layer has no one; a layer without restrictions
 *   always covers from its `starts_at`.
 * - The last layer that covers an instant wins; an override beats every layer, and of overlapping overrides the
 *   last in the list wins (as with layers).
 *
 * Every interval is half-open: a shift ending at 09:00 is over at 09:00, when the next one starts.
 *
 * @since 0.2.0
 */
import * as DateTime from "effect/DateTime"
import type { Restriction, RotationUnit, Weekday } from "./Schedule.js"
import { WEEKDAYS } from "./Schedule.js"

/**
 * A layer's rules, with instants as `Date`s. `U` is the type of a user id (a branded `UserId` stays branded).
 *
 * @since 0.2.0
 * @category models
 */
export interface LayerRules<U extends string = string> {
  readonly starts_at: Date
  readonly rotation: {
    readonly length: { readonly unit: RotationUnit; readonly count: number }
    readonly handoff: string
  }
  readonly participants: ReadonlyArray<U>
  readonly restrictions: ReadonlyArray<Restriction>
}

/**
 * An override's rules: `user_id` is on call in `[starts_at, ends_at)`.
 *
 * @since 0.2.0
 * @category models
 */
export interface OverrideRules<U extends string = string> {
  readonly user_id: U
  readonly starts_at: Date
  readonly ends_at: Date
}

/**
 * What decides who is on call: the zone handoffs and restrictions are read in, the layers (lowest first) and the
 * overrides. The values are those a decoded `Schedule` holds (an IANA zone, `HH:MM` times, at least one
 * participant a layer); `fromSchedule` builds one.
 *
 * @since 0.2.0
 * @category models
 */
export interface ScheduleRules<U extends string = string> {
  readonly time_zone: string
  readonly layers: ReadonlyArray<LayerRules<U>>
  readonly overrides: ReadonlyArray<OverrideRules<U>>
}

/**
 * Who is on call: nobody (`user_id` null), someone through layer `layer` (its index), or through an override
 * (`layer` null).
 *
 * @since 0.2.0
 * @category models
 */
export interface OnCall<U extends string = string> {
  readonly user_id: U | null
  readonly layer: number | null
}

/**
 * A computed shift: `user_id` holds `[starts_at, ends_at)` through layer `layer`, or an override when null.
 *
 * @since 0.2.0
 * @category models
 */
export interface ComputedShift<U extends string = string> {
  readonly user_id: U
  readonly starts_at: Date
  readonly ends_at: Date
  readonly layer: number | null
}

/**
 * A schedule's rules from the schedule as decoded (its instants as `DateTime.Utc`).
 *
 * @since 0.2.0
 * @category constructors
 */
export const fromSchedule = <U extends string>(schedule: {
  readonly time_zone: string
  readonly layers: ReadonlyArray<{
    readonly starts_at: DateTime.Utc
    readonly rotation: LayerRules["rotation"]
    readonly participants: ReadonlyArray<U>
    readonly restrictions: ReadonlyArray<Restriction>
  }>
  readonly overrides: ReadonlyArray<{
    readonly user_id: U
    readonly starts_at: DateTime.Utc
    readonly ends_at: DateTime.Utc
  }>
}): ScheduleRules<U> => ({
  time_zone: schedule.time_zone,
  layers: schedule.layers.map((layer) => ({
    starts_at: DateTime.toDate(layer.starts_at),
    rotation: layer.rotation,
    participants: layer.participants,
    restrictions: layer.restrictions
  })),
  overrides: schedule.overrides.map((o) => ({
    user_id: o.user_id,
    starts_at: DateTime.toDate(o.starts_at),
    ends_at: DateTime.toDate(o.ends_at)
  }))
})

/**
 * A schedule's rules over the org's current members: a participant or override user who is no longer a member is
 * left out (the rotation goes on among the others), and a layer left with nobody is dropped. `layerOf` maps a rules
 * layer back to its index in the stored schedule. The API's answers and the escalation walk both read a schedule
 * through this, so the person a page goes to is the one `on-call?at=` names.
 *
 * @since 0.2.0
 * @category constructors
 */
export const overMembers = <U extends string>(
  schedule: Parameters<typeof fromSchedule<U>>[0],
  members: ReadonlySet<string>
): { readonly rules: ScheduleRules<U>; readonly layerOf: (layer: number | null) => number | null } => {
  const kept = schedule.layers
    .map((layer, index) => ({
      index,
      layer: { ...layer, participants: layer.participants.filter((id) => members.has(id)) }
    }))
    .filter(({ layer }) => layer.participants.length > 0)
  const rules = fromSchedule({
    time_zone: schedule.time_zone,
    layers: kept.map(({ layer }) => layer),
    overrides: schedule.overrides.filter((o) => members.has(o.user_id))
  })
  const layerOf = (layer: number | null): number | null => (layer === null ? null : (kept[layer]?.index ?? null))
  return { rules, layerOf }
}

// ---------------------------------------------------------------------------------------------------------------
// Wall-clock time in a zone. A local date is its day number (days since 1970-01-01 as a calendar date, whatever
// the zone); times are epoch milliseconds.

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

/** The local date of instant `t` in `zone`, as a day number. */
const localDay = (t: number, zone: string): number => {
  const parts = DateTime.toParts(DateTime.unsafeMakeZoned(t, { timeZone: zone }))
  return Date.UTC(parts.year, parts.month - 1, parts.day) / DAY
}

// 1970-01-01 was a Thursday; the index is always 0 to 6, so the fallback is never taken.
const weekdayOf = (day: number): Weekday => WEEKDAYS[(((day + 3) % 7) + 7) % 7] ?? "mon"

/** The instant of `minutes` after local midnight of local date `day`, read "compatibly" in a gap or an overlap. */
const wall = (day: number, minutes: number, zone: string): number => {
  const date = new Date(day * DAY)
  return DateTime.toEpochMillis(
    DateTime.unsafeMakeZoned(
      {
        year: date.getUTCFullYear(),
        month: date.getUTCMonth() + 1,
        day: date.getUTCDate(),
        hours: Math.floor(minutes / 60),
        minutes: minutes % 60
      },
      { timeZone: zone, adjustForTimeZone: true, disambiguation: "compatible" }
    )
  )
}

const minutesOf = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

// ---------------------------------------------------------------------------------------------------------------
// Rotations.

/**
 * Where a layer's handoffs are: handoff k (any integer) as an instant, on a grid anchored at `handoff` on the local
 * date of `starts_at`; and which period `[at(k), at(k + 1))` holds `starts_at` (its holder is the first participant).
 */
interface Handoffs {
  readonly at: (k: number) => number
  /** The k of the last handoff at or before `t`. */
  readonly indexAt: (t: number) => number
  /** The period holding `starts_at`. */
  readonly first: number
}

const handoffsOf = (layer: LayerRules<string>, zone: string): Handoffs => {
  const start = layer.starts_at.getTime()
  const minutes = minutesOf(layer.rotation.handoff)
  const anchorDay = localDay(start, zone)
  const anchor = wall(anchorDay, minutes, zone)
  const { count, unit } = layer.rotation.length
  if (unit === "hours") {
    const length = count * HOUR
    const indexAt = (t: number) => Math.floor((t - anchor) / length)
    return { at: (k) => anchor + k * length, indexAt, first: indexAt(start) }
  }
  const days = unit === "days" ? count : 7 * count
  const at = (k: number) => (k === 0 ? anchor : wall(anchorDay + k * days, minutes, zone))
  const indexAt = (t: number) => {
    const k = Math.floor((localDay(t, zone) - anchorDay) / days)
    return t < at(k) ? k - 1 : k
  }
  return { at, indexAt, first: indexAt(start) }
}

/** The restriction windows `[start, end)` that begin on local days `first` to `last`, merged, in order. */
const windowsOf = (
  restrictions: ReadonlyArray<Restriction>,
  zone: string,
  first: number,
  last: number
): Array<readonly [number, number]> => {
  const all: Array<readonly [number, number]> = []
  for (let day = first; day <= last; day++) {
    const weekday = weekdayOf(day)
    for (const r of restrictions) {
      if (!r.days.includes(weekday)) continue
      const from = minutesOf(r.from)
      const to = minutesOf(r.to)
      all.push([wall(day, from, zone), wall(to <= from ? day + 1 : day, to, zone)])
    }
  }
  all.sort((x, y) => x[0] - y[0])
  const merged: Array<[number, number]> = []
  for (const [start, end] of all) {
    const previous = merged[merged.length - 1]
    if (previous !== undefined && start <= previous[1]) previous[1] = Math.max(previous[1], end)
    else merged.push([start, end])
  }
  return merged
}

/** How many of the ascending `values` are at or before `t`. */
const countAtOrBefore = (values: ReadonlyArray<number>, t: number): number => {
  let lo = 0
  let hi = values.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if ((values[mid] ?? Number.POSITIVE_INFINITY) <= t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** A layer read over `[from, to)`: the instants inside where its holder may change, and its holder at any instant. */
interface LayerOver<U extends string> {
  readonly changes: ReadonlyArray<number>
  /** Who holds the layer at `t`, for `t` in `[from, to)`. */
  readonly holderAt: (t: number) => U | null
}

const nobody: LayerOver<never> = { changes: [], holderAt: () => null }

/**
 * Read a layer over `[from, to)` once, so that asking who holds it at each of many instants in the range costs no
 * time-zone arithmetic: the handoffs and restriction windows in the range are listed, and an instant is looked up.
 */
const layerOver = <U extends string>(layer: LayerRules<U>, zone: string, from: number, to: number): LayerOver<U> => {
  const start = layer.starts_at.getTime()
  const n = layer.participants.length
  const lo = Math.max(from, start)
  if (n === 0 || lo >= to) return nobody
  const handoffs = handoffsOf(layer, zone)
  const k0 = handoffs.indexAt(lo)
  const times: Array<number> = []
  for (let k = k0 + 1; ; k++) {
    const t = handoffs.at(k)
    if (t >= to) break
    times.push(t)
  }
  // A window may begin the local day before `lo` and run past midnight; windows from later days start after `to`.
  const windows =
    layer.restrictions.length === 0
      ? undefined
      : windowsOf(layer.restrictions, zone, localDay(lo, zone) - 1, localDay(to, zone))
  const starts = windows?.map((w) => w[0]) ?? []
  const covers = (t: number): boolean => {
    if (t < start) return false
    if (windows === undefined) return true
    const window = windows[countAtOrBefore(starts, t) - 1]
    return window !== undefined && t < window[1]
  }
  const inside = (t: number) => from < t && t < to
  return {
    changes: [start, ...times, ...(windows ?? []).flat()].filter(inside),
    holderAt: (t) => {
      if (!covers(t)) return null
      const k = k0 + countAtOrBefore(times, t) - handoffs.first
      return layer.participants[k % n] ?? null
    }
  }
}

/** Who holds `layer` at the instant `t`. */
const holderAt = <U extends string>(layer: LayerRules<U>, zone: string, t: number): U | null =>
  layerOver(layer, zone, t, t + 1).holderAt(t)

// ---------------------------------------------------------------------------------------------------------------
// Answers.

const overrideAt = <U extends string>(
  overrides: ReadonlyArray<OverrideRules<U>>,
  t: number
): OverrideRules<U> | undefined => {
  for (let i = overrides.length - 1; i >= 0; i--) {
    const o = overrides[i]
    if (o !== undefined && o.starts_at.getTime() <= t && t < o.ends_at.getTime()) return o
  }
  return undefined
}

/** Who is on call, from the overrides and the layers (lowest first) as read over a range holding `t`. */
const answerAt = <U extends string>(
  overrides: ReadonlyArray<OverrideRules<U>>,
  layers: ReadonlyArray<(t: number) => U | null>,
  t: number
): OnCall<U> => {
  const override = overrideAt(overrides, t)
  if (override !== undefined) return { user_id: override.user_id, layer: null }
  for (let i = layers.length - 1; i >= 0; i--) {
    const user = layers[i]?.(t) ?? null
    if (user !== null) return { user_id: user, layer: i }
  }
  return { user_id: null, layer: null }
}

/**
 * Who is on call at `at`: the last override covering it, else the last layer covering it, else nobody.
 *
 * @since 0.2.0
 * @category answers
 */
export const onCallAt = <U extends string>(schedule: ScheduleRules<U>, at: Date): OnCall<U> => {
  const t = at.getTime()
  return answerAt(
    schedule.overrides,
    schedule.layers.map((layer) => (instant: number) => holderAt(layer, schedule.time_zone, instant)),
    t
  )
}

/**
 * Who holds layer `layer` at `at` (null outside its restrictions, before its start, or past the last layer).
 *
 * @since 0.2.0
 * @category answers
 */
export const layerHolderAt = <U extends string>(schedule: ScheduleRules<U>, layer: number, at: Date): U | null => {
  const rules = schedule.layers[layer]
  return rules === undefined ? null : holderAt(rules, schedule.time_zone, at.getTime())
}

/**
 * Walk `[from, to)` through `changes` (every instant where the answer may change), asking `who` at the start of
 * each piece and joining neighbours with the same answer.
 */
const timeline = <U extends string>(
  changes: ReadonlyArray<number>,
  from: number,
  to: number,
  who: (t: number) => OnCall<U>
): Array<ComputedShift<U>> => {
  const points = [...new Set([from, ...changes])].sort((a, b) => a - b)
  const out: Array<{ user_id: U; starts_at: number; ends_at: number; layer: number | null }> = []
  points.forEach((start, i) => {
    const end = points[i + 1] ?? to
    const answer = who(start)
    if (answer.user_id === null) return
    const previous = out[out.length - 1]
    if (
      previous !== undefined &&
      previous.ends_at === start &&
      previous.user_id === answer.user_id &&
      previous.layer === answer.layer
    ) {
      previous.ends_at = end
    } else {
      out.push({ user_id: answer.user_id, starts_at: start, ends_at: end, layer: answer.layer })
    }
  })
  return out.map((s) => ({ ...s, starts_at: new Date(s.starts_at), ends_at: new Date(s.ends_at) }))
}

/**
 * The shifts of the whole schedule in `[from, to)`, in order: who is on call when, and through which layer or an
 * override, clipped to the range. Time when nobody is on call is left out; neighbouring pieces with the same
 * person through the same layer are one shift. Work grows with the handoffs and restriction edges in the range,
 * so callers bound it (the API takes at most 90 days).
 *
 * @since 0.2.0
 * @category answers
 */
export const shifts = <U extends string>(
  schedule: ScheduleRules<U>,
  from: Date,
  to: Date
): ReadonlyArray<ComputedShift<U>> => {
  const start = from.getTime()
  const end = to.getTime()
  if (!(start < end)) return []
  const layers = schedule.layers.map((layer) => layerOver(layer, schedule.time_zone, start, end))
  const changes = layers.flatMap((layer) => layer.changes)
  for (const o of schedule.overrides) {
    for (const t of [o.starts_at.getTime(), o.ends_at.getTime()]) if (start < t && t < end) changes.push(t)
  }
  const holders = layers.map((layer) => layer.holderAt)
  return timeline(changes, start, end, (t) => answerAt(schedule.overrides, holders, t))
}

/**
 * The shifts of one layer alone in `[from, to)`, as `shifts` computes them but ignoring overrides and the other
 * layers (what a calendar shows a layer's row as).
 *
 * @since 0.2.0
 * @category answers
 */
export const layerShifts = <U extends string>(
  schedule: ScheduleRules<U>,
  layer: number,
  from: Date,
  to: Date
): ReadonlyArray<ComputedShift<U>> => {
  const rules = schedule.layers[layer]
  const start = from.getTime()
  const end = to.getTime()
  if (rules === undefined || !(start < end)) return []
  const over = layerOver(rules, schedule.time_zone, start, end)
  return timeline(over.changes, start, end, (t) => {
    const user = over.holderAt(t)
    return { user_id: user, layer: user === null ? null : layer }
  })
}
