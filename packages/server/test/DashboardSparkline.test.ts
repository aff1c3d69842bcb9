/**
 * The response-time sparkline's geometry: points spread over the box from left to right, scaled from 0 to the
 * largest value (top), a gap breaking the line into subpaths, a lone value drawn as a dot, and nothing to draw when
 * nothing was measured.
 */
import { describe, expect, it } from "@effect/vitest"
import { geometry } from "../src/dashboard/monitors/Sparkline.js"

const box = { width: 100, height: 20, pad: 0 }

describe("dashboard sparkline", () => {
  it("spreads values over the width and scales them from 0 (bottom) to the largest (top)", () => {
    const shape = geometry([0, 50, 100], box)
    expect(shape.d).toBe("M0 20L50 10L100 0")
    expect(shape).toMatchObject({ max: 100, min: 0, last: 100 })
  })

  it("keeps the padding on every side and rounds to a tenth", () => {
    const shape = geometry([10, 30, 20], { width: 96, height: 24, pad: 2 })
    // x: 2, 48, 94; y: 2 + 20 * (1 - v / 30)
    expect(shape.d).toBe("M2 15.3L48 2L94 8.7")
  })

  it("a missing value breaks the line; a value with no neighbour is a dot (a zero-length subpath)", () => {
    const shape = geometry([100, 100, null, 50, null, 100], { width: 50, height: 20, pad: 0 })
    expect(shape.d).toBe("M0 0L10 0M30 10h0M50 0h0")
    expect(shape.last).toBe(100)
    expect(shape.min).toBe(50)
  })

  it("one value sits in the middle; all zeros lie on the floor; nothing measured draws nothing", () => {
    expect(geometry([42], box).d).toBe("M50 0h0")
    expect(geometry([0, 0], box).d).toBe("M0 20L100 20")
    expect(geometry([null, null], box)).toEqual({ d: "", max: null, min: null, last: null })
    expect(geometry([], box).d).toBe("")
  })

  it("ignores values that are not measurements (negative, not finite)", () => {
    expect(geometry([Number.NaN, 10, -1, 20], box).d).toBe("M33.3 10h0M100 0h0")
  })
})
