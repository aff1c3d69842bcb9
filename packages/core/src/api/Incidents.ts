/**
 * Incidents (`/api/v1/incidents*`): the incidents the engine opens from failing checks and the ones people declare,
 * their timeline, acknowledgement and resolution, narration, the delivery log, the postmortem and the response
 * metrics. Shapes and rules: docs/incidents.md.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { Impact, Origin, Phase, RecoveredStretch, Severity } from "../Incident.js"
import { IncidentEscalation } from "../IncidentEscalation.js"
import { MAX_MESSAGE_LENGTH, MAX_TITLE_LENGTH, PatchIncident, PostIncidentUpdate } from "../IncidentNarration.js"
import * as Notification from "../Notification.js"
import * as Pagination from "../Pagination.js"
import * as RequestBody from "../RequestBody.js"
import { TargetId } from "../Target.js"
import { Authentication } from "./Authentication.js"
import { RegionId } from "./Operator.js"
import { requires } from "./RequiredScope.js"

/**
 * @since 0.1.0
 * @category ids
 */
export const IncidentId = Schema.UUID.pipe(Schema.brand("IncidentId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type IncidentId = typeof IncidentId.Type

/**
 * An incident as every read shows it. `number` counts a monitor's incidents from 1 (null on a declared one);
 * `title` falls back to the monitor's name while nobody has given one; `components` are the monitors a declared
 * incident names (a monitor-opened incident lists its own monitor). `regions_down` lists, sorted, the probe regions
 * that were confirmed down while a monitor-opened incident was open (it only grows); empty on a declared one.
 *
 * @since 0.1.0
 * @category models
 */
export class Incident extends Schema.Class<Incident>("Incident")({
  id: IncidentId,
  origin: Origin,
  status: Schema.Literal("open", "closed"),
  target_id: Schema.NullOr(TargetId),
  number: Schema.NullOr(Schema.Int),
  title: Schema.NullOr(Schema.String),
  public_title: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  severity: Schema.NullOr(Severity),
  impact: Impact,
  counts_as_downtime: Schema.Boolean,
  components: Schema.Array(TargetId),
  started_at: Schema.DateTimeUtc,
  ended_at: Schema.NullOr(Schema.DateTimeUtc),
  acknowledged_at: Schema.NullOr(Schema.DateTimeUtc),
  acknowledged_by: Schema.NullOr(Schema.String),
  resolved_by: Schema.NullOr(Schema.String),
  close_reason: Schema.NullOr(Schema.Literal("recovered", "resolved")),
  recovering_since: Schema.NullOr(Schema.DateTimeUtc),
  recovered: Schema.Array(RecoveredStretch),
  regions_down: Schema.Array(Schema.String),
  created_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/**
 * One entry of an incident's timeline: a person's update (`kind` `update`, with a phase) or a system note the
 * engine wrote (`kind` `note`, phase null: opened, impact changed, acknowledged, recovering, resumed, closed).
 *
 * @since 0.1.0
 * @category models
 */
export class IncidentUpdate extends Schema.Class<IncidentUpdate>("IncidentUpdate")({
  id: Schema.UUID,
  kind: Schema.Literal("update", "note"),
  phase: Schema.NullOr(Phase),
  message: Schema.String,
  created_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
}) {}

/**
 * `GET /api/v1/incidents/{id}`: the incident with its timeline, oldest first, and its escalation walk (null when
 * none: a declared incident, or a monitor with no escalation policy when the incident opened).
 *
 * @since 0.1.0
 * @category models
 */
export class IncidentDetail extends Incident.extend<IncidentDetail>("IncidentDetail")({
  updates: Schema.Array(IncidentUpdate),
  escalation: Schema.NullOr(IncidentEscalation)
}) {}

/**
 * A timestamp in a query string (RFC 3339).
 *
 * @since 0.1.0
 * @category requests
 */
const instant = Schema.optionalWith(Schema.DateTimeUtc, { exact: true })

/**
 * A region id in a query string: incidents whose `regions_down` include it.
 *
 * @since 0.1.0
 * @category requests
 */
const region = Schema.optionalWith(RegionId, { exact: true })

/**
 * The query of `GET /api/v1/incidents`: `status` (default `all`), a monitor, a region its `regions_down`
 * include, and a range the incident overlaps.
 *
 * @since 0.1.0
 * @category requests
 */
export const ListIncidents = Schema.Struct({
  ...Pagination.query,
  status: Schema.optionalWith(Schema.Literal("open", "closed", "all"), { default: () => "all" as const }),
  target_id: Schema.optionalWith(TargetId, { exact: true }),
  region,
  from: instant,
  to: instant
})

/**
 * A page of incidents.
 *
 * @since 0.1.0
 * @category models
 */
export const IncidentPage = Pagination.page(Incident, "IncidentPage")

/**
 * The most monitors a declared incident may name.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_COMPONENTS = 100

/**
 * `POST /api/v1/incidents`: declare an incident by hand. `message`, when given, is the first update (phase
 * `investigating`).
 *
 * @since 0.1.0
 * @category requests
 */
export const DeclareIncident = RequestBody.Struct({
  title: Schema.Trim.pipe(
    Schema.minLength(1, { message: () => "must not be empty" }),
    Schema.maxLength(MAX_TITLE_LENGTH)
  ),
  impact: Impact,
  components: Schema.Array(TargetId).pipe(Schema.maxItems(MAX_COMPONENTS)),
  counts_as_downtime: Schema.optionalWith(Schema.Boolean, { exact: true }),
  severity: Schema.optionalWith(Schema.NullOr(Severity), { exact: true }),
  public_title: PatchIncident.fields.public_title,
  message: Schema.optionalWith(PostIncidentUpdate.fields.message, { exact: true })
}).annotations({ identifier: "DeclareIncident" })

/**
 * @since 0.1.0
 * @category requests
 */
export type DeclareIncident = typeof DeclareIncident.Type

/**
 * One notification attempt record of an incident, as the notifier keeps it.
 *
 * @since 0.1.0
 * @category models
 */
export const Delivery = Notification.Delivery

/**
 * @since 0.1.0
 * @category models
 */
export type Delivery = Notification.Delivery

/**
 * `GET /api/v1/incidents/{id}/deliveries`, oldest first.
 *
 * @since 0.1.0
 * @category models
 */
export const DeliveryLog = Schema.Struct({ data: Schema.Array(Delivery) }).annotations({ identifier: "DeliveryLog" })

/**
 * The most characters a postmortem may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_POSTMORTEM_LENGTH = 50_000

/**
 * `PUT /api/v1/incidents/{id}/postmortem`: the whole document (Markdown), replacing the stored one.
 *
 * @since 0.1.0
 * @category requests
 */
export const PutPostmortem = RequestBody.Struct({
  body: Schema.String.pipe(Schema.maxLength(MAX_POSTMORTEM_LENGTH))
}).annotations({ identifier: "PutPostmortem" })

/**
 * An incident's postmortem: internal, read with `incidents:read`.
 *
 * @since 0.1.0
 * @category models
 */
export const Postmortem = Schema.Struct({
  incident_id: IncidentId,
  body: Schema.String,
  created_by: Schema.NullOr(Schema.String),
  updated_by: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}).annotations({ identifier: "Postmortem" })

/**
 * The query of `GET /api/v1/incidents/metrics`: incidents that started in `[from, to)`; by default the 30 days
 * before now.
 *
 * @since 0.1.0
 * @category requests
 */
export const MetricsQuery = Schema.Struct({
  from: instant,
  to: instant,
  target_id: Schema.optionalWith(TargetId, { exact: true })
})

/**
 * Response figures over the incidents that started in the range. `mtta_secs`: mean seconds from start to
 * acknowledgement over the monitor-opened incidents that were acknowledged; `mttr_secs`: mean seconds from start to
 * end over the closed incidents of both origins; null when nothing was counted.
 *
 * @since 0.1.0
 * @category models
 */
export const IncidentMetrics = Schema.Struct({
  from: Schema.DateTimeUtc,
  to: Schema.DateTimeUtc,
  incidents: Schema.Int,
  acknowledged: Schema.Int,
  closed: Schema.Int,
  mtta_secs: Schema.NullOr(Schema.Number),
  mttr_secs: Schema.NullOr(Schema.Number)
}).annotations({ identifier: "IncidentMetrics" })

/**
 * The query of `GET /api/v1/targets/{id}/incidents`: periods overlapping `[from, to)`; `ongoing_only` keeps the
 * period still open; `region` merges only the monitor's own incidents whose `regions_down` include it.
 *
 * @since 0.1.0
 * @category requests
 */
export const ListIncidentPeriods = Schema.Struct({
  ...Pagination.query,
  from: instant,
  to: instant,
  ongoing_only: Schema.optionalWith(Schema.BooleanFromString, { default: () => false }),
  region
})

/**
 * A stretch of time a monitor spent in one or more overlapping incidents (its own and declared ones naming it),
 * merged into one: `ended_at` null while it goes on.
 *
 * @since 0.1.0
 * @category models
 */
export const IncidentPeriod = Schema.Struct({
  started_at: Schema.DateTimeUtc,
  ended_at: Schema.NullOr(Schema.DateTimeUtc),
  ongoing: Schema.Boolean,
  incident_ids: Schema.Array(IncidentId)
}).annotations({ identifier: "IncidentPeriod" })

/**
 * @since 0.1.0
 * @category models
 */
export type IncidentPeriod = typeof IncidentPeriod.Type

/**
 * A page of incident periods, newest first.
 *
 * @since 0.1.0
 * @category models
 */
export const IncidentPeriodPage = Pagination.page(IncidentPeriod, "IncidentPeriodPage")

const incidentPath = Schema.Struct({ id: IncidentId })

/**
 * @since 0.1.0
 * @category groups
 */
export class IncidentsApi extends HttpApiGroup.make("incidents")
  .add(
    HttpApiEndpoint.get("list", "/incidents")
      .annotateContext(requires("incidents:read"))
      .setUrlParams(ListIncidents)
      .addSuccess(IncidentPage)
      .annotate(
        OpenApi.Description,
        "The org's incidents, latest start first; status open|closed|all, target_id, region (incidents whose " +
          "regions_down include it), and a from/to range the incident overlaps. Scope incidents:read."
      )
  )
  .add(
    HttpApiEndpoint.get("metrics", "/incidents/metrics")
      .annotateContext(requires("incidents:read"))
      .setUrlParams(MetricsQuery)
      .addSuccess(IncidentMetrics)
      .annotate(
        OpenApi.Description,
        "MTTA and MTTR over the incidents that started in [from, to) (default: the last 30 days). Scope incidents:read."
      )
  )
  .add(
    HttpApiEndpoint.post("declare", "/incidents")
      .annotateContext(requires("incidents:write"))
      .setPayload(DeclareIncident)
      .addSuccess(IncidentDetail, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .annotate(
        OpenApi.Description,
        "Declare an incident by hand, naming the affected monitors; pages nobody. public_title and message need " +
          "the plan's incident narration (403 INCIDENT_NARRATION_DISABLED). Scope incidents:write."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/incidents/:id")
      .annotateContext(requires("incidents:read"))
      .setPath(incidentPath)
      .addSuccess(IncidentDetail)
      .annotate(OpenApi.Description, "One incident with its timeline. Scope incidents:read.")
  )
  .add(
    HttpApiEndpoint.patch("update", "/incidents/:id")
      .annotateContext(requires("incidents:write"))
      .setPath(incidentPath)
      .setPayload(PatchIncident)
      .addSuccess(IncidentDetail)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Narrate: title, public_title, public_description, severity (null clears, omitted leaves alone; a declared " +
          "incident's title cannot be cleared), counts_as_downtime on a declared incident (422 " +
          "INCIDENT_NOT_DECLARED on a monitor-opened one). Scope incidents:write."
      )
  )
  .add(
    HttpApiEndpoint.post("postUpdate", "/incidents/:id/updates")
      .annotateContext(requires("incidents:write"))
      .setPath(incidentPath)
      .setPayload(PostIncidentUpdate)
      .addSuccess(IncidentUpdate, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .annotate(
        OpenApi.Description,
        `Add a public update: phase and a message of 1 to ${MAX_MESSAGE_LENGTH} characters. Needs the plan's ` +
          "incident narration (403 INCIDENT_NARRATION_DISABLED). Scope incidents:write."
      )
  )
  .add(
    HttpApiEndpoint.post("acknowledge", "/incidents/:id/acknowledge")
      .annotateContext(requires("incidents:execute"))
      .setPath(incidentPath)
      .addSuccess(IncidentDetail)
      .annotate(
        OpenApi.Description,
        "Acknowledge: reminders stop. Acknowledging an acknowledged or closed incident changes nothing. Scope " +
          "incidents:execute."
      )
  )
  .add(
    HttpApiEndpoint.post("resolve", "/incidents/:id/resolve")
      .annotateContext(requires("incidents:execute"))
      .setPath(incidentPath)
      .addSuccess(IncidentDetail)
      .annotate(
        OpenApi.Description,
        "Resolve: the incident closes now (a recovering one at its recovery start). Resolving a closed incident " +
          "changes nothing. Scope incidents:execute."
      )
  )
  .add(
    HttpApiEndpoint.get("deliveries", "/incidents/:id/deliveries")
      .annotateContext(requires("incidents:read"))
      .setPath(incidentPath)
      .addSuccess(DeliveryLog)
      .annotate(OpenApi.Description, "The incident's notification deliveries. Scope incidents:read.")
  )
  .add(
    HttpApiEndpoint.get("postmortem", "/incidents/:id/postmortem")
      .annotateContext(requires("incidents:read"))
      .setPath(incidentPath)
      .addSuccess(Postmortem)
      .annotate(OpenApi.Description, "The postmortem; 404 while none is written. Scope incidents:read.")
  )
  .add(
    HttpApiEndpoint.put("putPostmortem", "/incidents/:id/postmortem")
      .annotateContext(requires("incidents:write"))
      .setPath(incidentPath)
      .setPayload(PutPostmortem)
      .addSuccess(Postmortem)
      .addError(ApiError.Wire.BadRequest)
      .annotate(OpenApi.Description, "Write or replace the postmortem. Scope incidents:write.")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Incidents") {}
