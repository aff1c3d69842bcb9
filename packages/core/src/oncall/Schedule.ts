/**
 * On-call schedules (decisions.md "On-call: schedules and escalation policies"): a schedule has a time zone, layers
 * that rotate their participants, and overrides that put one person on call for a while. This module holds the
 * shapes as requests carry them and as the API answers them, with their bounds as Schema filters so a bad body
 * is refused with the path of the field at fault. Who is on call when is computed by `OnCall`.
 *
 * @since 0.2.0
 */
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { UserId } from "../Identity.js"
import { Instant } from "../Instant.js"
import * as RequestBody from "../RequestBody.js"
import { characters } from "../TextLength.js"

/**
 * @since 0.2.0
 * @category ids
 */
export const ScheduleId = Schema.UUID.pipe(Schema.brand("ScheduleId"))

/**
 * @since 0.2.0
 * @category ids
 */
export type ScheduleId = typeof ScheduleId.Type

/**
 * The most characters of a schedule's or a layer's name.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_NAME_LENGTH = 100

/**
 * The most layers a schedule holds.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_LAYERS = 10

/**
 * The most participants of one layer.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_PARTICIPANTS = 50

/**
 * The most restrictions of one layer (one a weekday is the most anyone needs).
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_RESTRICTIONS = 7

/**
 * The most overrides a schedule keeps.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_OVERRIDES = 200

/**
 * The largest `count` of a rotation's length, whatever its unit.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_ROTATION_COUNT = 365

/**
 * A name: trimmed, 1 to 100 characters.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Name = Schema.Trim.pipe(
  Schema.filter(
    (s) => (characters(s) >= 1 && characters(s) <= MAX_NAME_LENGTH) || `must be 1 to ${MAX_NAME_LENGTH} characters`,
    { jsonSchema: { minLength: 1, maxLength: MAX_NAME_LENGTH } }
  )
)

// An offset such as "+01:00" is not a zone: it has no daylight-saving rules, and the spec asks for IANA names.
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/

/**
 * Whether `s` names a time zone this runtime knows (`Europe/Berlin`, `UTC`), as `Intl.DateTimeFormat` accepts it.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isTimeZone = (s: string): boolean => ZONE_NAME.test(s) && Option.isSome(DateTime.zoneMakeNamed(s))

/**
 * An IANA time zone name.
 *
 * @since 0.2.0
 * @category schemas
 */
export const TimeZone = Schema.String.pipe(
  Schema.filter((s) => isTimeZone(s) || "must be an IANA time zone name, such as Europe/Berlin")
).annotations({ identifier: "TimeZone" })

const WALL_CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/

/**
 * A wall-clock time of day, `HH:MM` on the 24-hour clock (`00:00` to `23:59`), read in the schedule's zone.
 *
 * @since 0.2.0
 * @category schemas
 */
export const WallClock = Schema.String.pipe(
  Schema.filter((s) => WALL_CLOCK.test(s) || "must be a time of day as HH:MM, 00:00 to 23:59", {
    jsonSchema: { pattern: WALL_CLOCK.source }
  })
).annotations({ identifier: "WallClock" })

/**
 * The days of the week, Monday first (ISO 8601's order).
 *
 * @since 0.2.0
 * @category constants
 */
export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const

/**
 * @since 0.2.0
 * @category schemas
 */
export const Weekday = Schema.Literal(...WEEKDAYS)

/**
 * @since 0.2.0
 * @category models
 */
export type Weekday = typeof Weekday.Type

/**
 * How a rotation's length is counted: `hours` are fixed durations; `days` and `weeks` hand off at the same local
 * time, so a shift across a daylight-saving change is an hour shorter or longer.
 *
 * @since 0.2.0
 * @category schemas
 */
export const RotationUnit = Schema.Literal("hours", "days", "weeks")

/**
 * @since 0.2.0
 * @category models
 */
export type RotationUnit = typeof RotationUnit.Type

/**
 * How long each participant holds a layer: `count` units.
 *
 * @since 0.2.0
 * @category schemas
 */
export const RotationLength = RequestBody.Struct({
  unit: RotationUnit,
  count: Schema.Int.pipe(
    Schema.filter((n) => (n >= 1 && n <= MAX_ROTATION_COUNT) || `must be an integer from 1 to ${MAX_ROTATION_COUNT}`, {
      jsonSchema: { minimum: 1, maximum: MAX_ROTATION_COUNT }
    })
  )
}).annotations({ identifier: "RotationLength" })

