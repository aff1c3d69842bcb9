import { assert, describe, it } from "@effect/vitest"
import { ResultBuffer } from "../src/ResultBuffer.js"

interface Item {
  readonly id: string
  readonly n: number
}

const item = (n: number): Item => ({ id: `id-${n}`, n })
const ns = (items: ReadonlyArray<Item>) => items.map((i) => i.n)

describe("ResultBuffer", () => {
  it("keeps results in the order they were made and hands the unsent out in batches", () => {
    const buffer = new ResultBuffer<Item>(10)
    for (const n of [1, 2, 3, 4, 5]) buffer.add(item(n))
    assert.deepStrictEqual(ns(buffer.takeUnsent(2, 100)), [1, 2])
    assert.deepStrictEqual(ns(buffer.takeUnsent(2, 100)), [3, 4])
    assert.deepStrictEqual(ns(buffer.takeUnsent(2, 100)), [5])
    assert.deepStrictEqual(ns(buffer.takeUnsent(2, 100)), [])
    assert.strictEqual(buffer.size, 5)
    assert.strictEqual(buffer.unsentCount, 0)
  })

  it("only an acknowledgement removes a result", () => {
    const buffer = new ResultBuffer<Item>(10)
    for (const n of [1, 2, 3]) buffer.add(item(n))
    buffer.takeUnsent(10, 0)
    assert.strictEqual(buffer.ack(["id-2", "id-unknown"]), 1)
    assert.deepStrictEqual(ns(buffer.all()), [1, 3])
    // Acknowledging twice (a duplicate ack) is harmless.
    assert.strictEqual(buffer.ack(["id-2"]), 0)
  })

  it("when full, the oldest result is dropped first, and counted", () => {
    const buffer = new ResultBuffer<Item>(3)
    for (const n of [1, 2, 3]) assert.deepStrictEqual(buffer.add(item(n)), [])
    assert.deepStrictEqual(ns(buffer.add(item(4))), [1])
    buffer.takeUnsent(1, 0)
    // A sent, unacknowledged result is as droppable as an unsent one: age decides.
    assert.deepStrictEqual(ns(buffer.add(item(5))), [2])
    assert.deepStrictEqual(ns(buffer.all()), [3, 4, 5])
    assert.strictEqual(buffer.dropped, 2)
    assert.deepStrictEqual(ns(buffer.takeUnsent(10, 0)), [3, 4, 5])
  })

  it("a result added twice (same id) is held once", () => {
    const buffer = new ResultBuffer<Item>(3)
    buffer.add(item(1))
    buffer.add(item(1))
    assert.strictEqual(buffer.size, 1)
    assert.strictEqual(buffer.unsentCount, 1)
  })

  it("a lost connection puts every sent result back to unsent, in the order they were made", () => {
    const buffer = new ResultBuffer<Item>(10)
    for (const n of [1, 2, 3, 4]) buffer.add(item(n))
    buffer.takeUnsent(3, 0)
    buffer.ack(["id-2"])
    assert.strictEqual(buffer.requeueAll(), 2)
    assert.deepStrictEqual(ns(buffer.takeUnsent(10, 0)), [1, 3, 4])
  })

  it("a result sent and not acknowledged by a cutoff goes out again; later ones wait", () => {
    const buffer = new ResultBuffer<Item>(10)
    for (const n of [1, 2, 3]) buffer.add(item(n))
    buffer.takeUnsent(1, 1000)
    buffer.takeUnsent(1, 2000)
    assert.strictEqual(buffer.requeueSentBefore(1500), 1)
    assert.deepStrictEqual(ns(buffer.takeUnsent(10, 3000)), [3, 1])
    assert.strictEqual(buffer.requeueSentBefore(1500), 0)
  })

  it("refuses a capacity that is not a positive integer", () => {
    assert.throws(() => new ResultBuffer<Item>(0))
    assert.throws(() => new ResultBuffer<Item>(1.5))
  })
})
