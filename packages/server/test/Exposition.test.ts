import { describe, expect, it } from "@effect/vitest"
import * as Metric from "effect/Metric"
import * as MetricBoundaries from "effect/MetricBoundaries"
import * as MetricLabel from "effect/MetricLabel"
import * as Exposition from "../src/metrics/Exposition.js"
import * as Prometheus from "./support/Prometheus.js"

// Effect's registry is the process's: each test names its own metrics and renders only those.
const only = (prefix: string) => Metric.unsafeSnapshot().filter((pair) => pair.metricKey.name.startsWith(prefix))
const tags = (pairs: Record<string, string>) => Object.entries(pairs).map(([k, v]) => MetricLabel.make(k, v))

describe("metrics Exposition", () => {
  it("renders a labelled counter once per family, `_total` appended, HELP and TYPE first", () => {
    const counter = Metric.counter("exp_a_checks", { description: "Checks", incremental: true })
    counter.unsafeUpdate(2, tags({ kind: "http", status: "up" }))
    counter.unsafeUpdate(1, tags({ kind: "tcp", status: "down" }))
    counter.unsafeUpdate(3, tags({ kind: "http", status: "up" }))
    const text = Exposition.render(Exposition.fromSnapshot(only("exp_a_")))
    expect(text.split("\n").filter((line) => line.startsWith("# TYPE"))).toEqual(["# TYPE exp_a_checks_total counter"])
    expect(text.startsWith("# HELP exp_a_checks_total Checks\n# TYPE exp_a_checks_total counter\n")).toBe(true)
    expect(text.endsWith("\n")).toBe(true)
    const families = Prometheus.parseText(text)
    expect(families.map((f) => [f.name, f.type])).toEqual([["exp_a_checks_total", "COUNTER"]])
    expect(Prometheus.total(families, "exp_a_checks_total", { kind: "http", status: "up" })).toBe(5)
    expect(Prometheus.total(families, "exp_a_checks_total", { kind: "tcp", status: "down" })).toBe(1)
  })

  it("escapes backslashes, quotes and newlines in label values and help text", () => {
    const gauge = Metric.gauge("exp_b_odd", { description: 'a \\ help\nwith "two" lines' })
    gauge.unsafeUpdate(1.5, tags({ route: 'a\\b"c\nd' }))
    const text = Exposition.render(Exposition.fromSnapshot(only("exp_b_")))
    expect(text).toContain('exp_b_odd{route="a\\\\b\\"c\\nd"} 1.5')
    expect(text).toContain('# HELP exp_b_odd a \\\\ help\\nwith "two" lines')
    const sample = Prometheus.family(Prometheus.parseText(text), "exp_b_odd").metrics[0]
    expect(sample?.labels).toEqual({ route: 'a\\b"c\nd' })
    expect(sample?.value).toBe("1.5")
  })

  it("renders a histogram as cumulative `le` buckets ending at +Inf, with `_sum` and `_count`", () => {
    const histogram = Metric.histogram("exp_c_seconds", MetricBoundaries.fromIterable([0.1, 0.5, 1]), "Durations")
    const labels = tags({ kind: "http", region: "local" })
    for (const value of [0.05, 0.1, 0.3, 0.7, 2, 9]) histogram.unsafeUpdate(value, labels)
    Metric.histogram("exp_c_plain", MetricBoundaries.fromIterable([1]), "Unlabelled").unsafeUpdate(3, [])
    const scrape = Prometheus.parseScrape(Exposition.render(Exposition.fromSnapshot(only("exp_c_"))))
    expect(Prometheus.family(scrape.families, "exp_c_seconds").type).toBe("HISTOGRAM")
    const read = Prometheus.histogram(scrape, "exp_c_seconds", { kind: "http", region: "local" })
    // 0.1 falls in the 0.1 bucket (le is "less than or equal").
    expect(read.buckets).toEqual({ "0.1": 2, "0.5": 3, "1": 4, "+Inf": 6 })
    expect(read.count).toBe(6)
    expect(read.sum).toBeCloseTo(12.15, 10)
    // The parser's own reading of an unlabelled histogram agrees.
    expect(Prometheus.family(scrape.families, "exp_c_plain").metrics).toEqual([
      { buckets: { "1": "0", "+Inf": "1" }, count: "1", sum: "3" }
    ])
  })

  it("writes a declared family with no samples yet, and a family observed under a declared name once", () => {
    const counter = Metric.counter("exp_d_seen_total", { description: "Seen", incremental: true })
    counter.unsafeUpdate(1, tags({ region: "eu" }))
    const declared: ReadonlyArray<Exposition.Declared> = [
      { name: "exp_d_seen_total", help: "Seen, declared", type: "counter" },
      { name: "exp_d_lag_seconds", help: "Lag", type: "histogram" },
      { name: "exp_d_requests", help: "Requests", type: "counter" }
    ]
    const families = Prometheus.parseText(Exposition.render(Exposition.fromSnapshot(only("exp_d_"), declared)))
    expect(families.map((f) => [f.name, f.help, f.metrics.length])).toEqual([
      ["exp_d_lag_seconds", "Lag", 0],
      ["exp_d_requests_total", "Requests", 0],
      ["exp_d_seen_total", "Seen, declared", 1]
    ])
  })

  it("renders gauges, summaries and frequencies, and spells non-finite values as the format does", () => {
    Metric.gauge("exp_e_gauge").unsafeUpdate(Number.POSITIVE_INFINITY, [])
    Metric.gauge("exp_e_low").unsafeUpdate(Number.NEGATIVE_INFINITY, [])
    const summary = Metric.summary({
      name: "exp_e_summary",
      maxAge: "1 minute",
      maxSize: 10,
      error: 0,
      quantiles: [0.5]
    })
    for (const value of [1, 2, 3]) summary.unsafeUpdate(value, [])
    const frequency = Metric.frequency("exp_e_words")
    frequency.unsafeUpdate("a", [])
    frequency.unsafeUpdate("a", [])
    frequency.unsafeUpdate("b", [])
    const text = Exposition.render(Exposition.fromSnapshot(only("exp_e_")))
    expect(text).toContain("exp_e_gauge +Inf\n")
    expect(text).toContain("exp_e_low -Inf\n")
    const families = Prometheus.parseText(text)
    const summarized = Prometheus.family(families, "exp_e_summary")
    expect(summarized.type).toBe("SUMMARY")
    expect(summarized.metrics[0]?.count).toBe("3")
    expect(summarized.metrics[0]?.sum).toBe("6")
    expect(Prometheus.total(families, "exp_e_words_total", { key: "a" })).toBe(2)
    expect(Prometheus.total(families, "exp_e_words_total", { key: "b" })).toBe(1)
  })

  it("cleans names the format does not allow", () => {
    expect(Exposition.metricName("http.server-requests")).toBe("http_server_requests")
    expect(Exposition.metricName("9lives")).toBe("_9lives")
    expect(Exposition.labelName("http.route")).toBe("http_route")
    expect(Exposition.labelName("__name__")).toBe("x__name__")
    expect(Exposition.counterName("exp_total")).toBe("exp_total")
    expect(Exposition.formatValue(Number.NaN)).toBe("NaN")
    expect(Exposition.formatValue(12n)).toBe("12")
    expect(Exposition.render([])).toBe("")
  })
})
