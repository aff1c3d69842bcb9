import { describe, expect, it } from "@effect/vitest"
import { uuidv7 } from "../src/infra/Ids.js"

describe("Ids", () => {
  it("uuidv7: version 7, variant 10, and a burst made in one millisecond sorts in the order it was made", () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7())
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("uuidv7 dated by the caller carries that millisecond", () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6)
    expect(Number.parseInt(uuidv7(at).replace(/-/g, "").slice(0, 12), 16)).toBe(at)
  })

  it("uuidv7 dated by the caller: ids of one millisecond differ, across many refills of the random pool", () => {
    const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6)
    const ids = Array.from({ length: 20_000 }, () => uuidv7(at))
    expect(new Set(ids).size).toBe(ids.length)
  })
})
