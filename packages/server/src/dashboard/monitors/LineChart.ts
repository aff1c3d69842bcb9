/**
 * The geometry of the detail page's line charts, as pure numbers: time on x over the range asked for, milliseconds on
 * y from zero to a round maximum, round ticks on both, and one SVG path per series that breaks where data is missing
 * (an omitted bucket, or a bucket without a value) rather than drawing a line across the hole. Rendering (`render`)
 * only places these numbers in SVG, so what the chart shows is what these functions compute, and they are tested.
 */
import { type Html, html } from "../Template.js"

/** One value of a series at an instant; `v` null where the bucket measured nothing. */
export interface Point {
  readonly t: number
  readonly v: number | null
}

export interface Series {
  readonly key: string
  readonly label: string
  readonly points: ReadonlyArray<Point>
}

export interface Size {
  readonly width: number
  readonly height: number
  readonly top: number
  readonly right: number
  readonly bottom: number
  readonly left: number
}

export const defaultSize: Size = { width: 720, height: 260, top: 14, right: 20, bottom: 34, left: 70 }

export interface Tick {
  /** Where on its axis, in SVG units. */
  readonly at: number
  readonly label: string
}

export interface Geometry {
  readonly size: Size
  /** The plot area: inside the margins. */
  readonly plot: { readonly x: number; readonly y: number; readonly width: number; readonly height: number }
  readonly yMax: number
  readonly xTicks: ReadonlyArray<Tick>
  readonly yTicks: ReadonlyArray<Tick>
  readonly paths: ReadonlyArray<{ readonly key: string; readonly label: string; readonly d: string }>
}

/** Round to 0.1 of a unit: enough for a 720-unit chart, and short paths. */
const r1 = (n: number): number => Math.round(n * 10) / 10

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `max` (1 for nothing to show). */
export const niceMax = (max: number): number => {
  if (!(max > 0) || !Number.isFinite(max)) return 1
  const magnitude = 10 ** Math.floor(Math.log10(max))
  const step = [1, 2, 2.5, 5, 10].find((m) => m * magnitude >= max) ?? 10
  return step * magnitude
}

/** Values from 0 to `max` in `count` equal steps (`max` being round, so are they). */
export const valueTicks = (max: number, count = 4): ReadonlyArray<number> =>
  Array.from({ length: count + 1 }, (_, i) => (max * i) / count)

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const STEPS = [
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY
]

const pad = (n: number) => String(n).padStart(2, "0")
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

/** A tick's label in UTC: the time of day under a day's step, else the date. */
export const timeLabel = (t: number, step: number): string => {
  const d = new Date(t)
  return step < DAY
    ? `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`
    : `${MONTHS[d.getUTCMonth()] ?? ""} ${d.getUTCDate()}`
}

/** Instants on a round UTC step inside `[from, to]`, at most `most` of them (the finest step that fits). */
export const timeTicks = (
  from: number,
  to: number,
  most = 6
): { readonly step: number; readonly at: ReadonlyArray<number> } => {
  const span = Math.max(to - from, 1)
  // Fewer than `most` steps in the span, so with a tick at each end there are at most `most`.
  const step = STEPS.find((s) => span / s < most) ?? Math.ceil(span / most / DAY) * DAY
  const at: Array<number> = []
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) at.push(t)
  return { step, at }
}

/** Half the width of the mark a point alone gets: wide enough to see, short enough to read as one point. */
const LONE = 3

/**
 * The SVG path of a series: a line through its points in time order, broken (a new `M`) after a missing value or a
 * gap longer than `gapMs` between two points; a point alone is a short level mark centred on it.
 */
export const pathOf = (
  points: ReadonlyArray<Point>,
  x: (t: number) => number,
  y: (v: number) => number,
  gapMs: number
): string => {
  const parts: Array<string> = []
  let previous: number | undefined
  let runLength = 0
  const close = () => {
    if (runLength !== 1) return
    const [px, py] = (parts.pop() ?? "").slice(1).split(" ").map(Number)
    parts.push(`M${r1((px ?? 0) - LONE)} ${py ?? 0} h${2 * LONE}`)
  }
  for (const point of [...points].sort((a, b) => a.t - b.t)) {
    if (point.v === null) {
      close()
      previous = undefined
      runLength = 0
      continue
    }
    const joined = previous !== undefined && point.t - previous <= gapMs
    if (!joined) {
      close()
      runLength = 0
    }
    parts.push(`${joined ? "L" : "M"}${r1(x(point.t))} ${r1(y(point.v))}`)
    runLength += 1
    previous = point.t
  }
  close()
  return parts.join(" ")
}

