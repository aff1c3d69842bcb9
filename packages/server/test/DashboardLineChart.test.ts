/**
 * The detail page's chart geometry: round scales, ticks on round instants, and paths that place each point where its
 * time and value say, break at holes in the data, and draw a lone point as a dot.
 */
import { describe, expect, it } from "@effect/vitest"
import * as LineChart from "../src/dashboard/monitors/LineChart.js"

const HOUR = 3_600_000
const at = Date.UTC(2026, 4, 1, 0, 0, 0)

describe("dashboard line chart geometry", () => {
  it("the y scale ends at the smallest of 1, 2, 2.5, 5 x 10^k at or above the largest value; nothing to show is 1", () => {
    expect(LineChart.niceMax(87)).toBe(100)
    expect(LineChart.niceMax(100)).toBe(100)
    expect(LineChart.niceMax(101)).toBe(200)
    expect(LineChart.niceMax(240)).toBe(250)
    expect(LineChart.niceMax(251)).toBe(500)
    expect(LineChart.niceMax(0.7)).toBe(1)
    expect(LineChart.niceMax(12_345)).toBe(20_000)
    expect(LineChart.niceMax(0)).toBe(1)
    expect(LineChart.niceMax(Number.NaN)).toBe(1)
    expect(LineChart.valueTicks(200)).toEqual([0, 50, 100, 150, 200])
  })

  it("y labels are milliseconds, or seconds once the scale reaches a second", () => {
    expect(LineChart.tickLabel(50, 200)).toBe("50 ms")
    expect(LineChart.tickLabel(250, 500)).toBe("250 ms")
    expect(LineChart.tickLabel(0.5, 1)).toBe("0.5 ms")
    expect(LineChart.tickLabel(5000, 20_000)).toBe("5 s")
    expect(LineChart.tickLabel(12_500, 50_000)).toBe("12.5 s")
    expect(LineChart.tickLabel(500, 2000)).toBe("0.5 s")
    expect(LineChart.tickLabel(250, 1000)).toBe("0.25 s")
    expect(LineChart.tickLabel(750, 1000)).toBe("0.75 s")
  })

  it("time ticks fall on round UTC instants, at most six, labelled by time of day or by date", () => {
    const day = LineChart.timeTicks(at + 10 * 60_000, at + 24 * HOUR + 10 * 60_000)
    expect(day.step).toBe(6 * HOUR)
    expect(day.at).toEqual([at + 6 * HOUR, at + 12 * HOUR, at + 18 * HOUR, at + 24 * HOUR])
    expect(day.at.map((t) => LineChart.timeLabel(t, day.step))).toEqual(["06:00", "12:00", "18:00", "00:00"])
    const month = LineChart.timeTicks(at, at + 30 * 24 * HOUR)
    expect(month.at.length).toBeLessThanOrEqual(6)
    expect(LineChart.timeLabel(at, month.step)).toBe("May 1")
    const hour = LineChart.timeTicks(at, at + HOUR)
    expect(hour.step).toBe(15 * 60_000)
    expect(hour.at.length).toBe(5)
  })

  it("a path joins points in time order, starts anew after a missing value or a gap, and marks a lone point", () => {
    const x = (t: number) => (t - at) / 60_000
    const y = (v: number) => 100 - v
    const minute = 60_000
    const points = [
      { t: at + 2 * minute, v: 30 },
      { t: at, v: 10 },
      { t: at + minute, v: 20 },
      { t: at + 3 * minute, v: null },
      { t: at + 4 * minute, v: 40 },
      // Two minutes after the last: past the gap allowed, so a new line.
      { t: at + 7 * minute, v: 50 },
      { t: at + 8 * minute, v: 60 }
    ]
    expect(LineChart.pathOf(points, x, y, 1.5 * minute)).toBe("M0 90 L1 80 L2 70 M1 60 h6 M7 50 L8 40")
    expect(LineChart.pathOf([], x, y, minute)).toBe("")
    expect(LineChart.pathOf([{ t: at, v: null }], x, y, minute)).toBe("")
  })

  it("geometry: the plot inside the margins, values and times placed on it, series kept in order", () => {
    const size = { width: 500, height: 300, top: 10, right: 20, bottom: 40, left: 80 }
    const bucketMs = HOUR
    const geometry = LineChart.geometry(
      [
        {
          key: "p50",
          label: "p50",
          points: [
            { t: at, v: 0 },
            { t: at + HOUR, v: 100 },
            { t: at + 2 * HOUR, v: 200 }
          ]
        },
        { key: "p99", label: "p99", points: [{ t: at + 4 * HOUR, v: 180 }] }
      ],
      { from: at, to: at + 4 * HOUR, bucketMs },
      size
    )
    expect(geometry.plot).toEqual({ x: 80, y: 10, width: 400, height: 250 })
    expect(geometry.yMax).toBe(200)
    // 0 at the bottom of the plot (y 260), 200 at its top (y 10); the range's ends at its left and right.
    expect(geometry.paths).toEqual([
      { key: "p50", label: "p50", d: "M80 260 L180 135 L280 10" },
      { key: "p99", label: "p99", d: "M477 35 h6" }
    ])
    expect(geometry.yTicks.map((t) => t.at)).toEqual([260, 197.5, 135, 72.5, 10])
    expect(geometry.yTicks.map((t) => t.label)).toEqual(["0 ms", "50 ms", "100 ms", "150 ms", "200 ms"])
    expect(geometry.xTicks.map((t) => t.at)).toEqual([80, 180, 280, 380, 480])
    expect(geometry.xTicks.map((t) => t.label)).toEqual(["00:00", "01:00", "02:00", "03:00", "04:00"])
  })

  it("a value above the scale or below zero stays inside the plot", () => {
    const geometry = LineChart.geometry(
      [{ key: "a", label: "a", points: [{ t: at, v: -5 }] }],
      { from: at, to: at + HOUR, bucketMs: HOUR },
      LineChart.defaultSize
    )
    const bottom = LineChart.defaultSize.height - LineChart.defaultSize.bottom
    expect(geometry.paths[0]?.d).toBe(`M${LineChart.defaultSize.left - 3} ${bottom} h6`)
  })

  it("the chart's SVG carries the geometry and names its title and description; series differ by dash as well as colour", () => {
    const geometry = LineChart.geometry(
      [
        { key: "a", label: "A <b>", points: [{ t: at, v: 10 }] },
        { key: "b", label: "B", points: [{ t: at, v: 20 }] }
      ],
      { from: at, to: at + HOUR, bucketMs: HOUR }
    )
    const svg = LineChart.render(geometry, { titleId: "t", descId: "d" }).text
    expect(svg).toContain(`role="img"`)
    expect(svg).toContain(`aria-labelledby="t" aria-describedby="d"`)
    expect(svg).toContain(`d="${geometry.paths[0]?.d}"`)
    expect(svg).toContain(`stroke-dasharray="6 4"`)
    expect(LineChart.seriesStyle(0)).toEqual({ className: "series-0", dash: "" })
    expect(LineChart.seriesStyle(5).className).toBe("series-0")
    expect(LineChart.legend([{ label: "A <b>" }]).text).toContain("A &lt;b&gt;")
  })
})
