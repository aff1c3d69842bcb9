/**
 * A scrape parsed by an independent parser (`parse-prometheus-text-format`) and decoded with Schema, so tests read
 * what a Prometheus server would, not what our renderer meant to write.
 */
import * as Schema from "effect/Schema"
import parse from "parse-prometheus-text-format"

const Labels = Schema.Record({ key: Schema.String, value: Schema.String })

/** A counter, gauge or untyped sample; a histogram's (buckets by `le`, sum, count); a summary's. */
const Sample = Schema.Struct({
  value: Schema.optional(Schema.String),
  labels: Schema.optional(Labels),
  buckets: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  quantiles: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  count: Schema.optional(Schema.String),
  sum: Schema.optional(Schema.String)
})
export type Sample = typeof Sample.Type

export const Family = Schema.Struct({
  name: Schema.String,
  help: Schema.String,
  type: Schema.Literal("COUNTER", "GAUGE", "HISTOGRAM", "SUMMARY", "UNTYPED"),
  metrics: Schema.Array(Sample)
})
export type Family = typeof Family.Type

const decodeFamilies = Schema.decodeUnknownSync(Schema.Array(Family))

/** The families of an exposition text; throws when the parser or the schema refuses it. */
export const parseText = (text: string): ReadonlyArray<Family> => decodeFamilies(parse(text))

/** The family named `name`, or a thrown error naming it. */
export const family = (families: ReadonlyArray<Family>, name: string): Family => {
  const found = families.find((f) => f.name === name)
  if (found === undefined) throw new Error(`no family ${name} in the scrape`)
  return found
}

/** Whether a sample's labels include every pair of `labels`. */
export const matches = (sample: Sample, labels: Readonly<Record<string, string>>): boolean =>
  Object.entries(labels).every(([k, v]) => sample.labels?.[k] === v)

/**
 * The samples of every family named `name` (the untyped reading of a histogram has one family per run of lines:
 * each label set's `_bucket` lines, then its `_sum` and `_count`); a thrown error when there is none.
 */
const samplesNamed = (families: ReadonlyArray<Family>, name: string): ReadonlyArray<Sample> => {
  const named = families.filter((f) => f.name === name)
  if (named.length === 0) throw new Error(`no family ${name} in the scrape`)
  return named.flatMap((f) => f.metrics)
}

/** The sum of the values of the family's samples whose labels include `labels` (counters and gauges). */
export const total = (families: ReadonlyArray<Family>, name: string, labels: Readonly<Record<string, string>> = {}) =>
  samplesNamed(families, name)
    .filter((s) => matches(s, labels))
    .reduce((sum, s) => sum + Number(s.value ?? "0"), 0)

/**
 * A scrape read two ways. `families` is the parser's own reading (names, help, types; a histogram's samples only
 * when it has no labels: the parser drops a labelled histogram's labels, sums and counts). `samples` reads it again
 * with every histogram re-declared untyped, so each `_bucket`, `_sum` and `_count` line is a family of its own,
 * labels kept: what a test of labelled histograms, or of every label of the scrape, reads.
 */
export interface Scrape {
  readonly families: ReadonlyArray<Family>
  readonly samples: ReadonlyArray<Family>
}

export const parseScrape = (text: string): Scrape => ({
  families: parseText(text),
  samples: parseText(text.replace(/^# TYPE (\S+) histogram$/gm, "# TYPE $1 untyped"))
})

/** A labelled histogram's series whose labels include `labels`, summed: buckets by `le`, sum and count. */
export const histogram = (scrape: Scrape, name: string, labels: Readonly<Record<string, string>> = {}) => {
  const buckets: Record<string, number> = {}
  for (const sample of samplesNamed(scrape.samples, `${name}_bucket`)) {
    const le = sample.labels?.["le"]
    if (le === undefined || !matches(sample, labels)) continue
    buckets[le] = (buckets[le] ?? 0) + Number(sample.value ?? "0")
  }
  return {
    buckets,
    sum: total(scrape.samples, `${name}_sum`, labels),
    count: total(scrape.samples, `${name}_count`, labels)
  }
}