/** The chart's geometry for these series over `[from, to]`, points `bucketMs` apart when none is missing. */
export const geometry = (
  series: ReadonlyArray<Series>,
  range: { readonly from: number; readonly to: number; readonly bucketMs: number },
  size: Size = defaultSize
): Geometry => {
  const plot = {
    x: size.left,
    y: size.top,
    width: size.width - size.left - size.right,
    height: size.height - size.top - size.bottom
  }
  const values = series.flatMap((s) => s.points.flatMap((p) => (p.v === null ? [] : [p.v])))
  const yMax = niceMax(Math.max(0, ...values))
  const span = Math.max(range.to - range.from, 1)
  const x = (t: number) => plot.x + ((t - range.from) / span) * plot.width
  const y = (v: number) => plot.y + plot.height - (Math.min(Math.max(v, 0), yMax) / yMax) * plot.height
  const ticks = timeTicks(range.from, range.to)
  return {
    size,
    plot,
    yMax,
    xTicks: ticks.at.map((t) => ({ at: r1(x(t)), label: timeLabel(t, ticks.step) })),
    yTicks: valueTicks(yMax).map((v) => ({ at: r1(y(v)), label: tickLabel(v, yMax) })),
    // A bucket omitted for having no result leaves a hole; one and a half widths allows for a bucket's jitter.
    paths: series.map((s) => ({ key: s.key, label: s.label, d: pathOf(s.points, x, y, range.bucketMs * 1.5) }))
  }
}

/** A y tick's label: milliseconds on a scale under a second, seconds from there (so labels stay short). */
export const tickLabel = (v: number, max: number): string =>
  max >= 1000 ? `${Number((v / 1000).toFixed(2))} s` : `${Number(v.toFixed(v < 10 ? 1 : 0))} ms`

/** Dash patterns, one per series position, so series differ by more than colour. */
const DASHES = ["", "6 4", "2 3", "10 3 2 3", "1 5"]

/** The style class and dash pattern of the series at `index`. */
export const seriesStyle = (index: number): { readonly className: string; readonly dash: string } => ({
  className: `series-${index % DASHES.length}`,
  dash: DASHES[index % DASHES.length] ?? ""
})

/**
 * The chart as SVG: grid, axes with their labels, and a path per series. `titleId` names the element holding the
 * chart's title (the section's heading) and `descId` the one with its summary in words, so the image is described;
 * the figures themselves are in a table beside it.
 */
export const render = (geometry: Geometry, labels: { readonly titleId: string; readonly descId: string }): Html => {
  const { size, plot } = geometry
  const right = plot.x + plot.width
  const bottom = plot.y + plot.height
  return html`<svg class="chart" viewBox="0 0 ${size.width} ${size.height}" role="img"
  aria-labelledby="${labels.titleId}" aria-describedby="${labels.descId}" preserveAspectRatio="xMidYMid meet">
<g class="chart-grid">
${geometry.yTicks.map(
  (
    tick
  ) => html`<line x1="${plot.x}" x2="${right}" y1="${tick.at}" y2="${tick.at}" stroke="currentColor" stroke-width="1"/>
<text x="${plot.x - 8}" y="${tick.at}" text-anchor="end" dominant-baseline="middle" fill="currentColor">${tick.label}</text>`
)}
${geometry.xTicks.map(
  (tick) => html`<text x="${tick.at}" y="${bottom + 24}" text-anchor="middle" fill="currentColor">${tick.label}</text>`
)}
</g>
${geometry.paths.map((path, i) => {
  const style = seriesStyle(i)
  return html`<path class="chart-line ${style.className}" d="${path.d}" fill="none" stroke="currentColor"
  stroke-width="2" stroke-linejoin="round" stroke-linecap="round"${style.dash === "" ? "" : html` stroke-dasharray="${style.dash}"`}/>`
})}
</svg>`
}

/** The legend: each series' name beside a sample of its line. */
export const legend = (series: ReadonlyArray<{ readonly label: string }>): Html =>
  html`<ul class="chart-legend">
${series.map((s, i) => {
  const style = seriesStyle(i)
  return html`<li><svg class="legend-sample" viewBox="0 0 24 8" width="24" height="8" aria-hidden="true" focusable="false"><path class="chart-line ${style.className}" d="M1 4 H23" stroke="currentColor" stroke-width="2" stroke-linecap="round"${style.dash === "" ? "" : html` stroke-dasharray="${style.dash}"`}/></svg>${s.label}</li>`
})}
</ul>`
