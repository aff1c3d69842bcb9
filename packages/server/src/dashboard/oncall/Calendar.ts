/**
 * A schedule's calendar as the page draws it: the API's computed shifts cut into the schedule's local days, each
 * day from its local midnight to the next (23 or 25 hours across a daylight-saving change), each piece with its
 * local start and end, who holds it (or nobody), its share of the day for the bar, and whether "now" falls in it.
 * Pure: the shifts come from `Schedules.shifts` (core's `OnCall.shifts`), so the page shows exactly what the API
 * answers; this module only lays them out.
 */
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"

/** A shift as the calendar needs it (the API's `Shift` with plain dates). */
export interface CalendarShift {
  readonly user_id: string
  readonly starts_at: Date
  readonly ends_at: Date
  /** The layer's index, or null for an override. */
  readonly layer: number | null
}

/** A local calendar date. */
export interface LocalDate {
  readonly year: number
  readonly month: number
  readonly day: number
}

/** One piece of a day: someone (or nobody, `user_id` null) on call from `from` to `to` local time. */
export interface Segment {
  readonly user_id: string | null
  readonly layer: number | null
  readonly starts_at: Date
  readonly ends_at: Date
  /** `HH:MM` local; `to` is `24:00` at the day's end. */
  readonly from: string
  readonly to: string
  /** Where the piece starts and how much of the day it takes, from 0 to 1 of the day's real length. */
  readonly offset: number
  readonly share: number
  /** Whether the current instant falls in this piece. */
  readonly now: boolean
}

export interface Day {
  /** `YYYY-MM-DD` in the schedule's zone. */
  readonly date: string
  /** `Mon 30 Mar` in the schedule's zone. */
  readonly label: string
  readonly starts_at: Date
  readonly ends_at: Date
  /** The day's length in hours: 24, or 23 / 25 on a daylight-saving change. */
  readonly hours: number
  readonly today: boolean
  readonly segments: ReadonlyArray<Segment>
}

export interface Calendar {
  readonly time_zone: string
  readonly first: LocalDate
  readonly days: ReadonlyArray<Day>
  /** The window the shifts must cover: the first day's local midnight to the last day's end. */
  readonly from: Date
  readonly to: Date
}

const pad = (n: number) => String(n).padStart(2, "0")

/** `YYYY-MM-DD`. */
export const dateText = (date: LocalDate): string => `${date.year}-${pad(date.month)}-${pad(date.day)}`

/** A `YYYY-MM-DD` that names a real date, or undefined. */
export const parseDate = (text: string | null | undefined): LocalDate | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text ?? "")
  if (match === null) return undefined
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const probe = new Date(Date.UTC(year, month - 1, day))
  return probe.getUTCFullYear() === year && probe.getUTCMonth() === month - 1 && probe.getUTCDate() === day
    ? { year, month, day }
    : undefined
}

/** The date `days` later (or earlier, when negative). */
export const addDays = (date: LocalDate, days: number): LocalDate => {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days))
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() }
}

const zoneOf = (timeZone: string): DateTime.TimeZone.Named =>
  Option.getOrElse(DateTime.zoneMakeNamed(timeZone), () => DateTime.zoneUnsafeMakeNamed("UTC"))

/** The local date of an instant in the zone. */
export const localDate = (at: Date, timeZone: string): LocalDate => {
  const parts = DateTime.toParts(DateTime.unsafeMakeZoned(at, { timeZone: zoneOf(timeZone) }))
  return { year: parts.year, month: parts.month, day: parts.day }
}

/** The instant a local date begins in the zone (its local midnight, or the first instant after a skipped one). */
export const startOfDay = (date: LocalDate, timeZone: string): Date =>
  DateTime.toDateUtc(
    DateTime.unsafeMakeZoned(
      { year: date.year, month: date.month, day: date.day, hours: 0, minutes: 0, seconds: 0, millis: 0 },
      { timeZone: zoneOf(timeZone), adjustForTimeZone: true }
    )
  )

const clockFormats = new Map<string, Intl.DateTimeFormat>()
const labelFormats = new Map<string, Intl.DateTimeFormat>()

const cached = (cache: Map<string, Intl.DateTimeFormat>, timeZone: string, options: Intl.DateTimeFormatOptions) => {
  const known = cache.get(timeZone)
  if (known !== undefined) return known
  const made = new Intl.DateTimeFormat("en-GB", { ...options, timeZone })
  cache.set(timeZone, made)
  return made
}

