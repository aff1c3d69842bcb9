/**
 * The words an incident is described with (service-api.md "Incident (narration)", "Alert config"): who opened it,
 * how bad it is, the stretches it spent recovered, and the phases of its public updates. The engines that move
 * incidents are `IncidentMachine` (opened by a monitor) and `DeclaredIncident` (opened by a person).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `monitor`: opened by the incident engine from failing checks. `declared`: opened by a person.
 *
 * @since 0.1.0
 * @category models
 */
export const Origin = Schema.Literal("monitor", "declared")

/**
 * @since 0.1.0
 * @category models
 */
export type Origin = typeof Origin.Type

/**
 * How bad an incident is for the people who use the service, as the public JSON shows it.
 *
 * @since 0.1.0
 * @category models
 */
export const Impact = Schema.Literal("degraded", "partial_outage", "major_outage")

/**
 * @since 0.1.0
 * @category models
 */
export type Impact = typeof Impact.Type

/**
 * The severity a person gives an incident (internal triage, beside the public impact); null when none is set.
 *
 * @since 0.1.0
 * @category models
 */
export const Severity = Schema.Literal("critical", "major", "minor")

/**
 * @since 0.1.0
 * @category models
 */
export type Severity = typeof Severity.Type

/**
 * A stretch the monitor spent recovered inside an incident that then resumed: listed on the incident, left out of
 * uptime.
 *
 * @since 0.1.0
 * @category models
 */
export const RecoveredStretch = Schema.Struct({
  from: Schema.DateTimeUtc,
  until: Schema.DateTimeUtc
}).annotations({ identifier: "RecoveredStretch" })

/**
 * @since 0.1.0
 * @category models
 */
export type RecoveredStretch = typeof RecoveredStretch.Type

/**
 * The phase of an incident update.
 *
 * @since 0.1.0
 * @category models
 */
export const Phase = Schema.Literal("investigating", "identified", "monitoring", "resolved", "postmortem")

/**
 * @since 0.1.0
 * @category models
 */
export type Phase = typeof Phase.Type
