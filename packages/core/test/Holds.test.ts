import { assert, describe, it } from "@effect/vitest"
import * as Holds from "../src/Holds.js"

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute))
const resources: ReadonlyArray<Holds.Holdable> = [
  { id: "c", createdAt: at(3) },
  { id: "a", createdAt: at(1) },
  { id: "d", createdAt: at(4) },
  { id: "b", createdAt: at(2) }
]
const none = new Set<string>()
const sorted = (ids: ReadonlySet<string>) => [...ids].sort()

describe("Holds.held", () => {
  it("within the limit nothing is held", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, none, 4)), [])
    assert.deepStrictEqual(sorted(Holds.held(resources, none, 10)), [])
  })

  it("beyond the limit with no pick, the newest are held", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, none, 2)), ["c", "d"])
    assert.deepStrictEqual(sorted(Holds.held(resources, none, 0)), ["a", "b", "c", "d"])
  })

  it("a pick that fits decides which are held", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, new Set(["d", "c"]), 2)), ["a", "b"])
  })

  it("a pick of fewer than the plan allows leaves the free places to the oldest others", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, new Set(["d"]), 2)), ["b", "c"])
  })

  it("a pick larger than a smaller plan keeps its oldest", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, new Set(["b", "c", "d"]), 1)), ["a", "c", "d"])
  })

  it("a larger plan releases everything, whatever was picked", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, new Set(["d"]), 5)), [])
  })

  it("ties in creation time are broken by id, as the database orders them", () => {
    const twins = [
      { id: "y", createdAt: at(1) },
      { id: "x", createdAt: at(1) }
    ]
    assert.deepStrictEqual(sorted(Holds.held(twins, none, 1)), ["y"])
  })

  it("ids kept that are not resources are ignored", () => {
    assert.deepStrictEqual(sorted(Holds.held(resources, new Set(["zz"]), 3)), ["d"])
  })
})

describe("Holds.firstForeign", () => {
  it("answers the index of the first id that is not a resource", () => {
    assert.strictEqual(Holds.firstForeign(["a", "b"], resources), undefined)
    assert.strictEqual(Holds.firstForeign(["a", "zz", "yy"], resources), 1)
    assert.strictEqual(Holds.firstForeign([], resources), undefined)
  })
})
