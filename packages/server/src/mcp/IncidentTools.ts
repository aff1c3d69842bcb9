/**
 * The MCP tools over incidents: the open ones, one with its timeline, and the writes (acknowledge, post a timeline
 * update). Each runs what the REST endpoint it names runs (`incidents/CallerIncidents`), so its answer, refusals and
 * scope are that endpoint's.
 */
import { IncidentDetail, IncidentId, IncidentPage, IncidentUpdate } from "@signalman/core/api/Incidents"
import { PostIncidentUpdate } from "@signalman/core/IncidentNarration"
import * as Pagination from "@signalman/core/Pagination"
import { TargetId } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CallerIncidents } from "../incidents/CallerIncidents.js"
import * as Tool from "./Tool.js"

const incidentId = Schema.propertySignature(IncidentId).annotations({
  description: "The incident's id (list_open_incidents answers it)"
})

const OneIncident = Tool.Arguments({ incident_id: incidentId })

export const openIncidents = Tool.make({
  name: "list_open_incidents",
  title: "Open incidents",
  description:
    "The org's open incidents, newest first: those monitors opened from failing checks and those people declared; " +
    "optionally of one monitor. Page with `limit` and `offset`.",
  endpoint: { method: "GET", path: "/api/v1/incidents" },
  input: Tool.Arguments({
    monitor_id: Schema.optionalWith(TargetId, { exact: true }).annotations({
      description: "Only this monitor's incidents"
    }),
    ...Pagination.json
  }),
  output: IncidentPage,
  run: ({ monitor_id, ...paging }) =>
    Effect.flatMap(CallerIncidents, (incidents) =>
      incidents.list({ status: "open", target_id: monitor_id, ...Pagination.settle(paging) })
    )
})

export const incident = Tool.make({
  name: "get_incident",
  title: "Incident and timeline",
  description:
    "One incident with its timeline, oldest first: people's updates (kind update, with a phase) and the engine's " +
    "notes (opened, acknowledged, recovering, closed).",
  endpoint: { method: "GET", path: "/api/v1/incidents/:id" },
  input: OneIncident,
  output: IncidentDetail,
  run: ({ incident_id }) => Effect.flatMap(CallerIncidents, (incidents) => incidents.detail(incident_id))
})

export const acknowledgeIncident = Tool.make({
  name: "acknowledge_incident",
  title: "Acknowledge an incident",
  description:
    "Acknowledge an incident: someone is on it (reminders stop). Answers the incident with its timeline; " +
    "acknowledging again changes nothing.",
  endpoint: { method: "POST", path: "/api/v1/incidents/:id/acknowledge" },
  writes: true,
  input: OneIncident,
  output: IncidentDetail,
  run: ({ incident_id }) => Effect.flatMap(CallerIncidents, (incidents) => incidents.acknowledge(incident_id))
})

export const postIncidentUpdate = Tool.make({
  name: "post_incident_update",
  title: "Post an incident update",
  description:
    "Add an update to an incident's timeline, shown on its status pages and sent to their subscribers: a phase " +
    "(investigating, identified, monitoring, resolved, postmortem) and a message. Answers the update.",
  endpoint: { method: "POST", path: "/api/v1/incidents/:id/updates" },
  writes: true,
  input: Tool.Arguments({ incident_id: incidentId, ...PostIncidentUpdate.fields }),
  output: IncidentUpdate,
  run: ({ incident_id, ...update }) =>
    Effect.flatMap(CallerIncidents, (incidents) => incidents.postUpdate(incident_id, update))
})
