import { assert, describe, it } from "@effect/vitest"
import { DeliveryLag } from "../src/DeliveryLag.js"
import { ResultBuffer } from "../src/ResultBuffer.js"

describe("DeliveryLag", () => {
  it("nothing acknowledged is no summary", () => {
    assert.isUndefined(new DeliveryLag().take())
  })

  it("answers exact quantiles of one window and starts the next empty", () => {
    const lag = new DeliveryLag()
    for (let ms = 1; ms <= 200; ms++) lag.record(ms)
    assert.deepStrictEqual(lag.take(), { results: 200, p50_ms: 100, p99_ms: 198, max_ms: 200, over_1s: 0 })
    assert.isUndefined(lag.take())
    lag.record(-5)
    assert.deepStrictEqual(lag.take(), { results: 1, p50_ms: 0, p99_ms: 0, max_ms: 0, over_1s: 0 })
  })

  it("counts the results delivered in more than a second, which windows can add up", () => {
    const lag = new DeliveryLag()
    for (const ms of [1200, 5, 1000, 1001, 40]) lag.record(ms)
    assert.deepStrictEqual(lag.take(), { results: 5, p50_ms: 1000, p99_ms: 1200, max_ms: 1200, over_1s: 2 })
  })

  it("the buffer tells when each acknowledged result was made, and only those it held", () => {
    const buffer = new ResultBuffer<{ readonly id: string }>(10)
    buffer.add({ id: "a" }, 1_000)
    buffer.add({ id: "b" }, 1_500)
    const made: Array<number> = []
    assert.strictEqual(
      buffer.ack(["b", "a", "unknown"], (at) => made.push(at)),
      2
    )
    assert.deepStrictEqual(made, [1_500, 1_000])
    assert.strictEqual(
      buffer.ack(["a"], (at) => made.push(at)),
      0
    )
    assert.deepStrictEqual(made, [1_500, 1_000])
  })
})