/** `HH:MM` local time of an instant. */
export const clock = (at: Date, timeZone: string): string => {
  const parts = cached(clockFormats, timeZone, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(
    at
  )
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "00"
  return `${part("hour")}:${part("minute")}`
}

const dayLabel = (at: Date, timeZone: string): string =>
  cached(labelFormats, timeZone, { weekday: "short", day: "numeric", month: "short" }).format(at).replace(",", "")

const HOUR_MS = 3_600_000

/** The instants `days` local days from `first` span: the first day's start to the last day's end. */
export const span = (
  time_zone: string,
  first: LocalDate,
  days: number
): { readonly from: Date; readonly to: Date } => ({
  from: startOfDay(first, time_zone),
  to: startOfDay(addDays(first, days), time_zone)
})

/**
 * The calendar of `days` local days from `first`: each day's pieces in time order, covering the whole day (the
 * stretches no shift covers are pieces with nobody). `shifts` are those of `[from, to)` as the API computed them,
 * disjoint and in time order.
 */
export const layout = (input: {
  readonly time_zone: string
  readonly first: LocalDate
  readonly days: number
  readonly shifts: ReadonlyArray<CalendarShift>
  readonly now: Date
}): Calendar => {
  const zone = input.time_zone
  const today = dateText(localDate(input.now, zone))
  const sorted = [...input.shifts].sort((a, b) => a.starts_at.getTime() - b.starts_at.getTime())
  const days: Array<Day> = []
  for (let i = 0; i < input.days; i++) {
    const date = addDays(input.first, i)
    const start = startOfDay(date, zone)
    const end = startOfDay(addDays(date, 1), zone)
    const length = end.getTime() - start.getTime()
    const segments: Array<Segment> = []
    const piece = (user_id: string | null, layer: number | null, from: Date, to: Date) => {
      if (to.getTime() <= from.getTime()) return
      segments.push({
        user_id,
        layer,
        starts_at: from,
        ends_at: to,
        from: clock(from, zone),
        to: to.getTime() === end.getTime() ? "24:00" : clock(to, zone),
        offset: (from.getTime() - start.getTime()) / length,
        share: (to.getTime() - from.getTime()) / length,
        now: input.now.getTime() >= from.getTime() && input.now.getTime() < to.getTime()
      })
    }
    let cursor = start
    for (const shift of sorted) {
      if (shift.ends_at.getTime() <= start.getTime() || shift.starts_at.getTime() >= end.getTime()) continue
      const from = new Date(Math.max(shift.starts_at.getTime(), start.getTime()))
      const to = new Date(Math.min(shift.ends_at.getTime(), end.getTime()))
      if (from.getTime() > cursor.getTime()) piece(null, null, cursor, from)
      piece(shift.user_id, shift.layer, new Date(Math.max(from.getTime(), cursor.getTime())), to)
      if (to.getTime() > cursor.getTime()) cursor = to
    }
    piece(null, null, cursor, end)
    const text = dateText(date)
    days.push({
      date: text,
      label: dayLabel(new Date(start.getTime() + length / 2), zone),
      starts_at: start,
      ends_at: end,
      hours: Math.round(length / HOUR_MS),
      today: text === today,
      segments
    })
  }
  return { time_zone: zone, first: input.first, days, ...span(zone, input.first, input.days) }
}

/**
 * The people of a schedule in a stable order (the layers' participants, then the overrides' users), so each keeps
 * one colour from week to week.
 */
export const people = (schedule: {
  readonly layers: ReadonlyArray<{ readonly participants: ReadonlyArray<string> }>
  readonly overrides: ReadonlyArray<{ readonly user_id: string }>
}): ReadonlyArray<string> => [
  ...new Set([
    ...schedule.layers.flatMap((layer) => layer.participants.map((id) => id.toLowerCase())),
    ...schedule.overrides.map((o) => o.user_id.toLowerCase())
  ])
]

/** How many colours people are told apart by (besides their names, always written). */
export const COLOURS = 8

/** The colour a person is drawn in: their place among the schedule's people, wrapping after `COLOURS`. */
export const colourOf = (order: ReadonlyArray<string>, userId: string): number => {
  const index = order.indexOf(userId.toLowerCase())
  return (index === -1 ? order.length : index) % COLOURS
}
