import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as PlanJson from "../src/PlanJson.js"
import { everyAction, noChange, secretValue } from "./support/Scenario.js"

describe("PlanJson", () => {
  it("the document: format, summary, and each change with its id, reason and fields (old or new left out when absent)", () => {
    const document = PlanJson.toJson(everyAction)
    assert.deepStrictEqual(document, {
      format: "signalman-plan/1",
      project: "shop",
      summary: { create: 1, update: 1, replace: 1, delete: 1, unchanged: 1 },
      changes: [
        {
          action: "create",
          type: "variable",
          key: "token",
          name: "token",
          fields: [
            { field: "is_secret", new: true },
            { field: "value", new: "(secret)", secret: true }
          ]
        },
        {
          action: "update",
          type: "monitor",
          key: "api",
          id: "00000000-0000-4000-8000-000000000003",
          name: "API",
          fields: [
            { field: "check.headers.Authorization", new: "Bearer {{token}}" },
            { field: "interval", old: 60, new: 30 }
          ]
        },
        {
          action: "replace",
          type: "monitor",
          key: "db",
          id: "00000000-0000-4000-8000-000000000004",
          name: "DB",
          reason: "check.type",
          fields: [
            { field: "check.type", old: "tcp", new: "ping" },
            { field: "check.port", old: 5432 },
            { field: "check.ip_version", old: "any" }
          ]
        },
        {
          action: "delete",
          type: "channel",
          key: "old",
          id: "00000000-0000-4000-8000-000000000002",
          name: "Old",
          fields: []
        }
      ]
    })
  })

  it("the rendered text is the document, decodes with the documented schema, and carries no secret", () => {
    const text = PlanJson.render(everyAction)
    const decoded = Schema.decodeUnknownSync(Schema.parseJson(PlanJson.JsonPlan), {
      onExcessProperty: "error"
    })(text)
    assert.deepStrictEqual(decoded, PlanJson.toJson(everyAction))
    assert.notInclude(text, secretValue)
  })

  it("no changes is an empty list with the unchanged count", () => {
    assert.deepStrictEqual(PlanJson.toJson(noChange), {
      format: "signalman-plan/1",
      project: "shop",
      summary: { create: 0, update: 0, replace: 0, delete: 0, unchanged: 4 },
      changes: []
    })
  })
})
