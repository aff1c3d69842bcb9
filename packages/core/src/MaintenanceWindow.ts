/**
 * Maintenance windows (service-api.md "States and transitions: Maintenance window"): upcoming until `starts_at`,
 * running until `ends_at`, then completed; or cancelled by DELETE before they end, kept as history with
 * `deleted_at` and `deleted_by`. A window's state follows from its times and the clock, so nothing needs to run
 * when a window starts or ends; the transitions below are pure functions of `(window, request, now)`.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Order from "effect/Order"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"

/**
 * The most updates a window takes.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_UPDATES = 50

/**
 * A window as stored (the lifecycle fields; `components` are target ids).
 *
 * @since 0.1.0
 * @category models
 */
export const Window = Schema.Struct({
  title: Schema.String,
  description: Schema.String,
  starts_at: Schema.DateTimeUtc,
  ends_at: Schema.DateTimeUtc,
  components: Schema.Array(Schema.String),
  suppress_alerts: Schema.Boolean,
  deleted_at: Schema.NullOr(Schema.DateTimeUtc),
  deleted_by: Schema.NullOr(Schema.String),
  update_count: Schema.Int
}).annotations({ identifier: "MaintenanceWindowState" })

/**
 * @since 0.1.0
 * @category models
 */
export type Window = typeof Window.Type

/**
 * @since 0.1.0
 * @category models
 */
export type Status = "upcoming" | "running" | "completed" | "cancelled"

/**
 * Where a window stands at `now`. The range is half-open: at `ends_at` the window has ended.
 *
 * @since 0.1.0
 * @category states
 */
export const statusAt = (window: Window, now: DateTime.Utc): Status => {
  if (window.deleted_at !== null) return "cancelled"
  if (DateTime.lessThan(now, window.starts_at)) return "upcoming"
  if (DateTime.lessThan(now, window.ends_at)) return "running"
  return "completed"
}

/**
 * What a schedule or an edit may set.
 *
 * @since 0.1.0
 * @category models
 */
export interface Edit {
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly starts_at?: DateTime.Utc | undefined
  readonly ends_at?: DateTime.Utc | undefined
  readonly components?: ReadonlyArray<string> | undefined
  readonly suppress_alerts?: boolean | undefined
}

/**
 * What a new window is scheduled with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Schedule {
  readonly title: string
  readonly description: string
  readonly starts_at: DateTime.Utc
  readonly ends_at: DateTime.Utc
  readonly components: ReadonlyArray<string>
  readonly suppress_alerts: boolean
}

const invalid = (field: string, message: string) => ApiError.make("VALIDATION_FAILED", message, { field })

const rangeRule = (starts_at: DateTime.Utc, ends_at: DateTime.Utc): ApiError.ApiError | undefined =>
  DateTime.lessThanOrEqualTo(ends_at, starts_at) ? invalid("ends_at", "ends_at must be after starts_at") : undefined

/**
 * Schedule a window: it must end after it starts, and in the future (a window wholly in the past would be history
 * nobody lived). A start in the past makes it running at once.
 *
 * @since 0.1.0
 * @category transitions
 */
export const schedule = (input: Schedule, now: DateTime.Utc): Either.Either<Window, ApiError.ApiError> => {
  const broken =
    rangeRule(input.starts_at, input.ends_at) ??
    (DateTime.lessThanOrEqualTo(input.ends_at, now) ? invalid("ends_at", "ends_at must be in the future") : undefined)
  if (broken !== undefined) return Either.left(broken)
  return Either.right({
    ...input,
    components: [...new Set(input.components)],
    deleted_at: null,
    deleted_by: null,
    update_count: 0
  })
}

const cancelled = () => ApiError.make("MAINTENANCE_CANCELLED", "This maintenance window was cancelled")
const ended = () => ApiError.make("MAINTENANCE_ENDED", "This maintenance window has ended")

/**
 * Edit an upcoming or running window. An ended or cancelled one is refused (422 `MAINTENANCE_ENDED`, 422
 * `MAINTENANCE_CANCELLED`). A running window keeps its start (sending the same instant back is fine), and an
 * `ends_at` at or before now ends it at the server's clock. An upcoming window's `ends_at` must stay in the future.
 *
 * @since 0.1.0
 * @category transitions
 */
