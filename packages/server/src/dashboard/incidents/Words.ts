/**
 * The words the incident pages use for an incident's state, impact, severity, update phases and notifications, in
 * one place so the list, the detail page and the timeline say the same thing. Each state also names the `state-*`
 * class that colours it, always beside its words (colour alone says nothing to some people).
 */
import type { Incident } from "@signalman/core/api/Incidents"
import type { Impact, Phase, Severity } from "@signalman/core/Incident"
import type * as Notification from "@signalman/core/Notification"

/** Where an incident stands, as a person reads it. */
export type State = "open" | "acknowledged" | "recovering" | "resolved" | "recovered"

export interface StateWords {
  readonly state: State
  readonly label: string
  /** The stylesheet's class for the state's colour (`state-down`, ...). */
  readonly tone: string
}

/**
 * An incident's state: closed by a person (`resolved`) or by passing checks (`recovered`); while open, recovering
 * (passing checks, waiting out the recovery period), acknowledged, or open and unacknowledged (paging).
 */
export const stateOf = (
  incident: Pick<Incident, "status" | "close_reason" | "recovering_since" | "acknowledged_at">
): StateWords => {
  if (incident.status === "closed") {
    return incident.close_reason === "recovered"
      ? { state: "recovered", label: "Recovered", tone: "state-up" }
      : { state: "resolved", label: "Resolved", tone: "state-up" }
  }
  if (incident.recovering_since !== null) return { state: "recovering", label: "Recovering", tone: "state-degraded" }
  if (incident.acknowledged_at !== null) return { state: "acknowledged", label: "Acknowledged", tone: "state-degraded" }
  return { state: "open", label: "Open", tone: "state-down" }
}

export const impactWords: Readonly<Record<Impact, string>> = {
  degraded: "Degraded performance",
  partial_outage: "Partial outage",
  major_outage: "Major outage"
}

export const severityWords: Readonly<Record<Severity, string>> = {
  critical: "Critical",
  major: "Major",
  minor: "Minor"
}

export const phaseWords: Readonly<Record<Phase, string>> = {
  investigating: "Investigating",
  identified: "Identified",
  monitoring: "Monitoring",
  resolved: "Resolved",
  postmortem: "Postmortem"
}

/** Which notice a delivery carried: the opening, the n-th reminder, the recovery, the resolution or a page. */
export const noticeWords = (delivery: Pick<Notification.Delivery, "notice_kind" | "reminder">): string => {
  switch (delivery.notice_kind) {
    case "opened":
      return "Incident opened"
    case "reminder":
      return delivery.reminder > 0 ? `Reminder ${delivery.reminder}` : "Reminder"
    case "recovered":
      return "Recovered"
    case "resolved":
      return "Resolved"
    case "escalation":
      return "Escalation page"
  }
}

export const deliveryWords: Readonly<Record<Notification.Delivery["status"], string>> = {
  pending: "Pending",
  delivered: "Delivered",
  dead: "Failed"
}

export const deliveryTone: Readonly<Record<Notification.Delivery["status"], string>> = {
  pending: "state-pending",
  delivered: "state-up",
  dead: "state-down"
}

/** Who wrote something: nobody (the system), the viewer, or another member of the org. */
export const authorWords = (by: string | null, viewerId: string): string => {
  if (by === null) return "Signalman"
  return by === viewerId ? "you" : "a teammate"
}