/**
 * A layer's rotation: its length and the local time of day handoffs are anchored at.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Rotation = RequestBody.Struct({
  length: RotationLength,
  handoff: WallClock
}).annotations({ identifier: "Rotation" })

/**
 * When a layer covers: on each of `days`, from `from` to `to` local time. A `to` at or before `from` runs past
 * midnight into the next day (`22:00` to `06:00` covers the night; `00:00` to `00:00` the whole day).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Restriction = RequestBody.Struct({
  days: Schema.Array(Weekday).pipe(
    Schema.filter((days) => days.length >= 1 || "must name at least one day"),
    Schema.filter((days) => new Set(days).size === days.length || "must not name a day twice")
  ),
  from: WallClock,
  to: WallClock
}).annotations({ identifier: "Restriction" })

/**
 * @since 0.2.0
 * @category models
 */
export type Restriction = typeof Restriction.Type

/**
 * A layer: from `starts_at`, each participant in turn holds it for one rotation length; outside its restrictions
 * (if it has any) it has no one. A participant may be listed more than once (A, B, A, C).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Layer = RequestBody.Struct({
  name: Name,
  starts_at: Instant,
  rotation: Rotation,
  participants: Schema.Array(UserId).pipe(
    Schema.filter(
      (ids) => (ids.length >= 1 && ids.length <= MAX_PARTICIPANTS) || `must list 1 to ${MAX_PARTICIPANTS} participants`
    )
  ),
  restrictions: Schema.optionalWith(
    Schema.Array(Restriction).pipe(
      Schema.filter((rs) => rs.length <= MAX_RESTRICTIONS || `must list at most ${MAX_RESTRICTIONS} restrictions`)
    ),
    { default: () => [] }
  )
}).annotations({ identifier: "ScheduleLayer" })

/**
 * @since 0.2.0
 * @category models
 */
export type Layer = typeof Layer.Type

/**
 * An override: `user_id` is on call from `starts_at` until `ends_at`, whatever the layers say.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Override = RequestBody.Struct({
  user_id: UserId,
  starts_at: Instant,
  ends_at: Instant
})
  .pipe(
    Schema.filter((o) =>
      DateTime.lessThan(o.starts_at, o.ends_at) ? true : { path: ["ends_at"], message: "must be after starts_at" }
    )
  )
  .annotations({ identifier: "ScheduleOverride" })

/**
 * @since 0.2.0
 * @category models
 */
export type Override = typeof Override.Type

const layers = Schema.Array(Layer).pipe(
  Schema.filter((ls) => ls.length <= MAX_LAYERS || `must list at most ${MAX_LAYERS} layers`)
)

const overrides = Schema.Array(Override).pipe(
  Schema.filter((os) => os.length <= MAX_OVERRIDES || `must list at most ${MAX_OVERRIDES} overrides`)
)

const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * `POST /api/v1/oncall/schedules`. A schedule may start with no layers and no overrides.
 *
 * @since 0.2.0
 * @category requests
 */
export const ScheduleCreate = RequestBody.Struct({
  name: Name,
  time_zone: TimeZone,
  layers: Schema.optionalWith(layers, { default: () => [] }),
  overrides: Schema.optionalWith(overrides, { default: () => [] })
}).annotations({ identifier: "ScheduleCreate" })

/**
 * @since 0.2.0
 * @category requests
 */
export type ScheduleCreate = typeof ScheduleCreate.Type

/**
 * `PATCH /api/v1/oncall/schedules/{id}`: any of the create fields; `layers` and `overrides` replace their lists
 * whole.
 *
 * @since 0.2.0
 * @category requests
 */
export const SchedulePatch = RequestBody.Struct({
  name: optional(Name),
  time_zone: optional(TimeZone),
  layers: optional(layers),
  overrides: optional(overrides)
}).annotations({ identifier: "SchedulePatch" })

/**
 * @since 0.2.0
 * @category requests
 */
export type SchedulePatch = typeof SchedulePatch.Type

/**
 * A schedule as the API answers it.
 *
 * @since 0.2.0
 * @category models
 */
export class Schedule extends Schema.Class<Schedule>("Schedule")({
  id: ScheduleId,
  name: Schema.String,
  time_zone: TimeZone,
  layers: Schema.Array(Layer),
  overrides: Schema.Array(Override),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/**
 * A computed shift: `user_id` is on call from `starts_at` until `ends_at` (half-open), through layer `layer`
 * (its index in `layers`) or, when `layer` is null, an override.
 *
 * @since 0.2.0
 * @category models
 */
export const Shift = Schema.Struct({
  user_id: UserId,
  starts_at: Schema.DateTimeUtc,
  ends_at: Schema.DateTimeUtc,
  layer: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "ScheduleShift" })

/**
 * @since 0.2.0
 * @category models
 */
export type Shift = typeof Shift.Type

/**
 * Who is on call at `at`: nobody (`user_id` null), someone through layer `layer`, or an override (`layer` null).
 *
 * @since 0.2.0
 * @category models
 */
export const OnCallAnswer = Schema.Struct({
  at: Schema.DateTimeUtc,
  user_id: Schema.NullOr(UserId),
  layer: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "OnCallAnswer" })

/**
 * @since 0.2.0
 * @category models
 */
export type OnCallAnswer = typeof OnCallAnswer.Type
