import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import * as EscalationPolicy from "../../src/oncall/EscalationPolicy.js"
import * as EscalationWalk from "../../src/oncall/EscalationWalk.js"

const opened = new Date("2026-05-01T10:00:00Z")
const iso = (page: EscalationWalk.Page<string> | null) =>
  page === null ? null : { ...page, due_at: page.due_at.toISOString() }

// Page the primary at once, the secondary 10 minutes later, the team channel 20 minutes after that; twice more.
const policy: EscalationWalk.WalkRules<string> = {
  steps: [
    { delay_minutes: 0, targets: ["primary"] },
    { delay_minutes: 10, targets: ["secondary"] },
    { delay_minutes: 20, targets: ["team-channel", "manager"] }
  ],
  repeat: 2
}

describe("EscalationWalk", () => {
  it("delays count from the previous step, and a repeat starts after the last step of the round before", () => {
    expect(EscalationWalk.pageCount(policy)).toBe(9)
    expect(EscalationWalk.pages(policy, opened).map((p) => [p.n, p.round, p.step, p.due_at.toISOString()])).toEqual([
      [0, 0, 0, "2026-05-01T10:00:00.000Z"],
      [1, 0, 1, "2026-05-01T10:10:00.000Z"],
      [2, 0, 2, "2026-05-01T10:30:00.000Z"],
      [3, 1, 0, "2026-05-01T10:30:00.000Z"],
      [4, 1, 1, "2026-05-01T10:40:00.000Z"],
      [5, 1, 2, "2026-05-01T11:00:00.000Z"],
      [6, 2, 0, "2026-05-01T11:00:00.000Z"],
      [7, 2, 1, "2026-05-01T11:10:00.000Z"],
      [8, 2, 2, "2026-05-01T11:30:00.000Z"]
    ])
    expect(iso(EscalationWalk.pageAt(policy, opened, 5))).toEqual({
      n: 5,
      round: 1,
      step: 2,
      due_at: "2026-05-01T11:00:00.000Z",
      targets: ["team-channel", "manager"]
    })
  })

  it("a first step with a delay waits after the incident opened", () => {
    const later = { steps: [{ delay_minutes: 5, targets: ["a"] }], repeat: 0 }
    expect(iso(EscalationWalk.pageAt(later, opened, 0))?.due_at).toBe("2026-05-01T10:05:00.000Z")
  })

  it("there is no page before the first, past the last, or at a fractional index", () => {
    expect(EscalationWalk.pageAt(policy, opened, -1)).toBe(null)
    expect(EscalationWalk.pageAt(policy, opened, 9)).toBe(null)
    expect(EscalationWalk.pageAt(policy, opened, 1.5)).toBe(null)
    expect(EscalationWalk.pageAt({ steps: [], repeat: 3 }, opened, 0)).toBe(null)
    expect(EscalationWalk.pages({ steps: [], repeat: 3 }, opened)).toEqual([])
  })

  it("the next page after a moment is the first due strictly later; none once all are due", () => {
    expect(EscalationWalk.nextPageAfter(policy, opened, new Date("2026-05-01T10:10:00Z"))?.n).toBe(2)
    expect(EscalationWalk.nextPageAfter(policy, opened, new Date("2026-05-01T09:00:00Z"))?.n).toBe(0)
    expect(EscalationWalk.nextPageAfter(policy, opened, new Date("2026-05-01T11:30:00Z"))).toBe(null)
  })

  it("walks a decoded policy, whose targets are typed", () => {
    const decoded = Schema.decodeUnknownSync(EscalationPolicy.EscalationPolicyCreate)({
      name: "Default",
      steps: [{ delay_minutes: 15, targets: [{ type: "schedule", id: "0b7f8c4e-2d1a-4e3b-9f5c-6a7d8e9f0a1b" }] }]
    })
    const page = EscalationWalk.pageAt(decoded, opened, 0)
    expect(page?.targets[0]?.type).toBe("schedule")
    expect(page?.due_at.toISOString()).toBe("2026-05-01T10:15:00.000Z")
    expect(EscalationWalk.pageAt(decoded, opened, 1)).toBe(null)
  })

  it.prop(
    "due times never decrease, every step comes once a round in order, and each page is due the sum of delays",
    {
      delays: FastCheck.array(FastCheck.integer({ min: 0, max: EscalationPolicy.MAX_DELAY_MINUTES }), {
        minLength: 1,
        maxLength: EscalationPolicy.MAX_STEPS
      }),
      repeat: FastCheck.integer({ min: 0, max: EscalationPolicy.MAX_REPEAT })
    },
    ({ delays, repeat }) => {
      const rules = { steps: delays.map((delay_minutes, i) => ({ delay_minutes, targets: [i] })), repeat }
      const all = EscalationWalk.pages(rules, opened)
      expect(all.length).toBe(delays.length * (repeat + 1))
      let elapsed = 0
      all.forEach((page, n) => {
        elapsed += delays[n % delays.length] ?? 0
        expect(page.n).toBe(n)
        expect(page.round).toBe(Math.floor(n / delays.length))
        expect(page.step).toBe(n % delays.length)
        expect(page.targets).toEqual([page.step])
        expect(page.due_at.getTime() - opened.getTime()).toBe(elapsed * 60_000)
        expect(EscalationWalk.pageAt(rules, opened, n)).toEqual(page)
        const previous = all[n - 1]
        if (previous !== undefined) expect(previous.due_at.getTime()).toBeLessThanOrEqual(page.due_at.getTime())
      })
      expect(EscalationWalk.pageAt(rules, opened, all.length)).toBe(null)
    }
  )
})
