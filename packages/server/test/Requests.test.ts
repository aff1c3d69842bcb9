/**
 * What each kind sends for an incident's notices (the e2e suite covers the test message against fakes): pagers
 * trigger on open and resolve the same alert on recovery, the webhook signature verifies, sms needs its settings.
 */
import { createHmac } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import type * as Channel from "@signalman/core/Channel"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Message from "../src/notify/Message.js"
import * as Requests from "../src/notify/Requests.js"

const endpoints: Requests.Endpoints = {
  telegram: "https://api.telegram.org",
  pagerduty: "https://events.pagerduty.com/v2/enqueue",
  opsgenie: { us: "https://api.opsgenie.com", eu: "https://api.eu.opsgenie.com" },
  sms: { url: "https://api.twilio.com", accountSid: undefined, authToken: undefined, from: undefined }
}

const incident = {
  id: "0195aaaa-0000-7000-8000-000000000001",
  number: 3,
  started_at: DateTime.unsafeMake("2025-03-01T10:00:00Z"),
  ended_at: null,
  impact: "partial_outage" as const,
  cause: "unexpected status 500"
}

const notice = (kind: "opened" | "reminder" | "recovered" | "resolved" | "escalation") =>
  Message.fromNotice({
    id: "0195bbbb-0000-7000-8000-000000000002",
    kind,
    created_at: DateTime.unsafeMake("2025-03-01T11:05:00Z"),
    payload: {
      target: { id: "t1", name: "api", type: "http" },
      incident:
        kind === "recovered" || kind === "resolved"
          ? { ...incident, ended_at: DateTime.unsafeMake("2025-03-01T11:05:00Z") }
          : incident,
      reminder: kind === "reminder" ? 2 : 0,
      ...(kind === "escalation" ? { escalation: { page: 4, round: 2, step: 1 } } : {})
    }
  })

const now = DateTime.unsafeMake("2025-03-01T11:05:01Z")

const only = (settings: Channel.Settings, message: Message.Message) => {
  const built = Requests.build(settings, message, "d1", now, endpoints)
  if (Either.isLeft(built)) throw new Error(built.left)
  const [request] = built.right
  if (request?._tag !== "Http") throw new Error("expected an HTTP request")
  return { ...request, json: JSON.parse(request.body) as Record<string, unknown> }
}

describe("Requests", () => {
  it("the messages say what happened, with durations", () => {
    expect(notice("opened")).toMatchObject({ title: "api is down", tone: "down" })
    expect(notice("opened").text).toContain("Incident #3: partial outage.")
    expect(notice("reminder").text).toContain("reminder 2")
    expect(notice("reminder").text).toContain("(1 h 5 min)")
    expect(notice("recovered")).toMatchObject({ title: "api is up again", tone: "up" })
    expect(notice("recovered").text).toContain("(1 h 5 min)")
    expect(notice("resolved").event).toMatchObject({ type: "incident.resolved", reminder: null })
  })

  it("pagerduty triggers on open and resolves the same dedup_key on recovery", () => {
    const settings: Channel.Settings = {
      kind: "pagerduty",
      config: { routing_key: "R0123456789abcdefR0123456789abcd", severity: "error" }
    }
    expect(only(settings, notice("opened")).json).toMatchObject({
      event_action: "trigger",
      dedup_key: incident.id,
      payload: { summary: "api is down", severity: "error", source: "api" }
    })
    expect(only(settings, notice("recovered")).json).toEqual({
      routing_key: "R0123456789abcdefR0123456789abcd",
      event_action: "resolve",
      dedup_key: incident.id
    })
  })

  it("an escalation page says who is paged, carries its position on the event, and triggers the incident's alert", () => {
    const page = notice("escalation")
    expect(page).toMatchObject({ title: "api is down: you are paged", tone: "down" })
    expect(page.text).toContain("Incident #3 is not acknowledged: escalation page (step 1, round 2).")
    expect(page.text).toContain("(1 h 5 min)")
    expect(page.event).toMatchObject({
      type: "incident.escalation",
      reminder: null,
      escalation: { page: 4, round: 2, step: 1 }
    })
    // Only a page carries the field: the other events' bodies are unchanged.
    expect("escalation" in notice("opened").event).toBe(false)
    const pager: Channel.Settings = {
      kind: "pagerduty",
      config: { routing_key: "R0123456789abcdefR0123456789abcd", severity: "error" }
    }
    expect(only(pager, page).json).toMatchObject({ event_action: "trigger", dedup_key: incident.id })
    const genie: Channel.Settings = { kind: "opsgenie", config: { api_key: "k", region: "us", priority: "P2" } }
    expect(only(genie, page).url).toBe("https://api.opsgenie.com/v2/alerts")
  })

  it("opsgenie creates an alert aliased by the incident and closes it by alias", () => {
    const settings: Channel.Settings = { kind: "opsgenie", config: { api_key: "k", region: "us", priority: "P2" } }
    const opened = only(settings, notice("opened"))
    expect(opened.url).toBe("https://api.opsgenie.com/v2/alerts")
    expect(opened.json).toMatchObject({ alias: incident.id, priority: "P2", message: "api is down" })
    expect(only(settings, notice("resolved")).url).toBe(
      `https://api.opsgenie.com/v2/alerts/${incident.id}/close?identifierType=alias`
    )
  })

  it("the webhook is signed over '<t>.<body>' with the channel's secret", () => {
    const secret = "whsec_0123456789abcdef"
    const request = only(
      { kind: "webhook", config: { url: "https://example.com/hook", headers: {}, secret } },
      notice("opened")
    )
    const t = Math.floor(DateTime.toEpochMillis(now) / 1000)
    const mac = createHmac("sha256", secret).update(`${t}.${request.body}`).digest("hex")
    expect(request.headers["x-signalman-signature"]).toBe(`t=${t},v1=${mac}`)
    expect(request.json).toMatchObject({
      type: "incident.opened",
      incident: { started_at: "2025-03-01T10:00:00.000Z" }
    })
  })

  it("sms without the operator's settings cannot be sent, and says why", () => {
    const built = Requests.build(
      { kind: "sms", config: { phone_numbers: ["+14155550100"] } },
      notice("opened"),
      "d1",
      now,
      endpoints
    )
    expect(Either.isLeft(built) && built.left).toContain("notifier.sms.account_sid")
  })
})
