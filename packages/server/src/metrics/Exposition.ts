/**
 * The Prometheus text exposition format (version 0.0.4), rendered from Effect's metric snapshot and from families
 * read at scrape time. Pure: what a scrape answers is `render(families)`, and the unit tests parse it back.
 *
 * Each family is written once, its `# HELP` and `# TYPE` lines first and its samples together (Effect's snapshot has
 * one entry per label set, in no order); a family declared but not yet observed (no check of that kind ran) is
 * still written, with no samples, so a dashboard or alert rule finds its name from the first scrape.
 */

import type * as MetricPair from "effect/MetricPair"
import * as MetricState from "effect/MetricState"
import * as Option from "effect/Option"

/** The format's media type. */
export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

export type FamilyType = "counter" | "gauge" | "histogram" | "summary"

export type Labels = ReadonlyArray<readonly [name: string, value: string]>

/** One line of a family: its full name (the family's, or with `_bucket`, `_sum`, `_count`), labels and value. */
export interface Sample {
  readonly name: string
  readonly labels: Labels
  readonly value: number | bigint
}

export interface Family {
  readonly name: string
  readonly help: string
  readonly type: FamilyType
  readonly samples: ReadonlyArray<Sample>
}

/** A family to write even before its first observation. */
export interface Declared {
  readonly name: string
  readonly help: string
  readonly type: FamilyType
}

const INVALID_NAME = /[^a-zA-Z0-9_:]/g
const INVALID_LABEL = /[^a-zA-Z0-9_]/g

/** A metric name as the format allows it: `[a-zA-Z_:][a-zA-Z0-9_:]*`. */
export const metricName = (name: string): string => {
  const cleaned = name.replace(INVALID_NAME, "_")
  return /^[0-9]/.test(cleaned) || cleaned === "" ? `_${cleaned}` : cleaned
}

/** A label name as the format allows it: `[a-zA-Z_][a-zA-Z0-9_]*` (names starting `__` are reserved). */
export const labelName = (name: string): string => {
  const cleaned = name.replace(INVALID_LABEL, "_")
  const leading = /^[0-9]/.test(cleaned) || cleaned === "" ? `_${cleaned}` : cleaned
  return leading.startsWith("__") ? `x${leading}` : leading
}

/** A counter's family name ends `_total`, as Prometheus' conventions (and OpenMetrics) expect. */
export const counterName = (name: string): string => {
  const cleaned = metricName(name)
  return cleaned.endsWith("_total") ? cleaned : `${cleaned}_total`
}

const escapeHelp = (text: string): string => text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")

const escapeLabelValue = (text: string): string =>
  text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")

/** A sample's value as the format spells it (`+Inf`, `-Inf`, `NaN` for the non-finite). */
export const formatValue = (value: number | bigint): string => {
  if (typeof value === "bigint") return value.toString()
  if (Number.isNaN(value)) return "NaN"
  if (value === Number.POSITIVE_INFINITY) return "+Inf"
  if (value === Number.NEGATIVE_INFINITY) return "-Inf"
  return String(value)
}

const formatLabels = (labels: Labels): string =>
  labels.length === 0
    ? ""
    : `{${labels.map(([name, value]) => `${labelName(name)}="${escapeLabelValue(value)}"`).join(",")}}`

/** The text of the families, each once, in the order given; ends with a newline as the format requires. */
export const render = (families: ReadonlyArray<Family>): string => {
  const lines: Array<string> = []
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`)
    lines.push(`# TYPE ${family.name} ${family.type}`)
    for (const sample of family.samples) {
      lines.push(`${sample.name}${formatLabels(sample.labels)} ${formatValue(sample.value)}`)
    }
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`
}

interface Building {
  readonly name: string
  help: string
  readonly type: FamilyType
  readonly samples: Array<Sample>
}

const samplesOf = (
  name: string,
  labels: Labels,
  state: MetricState.MetricState.Untyped
): { readonly type: FamilyType; readonly samples: ReadonlyArray<Sample> } | undefined => {
  if (MetricState.isCounterState(state)) {
    return { type: "counter", samples: [{ name: counterName(name), labels, value: state.count }] }
  }
  if (MetricState.isGaugeState(state)) {
    return { type: "gauge", samples: [{ name: metricName(name), labels, value: state.value }] }
  }
  if (MetricState.isHistogramState(state)) {
    const base = metricName(name)
    // Effect's buckets are cumulative and end with +Inf, as the format's `le` buckets are.
    const buckets = state.buckets.map(
      ([le, count]): Sample => ({ name: `${base}_bucket`, labels: [...labels, ["le", formatValue(le)]], value: count })
    )
    return {
      type: "histogram",
      samples: [
        ...buckets,
        { name: `${base}_sum`, labels, value: state.sum },
        { name: `${base}_count`, labels, value: state.count }
      ]
    }
  }
  if (MetricState.isSummaryState(state)) {
    const base = metricName(name)
    const quantiles = state.quantiles.flatMap(
      ([q, value]): Array<Sample> =>
        Option.isSome(value) ? [{ name: base, labels: [...labels, ["quantile", String(q)]], value: value.value }] : []
    )
    return {
      type: "summary",
      samples: [
        ...quantiles,
        { name: `${base}_sum`, labels, value: state.sum },
        { name: `${base}_count`, labels, value: state.count }
      ]
    }
  }
  if (MetricState.isFrequencyState(state)) {
    // A frequency counts occurrences of words: a counter per word, the word as the `key` label.
    const total = counterName(name)
    return {
      type: "counter",
      samples: [...state.occurrences].map(([word, count]) => ({
        name: total,
        labels: [...labels, ["key", word]],
        value: count
      }))
    }
  }
  return undefined
}

/** The family name a declared metric is written under (a counter's with `_total`). */
const declaredName = (declared: Declared): string =>
  declared.type === "counter" ? counterName(declared.name) : metricName(declared.name)

/**
 * Families from Effect's snapshot (`Metric.unsafeSnapshot()`), grouped by name, with the `declared` ones that have
 * no samples yet; sorted by name, so two scrapes list the same families in the same order.
 */
export const fromSnapshot = (
  snapshot: ReadonlyArray<MetricPair.MetricPair.Untyped>,
  declared: ReadonlyArray<Declared> = []
): Array<Family> => {
  const byName = new Map<string, Building>()
  for (const d of declared) {
    const name = declaredName(d)
    byName.set(name, { name, help: d.help, type: d.type, samples: [] })
  }
  for (const pair of snapshot) {
    const key = pair.metricKey
    const labels: Labels = key.tags.map((tag) => [tag.key, tag.value] as const)
    const made = samplesOf(key.name, labels, pair.metricState)
    if (made === undefined) continue
    const name = made.type === "counter" ? counterName(key.name) : metricName(key.name)
    let family = byName.get(name)
    if (family === undefined) {
      family = { name, help: "", type: made.type, samples: [] }
      byName.set(name, family)
    }
    // Two metrics of one name but different types cannot share a family: the first one keeps it.
    if (family.type !== made.type) continue
    if (family.help === "") family.help = Option.getOrElse(key.description, () => name)
    family.samples.push(...made.samples)
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}
