/**
 * A response-time sparkline's geometry: a series of values (null where nothing was measured) laid out left to right
 * over a box, scaled from 0 to the largest value, as an SVG path. A gap breaks the line (a new subpath begins), and a
 * value with no neighbour is a zero-length subpath, which round line caps draw as a dot. The path is computed from
 * numbers only, so the page may emit it as markup (`raw`).
 */

export interface Box {
  readonly width: number
  readonly height: number
  /** Room kept on every side, so the stroke is not clipped. */
  readonly pad: number
}

export interface Geometry {
  /** The `d` of the path; empty when nothing was measured. */
  readonly d: string
  /** The largest value, the top of the scale; null when nothing was measured. */
  readonly max: number | null
  readonly min: number | null
  /** The newest measured value. */
  readonly last: number | null
}

const round = (n: number) => Math.round(n * 10) / 10

/** The sparkline of `values` (oldest first) in `box`. */
export const geometry = (values: ReadonlyArray<number | null>, box: Box): Geometry => {
  const measured = values.filter((v): v is number => v !== null && Number.isFinite(v) && v >= 0)
  if (measured.length === 0) return { d: "", max: null, min: null, last: null }
  const max = Math.max(...measured)
  const min = Math.min(...measured)
  const innerWidth = box.width - 2 * box.pad
  const innerHeight = box.height - 2 * box.pad
  const step = values.length > 1 ? innerWidth / (values.length - 1) : 0
  const x = (i: number) => round(values.length > 1 ? box.pad + i * step : box.width / 2)
  // Scaled from 0, so the line's height says how slow, not just how it varied; an all-zero series sits on the floor.
  const y = (v: number) => round(box.pad + innerHeight * (max === 0 ? 1 : 1 - v / max))
  const parts: Array<string> = []
  let open = false
  values.forEach((v, i) => {
    if (v === null || !Number.isFinite(v) || v < 0) {
      open = false
      return
    }
    const next = values[i + 1]
    const alone = !open && (next === null || next === undefined || !Number.isFinite(next) || next < 0)
    parts.push(`${open ? "L" : "M"}${x(i)} ${y(v)}${alone ? "h0" : ""}`)
    open = true
  })
  return { d: parts.join(""), max, min, last: measured[measured.length - 1] ?? null }
}