export const edit = (window: Window, changes: Edit, now: DateTime.Utc): Either.Either<Window, ApiError.ApiError> => {
  const status = statusAt(window, now)
  if (status === "cancelled") return Either.left(cancelled())
  if (status === "completed") return Either.left(ended())
  const starts_at = changes.starts_at ?? window.starts_at
  const requested = changes.ends_at ?? window.ends_at
  if (status === "running" && !DateTime.Equivalence(starts_at, window.starts_at)) {
    return Either.left(invalid("starts_at", "a running window has started; its start cannot move"))
  }
  // Any end at or before now stops a running window now, even one before its start (the spec's condition is
  // "any"): the caller asked for it to be over, and the range stays whole.
  const ends_at = status === "running" && DateTime.lessThanOrEqualTo(requested, now) ? now : requested
  const broken = rangeRule(starts_at, ends_at)
  if (broken !== undefined) return Either.left(broken)
  if (status === "upcoming" && DateTime.lessThanOrEqualTo(ends_at, now)) {
    return Either.left(invalid("ends_at", "ends_at must be in the future"))
  }
  return Either.right({
    ...window,
    title: changes.title ?? window.title,
    description: changes.description ?? window.description,
    starts_at,
    ends_at,
    components: changes.components === undefined ? window.components : [...new Set(changes.components)],
    suppress_alerts: changes.suppress_alerts ?? window.suppress_alerts
  })
}

/**
 * Cancel (DELETE) a window that has not ended; it stays as history and stops suppressing alerts at once.
 *
 * @since 0.1.0
 * @category transitions
 */
export const cancel = (window: Window, by: string, now: DateTime.Utc): Either.Either<Window, ApiError.ApiError> => {
  const status = statusAt(window, now)
  if (status === "cancelled") return Either.left(cancelled())
  if (status === "completed") return Either.left(ended())
  return Either.right({ ...window, deleted_at: now, deleted_by: by })
}

/**
 * Post an update: any window but a cancelled one (422 `MAINTENANCE_CANCELLED`), up to 50 (422
 * `MAINTENANCE_UPDATE_LIMIT`).
 *
 * @since 0.1.0
 * @category transitions
 */
export const postUpdate = (window: Window): Either.Either<Window, ApiError.ApiError> => {
  if (window.deleted_at !== null) return Either.left(cancelled())
  if (window.update_count >= MAX_UPDATES) {
    return Either.left(
      ApiError.make("MAINTENANCE_UPDATE_LIMIT", `A maintenance window takes at most ${MAX_UPDATES} updates`, {
        details: { limit: MAX_UPDATES }
      })
    )
  }
  return Either.right({ ...window, update_count: window.update_count + 1 })
}

/**
 * Whether the window keeps the monitor's alerts quiet at `now`: running, suppressing, and covering it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const suppresses = (window: Window, targetId: string, now: DateTime.Utc): boolean =>
  window.suppress_alerts && window.components.includes(targetId) && statusAt(window, now) === "running"

/**
 * The list filter (`GET /api/v1/maintenance?status=`).
 *
 * @since 0.1.0
 * @category filters
 */
export const StatusFilter = Schema.Literal("active", "upcoming", "past", "all")

/**
 * @since 0.1.0
 * @category filters
 */
export type StatusFilter = typeof StatusFilter.Type

/**
 * Whether a window belongs in a filtered list at `now`: `active` is running, `upcoming` not started yet, `past`
 * completed or cancelled (both are history), `all` everything.
 *
 * @since 0.1.0
 * @category filters
 */
export const matches = (filter: StatusFilter, window: Window, now: DateTime.Utc): boolean => {
  const status = statusAt(window, now)
  switch (filter) {
    case "active":
      return status === "running"
    case "upcoming":
      return status === "upcoming"
    case "past":
      return status === "completed" || status === "cancelled"
    case "all":
      return true
  }
}

/**
 * The order of a filtered list: upcoming windows soonest first, every other list the latest start first.
 *
 * @since 0.1.0
 * @category filters
 */
export const order = (filter: StatusFilter): Order.Order<Window> => {
  const byStart = Order.mapInput(DateTime.Order, (window: Window) => window.starts_at)
  return filter === "upcoming" ? byStart : Order.reverse(byStart)
}
