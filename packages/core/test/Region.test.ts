import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Region from "../src/Region.js"

describe("Region.deletionRefusal", () => {
  it("the built-in local region is REGION_IN_USE even without agents", () => {
    const refusal = Option.getOrThrow(Region.deletionRefusal({ id: Region.LOCAL, agents: 0 }))
    assert.strictEqual(refusal.code, "REGION_IN_USE")
    assert.strictEqual(refusal.status, 409)
  })

  it("a region with live agents is REGION_IN_USE with their count in details", () => {
    const refusal = Option.getOrThrow(Region.deletionRefusal({ id: "eu-west", agents: 2 }))
    assert.strictEqual(refusal.code, "REGION_IN_USE")
    assert.deepStrictEqual(refusal.details, { agents: 2 })
  })

  it("a region without agents may be deleted", () => {
    assert.isTrue(Option.isNone(Region.deletionRefusal({ id: "eu-west", agents: 0 })))
  })
})

describe("Region.agentRefusal", () => {
  it("the built-in local region takes no agents: REGION_INVALID on region_id", () => {
    const refusal = Option.getOrThrow(Region.agentRefusal(Region.LOCAL))
    assert.strictEqual(refusal.code, "REGION_INVALID")
    assert.strictEqual(refusal.field, "region_id")
  })

  it("any other region may have agents", () => {
    assert.isTrue(Option.isNone(Region.agentRefusal("eu-west")))
  })
})
