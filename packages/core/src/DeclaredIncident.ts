/**
 * An incident a person declares (`POST /api/v1/incidents`), as opposed to one the engine opens from failing
 * checks (`IncidentMachine`). No check drives it: it is open until a person resolves it, its impact is what the
 * person says, and it counts against uptime only when `counts_as_downtime` says so.
 *
 * Declaring pages nobody and sends no reminders: the person who declares it is the one who knows. Its story
 * reaches the status page and its subscribers through incident updates (`IncidentNarration`).
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import { Impact } from "./Incident.js"

/**
 * A declared incident's lifecycle record.
 *
 * @since 0.1.0
 * @category models
 */
export const Declared = Schema.Struct({
  title: Schema.String,
  impact: Impact,
  counts_as_downtime: Schema.Boolean,
  started_at: Schema.DateTimeUtc,
  declared_by: Schema.String,
  acknowledged_at: Schema.DateTimeUtc,
  acknowledged_by: Schema.String,
  ended_at: Schema.NullOr(Schema.DateTimeUtc),
  resolved_by: Schema.NullOr(Schema.String)
}).annotations({ identifier: "DeclaredIncident" })

/**
 * @since 0.1.0
 * @category models
 */
export type Declared = typeof Declared.Type

/**
 * What a person declares. `counts_as_downtime` defaults to false: a declared incident is often a notice (slow
 * support, a third party's trouble), and only an explicit choice should cost the components their uptime.
 *
 * @since 0.1.0
 * @category models
 */
export interface Declaration {
  readonly title: string
  readonly impact: Impact
  readonly counts_as_downtime?: boolean | undefined
}

/**
 * A new declared incident, open from `now`. Declaring is acknowledging: it is acknowledged by its declarer.
 *
 * @since 0.1.0
 * @category constructors
 */
export const declare = (declaration: Declaration, by: string, now: DateTime.Utc): Declared => ({
  title: declaration.title,
  impact: declaration.impact,
  counts_as_downtime: declaration.counts_as_downtime ?? false,
  started_at: now,
  declared_by: by,
  acknowledged_at: now,
  acknowledged_by: by,
  ended_at: null,
  resolved_by: null
})

/**
 * Whether the incident is still open.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isOpen = (incident: Declared): boolean => incident.ended_at === null

/**
 * Acknowledging a declared incident changes nothing: it was acknowledged when declared.
 *
 * @since 0.1.0
 * @category transitions
 */
export const acknowledge = (incident: Declared): Declared => incident

/**
 * Resolve: the incident ends now. Resolving a resolved incident keeps its first end and resolver.
 *
 * @since 0.1.0
 * @category transitions
 */
export const resolve = (incident: Declared, by: string, now: DateTime.Utc): Declared =>
  isOpen(incident) ? { ...incident, ended_at: now, resolved_by: by } : incident

/**
 * How long the incident costs its components' uptime up to `now`, in milliseconds: nothing unless it counts as
 * downtime.
 *
 * @since 0.1.0
 * @category downtime
 */
export const downtimeMs = (incident: Declared, now: DateTime.Utc): number =>
  incident.counts_as_downtime
    ? Math.max(0, DateTime.toEpochMillis(incident.ended_at ?? now) - DateTime.toEpochMillis(incident.started_at))
    : 0
