import { describe, expect, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as EscalationPolicy from "../../src/oncall/EscalationPolicy.js"
import { invalid, refusal } from "./refusal.js"

const id = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
const other = "0b7f8c4e-2d1a-4e3b-9f5c-6a7d8e9f0a1b"
const step = (over: Record<string, unknown> = {}) => ({ delay_minutes: 0, targets: [{ type: "user", id }], ...over })

const create = (input: unknown) => refusal(EscalationPolicy.EscalationPolicyCreate, input)

describe("EscalationPolicy shapes", () => {
  it("a policy needs a name and steps; repeat defaults to 0", () => {
    expect(
      Schema.decodeUnknownSync(EscalationPolicy.EscalationPolicyCreate)({ name: "Default", steps: [step()] })
    ).toEqual({
      name: "Default",
      steps: [{ delay_minutes: 0, targets: [{ type: "user", id }] }],
      repeat: 0
    })
    expect(create({ name: "Default" })).toEqual(invalid("steps"))
  })

  it("1 to 10 steps, 1 to 10 targets a step, delays of 0 to 1440 minutes, repeat 0 to 5", () => {
    expect(create({ name: "p", steps: [] })).toEqual(invalid("steps"))
    expect(create({ name: "p", steps: Array.from({ length: 11 }, () => step()) })).toEqual(invalid("steps"))
    expect(create({ name: "p", steps: Array.from({ length: 10 }, () => step()), repeat: 5 })).toBe(null)
    expect(create({ name: "p", steps: [step({ targets: [] })] })).toEqual(invalid("steps[0].targets"))
    const many = Array.from({ length: 11 }, (_, i) => ({ type: "user", id: id.replace(/.$/, i.toString(16)) }))
    expect(create({ name: "p", steps: [step({ targets: many })] })).toEqual(invalid("steps[0].targets"))
    expect(create({ name: "p", steps: [step({ delay_minutes: 1440 })] })).toBe(null)
    expect(create({ name: "p", steps: [step({ delay_minutes: 1441 })] })).toEqual(invalid("steps[0].delay_minutes"))
    expect(create({ name: "p", steps: [step({ delay_minutes: -1 })] })).toEqual(invalid("steps[0].delay_minutes"))
    expect(create({ name: "p", steps: [step({ delay_minutes: 2.5 })] })).toEqual(invalid("steps[0].delay_minutes"))
    expect(create({ name: "p", steps: [step()], repeat: 6 })).toEqual(invalid("repeat"))
  })

  it("a target is a user, a schedule or a channel by id, named once a step", () => {
    expect(create({ name: "p", steps: [step({ targets: [{ type: "team", id }] })] })).toEqual(
      invalid("steps[0].targets[0].type")
    )
    expect(create({ name: "p", steps: [step({ targets: [{ type: "user", id: "bob" }] })] })).toEqual(
      invalid("steps[0].targets[0].id")
    )
    // The same id as a user and as a schedule are two targets; the same user twice is one too many.
    expect(
      create({
        name: "p",
        steps: [
          step({
            targets: [
              { type: "user", id },
              { type: "schedule", id },
              { type: "channel", id: other }
            ]
          })
        ]
      })
    ).toBe(null)
    expect(
      create({
        name: "p",
        steps: [
          step({
            targets: [
              { type: "user", id },
              { type: "user", id: id.toUpperCase() }
            ]
          })
        ]
      })
    ).toEqual(invalid("steps[0].targets[1]"))
  })

  it("an unknown key is 422 INVALID_JSON naming its path; a patch takes any field alone", () => {
    expect(create({ name: "p", steps: [step({ targets: [{ type: "user", id, urgent: true }] })] })).toEqual({
      code: "INVALID_JSON",
      field: "steps[0].targets[0].urgent"
    })
    expect(Schema.decodeUnknownSync(EscalationPolicy.EscalationPolicyPatch)({ repeat: 1 })).toEqual({ repeat: 1 })
    expect(Schema.decodeUnknownSync(EscalationPolicy.EscalationPolicyPatch)({})).toEqual({})
    expect(refusal(EscalationPolicy.EscalationPolicyPatch, { steps: [] })).toEqual(invalid("steps"))
  })
})
