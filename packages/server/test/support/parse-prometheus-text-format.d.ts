// The parser ships no types: it takes exposition text and answers families, decoded with Schema where used
// (support/Prometheus.ts), so this says no more than `unknown`.
declare module "parse-prometheus-text-format" {
  const parse: (text: string) => unknown
  export = parse
}
