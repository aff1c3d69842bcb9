/**
 * What a notification says, whatever carries it: the webhook event (the structured form) and a title and text in
 * plain words for the chat, mail, pager and SMS kinds. Built from a stored notice, or for a channel's test send.
 */
import type * as Notification from "@signalman/core/Notification"
import * as DateTime from "effect/DateTime"

export interface Message {
  readonly event: Notification.WebhookEvent
  /** One line: what happened to which monitor. */
  readonly title: string
  /** A few lines of detail, plain text. */
  readonly text: string
  /** `down` while an outage is announced, `up` when it ends, `test` for a test send (chooses colours and icons). */
  readonly tone: "down" | "up" | "test"
}

const impactWords: Record<Notification.NoticePayload["incident"]["impact"], string> = {
  degraded: "degraded",
  partial_outage: "partial outage",
  major_outage: "major outage"
}

const iso = (at: DateTime.Utc) => DateTime.formatIso(at)

/** `1 h 5 min`, `3 min`, `42 s`: how long an outage lasted or has lasted. */
export const duration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds} s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes} min`
  const hours = Math.floor(minutes / 60)
  const rest = minutes % 60
  if (hours < 24) return rest === 0 ? `${hours} h` : `${hours} h ${rest} min`
  const days = Math.floor(hours / 24)
  return hours % 24 === 0 ? `${days} d` : `${days} d ${hours % 24} h`
}

export interface StoredNotice {
  readonly id: string
  readonly kind: Notification.NoticeKind
  readonly created_at: DateTime.Utc
  readonly payload: Notification.NoticePayload
}

/** The message of a notice, as the incident stood when the notice was written. */
export const fromNotice = (notice: StoredNotice): Message => {
  const { target, incident, reminder, escalation } = notice.payload
  const event: Notification.WebhookEvent = {
    id: notice.id,
    type: `incident.${notice.kind}`,
    created_at: notice.created_at,
    target,
    incident,
    reminder: notice.kind === "reminder" ? reminder : null,
    ...(notice.kind === "escalation" && escalation !== undefined ? { escalation } : {})
  }
  const since = `Down since ${iso(incident.started_at)}`
  const cause = incident.cause === null ? [] : [`Cause: ${incident.cause}`]
  const lasted =
    incident.ended_at === null
      ? []
      : [
          `Down from ${iso(incident.started_at)} to ${iso(incident.ended_at)} (${duration(
            DateTime.distance(incident.started_at, incident.ended_at)
          )}).`
        ]
  switch (notice.kind) {
    case "opened":
      return {
        event,
        tone: "down",
        title: `${target.name} is down`,
        text: [`Incident #${incident.number}: ${impactWords[incident.impact]}.`, `${since}.`, ...cause].join("\n")
      }
    case "reminder":
      return {
        event,
        tone: "down",
        title: `${target.name} is still down`,
        text: [
          `Incident #${incident.number} is not acknowledged (reminder ${reminder}).`,
          `${since} (${duration(DateTime.distance(incident.started_at, notice.created_at))}).`,
          ...cause
        ].join("\n")
      }
    case "escalation": {
      const page = escalation === undefined ? "" : ` (step ${escalation.step}, round ${escalation.round})`
      return {
        event,
        tone: "down",
        title: `${target.name} is down: you are paged`,
        text: [
          `Incident #${incident.number} is not acknowledged: escalation page${page}.`,
          `${since} (${duration(DateTime.distance(incident.started_at, notice.created_at))}).`,
          ...cause
        ].join("\n")
      }
    }
    case "recovered":
      return {
        event,
        tone: "up",
        title: `${target.name} is up again`,
        text: [`Incident #${incident.number} recovered.`, ...lasted].join("\n")
      }
    case "resolved":
      return {
        event,
        tone: "up",
        title: `${target.name}: incident resolved`,
        text: [`Incident #${incident.number} was resolved by hand.`, ...lasted].join("\n")
      }
  }
}

/** The message of a channel's test send: an event of type `test` without a target or an incident. */
export const test = (channel: { readonly id: string; readonly name: string }, id: string, now: DateTime.Utc) =>
  ({
    event: { id, type: "test", created_at: now, target: null, incident: null, reminder: null },
    tone: "test",
    title: "Signalman test notification",
    text: `This is a test of the notification channel "${channel.name}". Alerts will arrive here like this one.`
  }) satisfies Message
