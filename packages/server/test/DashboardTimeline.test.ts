import { describe, expect, it } from "@effect/vitest"
import { Delivery, Incident, IncidentUpdate } from "@signalman/core/api/Incidents"
import * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as Filter from "../src/dashboard/incidents/Filter.js"
import * as Timeline from "../src/dashboard/incidents/Timeline.js"
import * as Words from "../src/dashboard/incidents/Words.js"

const at = (minutes: number) => DateTime.unsafeMake(Date.UTC(2026, 4, 1, 12, minutes))
const uuid = (n: number) => `01900000-0000-7000-8000-${n.toString().padStart(12, "0")}`

const note = (n: number, minutes: number, message: string) =>
  new IncidentUpdate({ id: uuid(n), kind: "note", phase: null, message, created_by: null, created_at: at(minutes) })

const update = (n: number, minutes: number, phase: IncidentUpdate["phase"], message: string) =>
  new IncidentUpdate({ id: uuid(n), kind: "update", phase, message, created_by: uuid(99), created_at: at(minutes) })

const delivery = (n: number, minutes: number, kind: Delivery["notice_kind"], status: Delivery["status"]) =>
  Schema.decodeUnknownSync(Delivery)({
    id: uuid(n),
    notice_kind: kind,
    reminder: kind === "reminder" ? 2 : 0,
    channel: { id: uuid(50), name: "ops", kind: "email" },
    status,
    attempts: 1,
    next_attempt_at: null,
    last_error: null,
    last_status_code: null,
    delivered_at: null,
    created_at: DateTime.formatIso(at(minutes)),
    updated_at: DateTime.formatIso(at(minutes))
  })

describe("dashboard incident timeline", () => {
  it("merges notes, updates and notifications oldest first; ties keep their order, notifications last", () => {
    const entries = Timeline.entries(
      [
        note(1, 0, "Incident opened: major outage"),
        update(2, 5, "investigating", "Looking into it"),
        note(3, 5, "Acknowledged"),
        note(4, 30, "Resolved")
      ],
      [
        delivery(10, 0, "opened", "delivered"),
        delivery(11, 20, "reminder", "dead"),
        delivery(12, 30, "resolved", "pending")
      ]
    )
    expect(entries.map((e) => `${e._tag}:${e.id.slice(-2)}`)).toEqual([
      "Note:01",
      "Notification:10",
      "Update:02",
      "Note:03",
      "Notification:11",
      "Note:04",
      "Notification:12"
    ])
    const second = entries[2]
    expect(second?._tag === "Update" ? second.phase : undefined).toBe("investigating")
    expect(Timeline.latestUpdate(entries)?.message).toBe("Looking into it")
    expect(Timeline.latestUpdate(Timeline.entries([note(1, 0, "opened")], []))).toBeUndefined()
  })

  it("an update without a phase reads as a note (the API never writes one, but the shape allows it)", () => {
    const [entry] = Timeline.entries([update(1, 0, null, "odd")], [])
    expect(entry?._tag).toBe("Note")
  })

  it("states in words: open, acknowledged, recovering, then resolved by a person or recovered by checks", () => {
    const base = { status: "open", close_reason: null, recovering_since: null, acknowledged_at: null } as const
    expect(Words.stateOf(base)).toMatchObject({ state: "open", label: "Open", tone: "state-down" })
    expect(Words.stateOf({ ...base, acknowledged_at: at(1) })).toMatchObject({ label: "Acknowledged" })
    expect(Words.stateOf({ ...base, acknowledged_at: at(1), recovering_since: at(2) })).toMatchObject({
      label: "Recovering"
    })
    expect(Words.stateOf({ ...base, status: "closed", close_reason: "resolved" })).toMatchObject({ label: "Resolved" })
    expect(Words.stateOf({ ...base, status: "closed", close_reason: "recovered" })).toMatchObject({
      label: "Recovered"
    })
    // The words for the other things an incident page names.
    expect(Words.noticeWords({ notice_kind: "reminder", reminder: 3 })).toBe("Reminder 3")
    expect(Words.noticeWords({ notice_kind: "opened", reminder: 0 })).toBe("Incident opened")
    expect(Words.authorWords(null, uuid(1))).toBe("Signalman")
    expect(Words.authorWords(uuid(1), uuid(1))).toBe("you")
    expect(Words.authorWords(uuid(2), uuid(1))).toBe("a teammate")
    expect(Incident.fields.impact.literals.map((i) => Words.impactWords[i])).toEqual([
      "Degraded performance",
      "Partial outage",
      "Major outage"
    ])
  })

  it("the list's query string: read leniently, written back with only what differs from the defaults", () => {
    const parse = (query: string) => Filter.parse(new URLSearchParams(query))
    expect(parse("")).toEqual(Filter.defaults)
    const target = "01900000-0000-7000-8000-0000000000AB"
    const filter = parse(`status=open&target_id=${target}&severity=major&page=3`)
    expect(filter).toEqual({ status: "open", target_id: target.toLowerCase(), severity: "major", page: 3 })
    expect(Filter.href(filter)).toBe(`/incidents?status=open&target_id=${target.toLowerCase()}&severity=major&page=3`)
    expect(Filter.narrows(filter)).toBe(true)
    // Nonsense is the default, never an error: a bad id is no filter (and never reaches the database).
    expect(parse("status=maybe&target_id=1%27%20OR%201=1&severity=huge&page=-2")).toEqual(Filter.defaults)
    expect(parse("page=2.5&status=")).toEqual(Filter.defaults)
    expect(Filter.narrows(parse("page=4"))).toBe(false)
    expect(Filter.href(Filter.defaults)).toBe("/incidents")
    expect(Filter.href({ ...Filter.defaults, page: 2 })).toBe("/incidents?page=2")
    expect([0, 1, 25, 26, 51].map(Filter.pageCount)).toEqual([1, 1, 1, 2, 3])
  })
})
