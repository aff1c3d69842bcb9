import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import { SECRET } from "../src/Plan.js"
import * as PlanText from "../src/PlanText.js"
import { everyAction, noChange, secretValue } from "./support/Scenario.js"

describe("PlanText", () => {
  it("shows each change with its symbol, its fields as old → new, and the summary line", () => {
    assert.strictEqual(
      PlanText.render(everyAction),
      [
        'Changes for project "shop", in the order they apply:',
        "",
        "  + variable token",
        "      is_secret: true",
        "      value: (secret)",
        "  ~ monitor api (API)",
        '      check.headers.Authorization: (none) → "Bearer {{token}}"',
        "      interval: 60 → 30",
        "  -/+ monitor db (DB): check.type changes, so it is deleted and created again",
        '      check.type: "tcp" → "ping"',
        "      check.port: 5432 → (none)",
        '      check.ip_version: "any" → (none)',
        "  - channel old (Old)",
        "",
        "Plan: 1 to create, 1 to update, 1 to replace, 1 to delete (1 unchanged)."
      ].join("\n")
    )
    assert.notInclude(PlanText.render(everyAction), secretValue)
  })

  it("a plan without changes is one line saying so", () => {
    assert.strictEqual(PlanText.render(noChange), 'No changes: project "shop" is as the file says (4 unchanged).')
    assert.strictEqual(PlanText.summaryLine(noChange), PlanText.render(noChange))
  })

  it("a value is JSON, a secret reads (secret) unquoted, and no value reads (none)", () => {
    assert.strictEqual(PlanText.value(Option.some({ count: 2 })), '{"count":2}')
    assert.strictEqual(PlanText.value(Option.some(SECRET)), "(secret)")
    assert.strictEqual(PlanText.value(Option.some(null)), "null")
    assert.strictEqual(PlanText.value(Option.none()), "(none)")
  })
})
