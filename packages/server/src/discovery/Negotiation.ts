/**
 * Which representation of a page a request asks for, from its `Accept` header (RFC 9110, section 12.5.1): each
 * offered media type gets the quality of the most specific range that matches it (`text/markdown` before `text/*`
 * before `*\/*`), `q=0` refuses it, and the highest quality wins, the server's order breaking a tie.
 *
 * A request that accepts none of the offers (or sends a header that cannot be read) gets the first offer, the
 * browser's HTML: RFC 9110 lets a server disregard `Accept` rather than answer 406, and a page that answers
 * something is more use to a reader than a refusal.
 */

/** The representations a documentation page or the home page has, in the order that breaks ties. */
export type Representation = "html" | "markdown"

const MEDIA_TYPES: Readonly<Record<Representation, readonly [string, string]>> = {
  html: ["text", "html"],
  markdown: ["text", "markdown"]
}

/** One media range of an `Accept` header with its weight. */
export interface MediaRange {
  readonly type: string
  readonly subtype: string
  readonly q: number
}

// RFC 9110's qvalue: 0 to 1 with at most three decimals.
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/

/**
 * The ranges of an `Accept` header. A range that is not `type/subtype` is skipped; a malformed `q` makes the range
 * count as refused (q 0) rather than guessed at.
 */
export const parseAccept = (header: string): ReadonlyArray<MediaRange> => {
  const ranges: Array<MediaRange> = []
  for (const part of header.split(",")) {
    const [range = "", ...params] = part.split(";")
    const [type = "", subtype = "", ...extra] = range.trim().toLowerCase().split("/")
    if (type === "" || subtype === "" || extra.length > 0 || (type === "*" && subtype !== "*")) continue
    let q = 1
    for (const param of params) {
      const eq = param.indexOf("=")
      if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "q") continue
      const value = param.slice(eq + 1).trim()
      q = QVALUE.test(value) ? Number(value) : 0
    }
    ranges.push({ type, subtype, q })
  }
  return ranges
}

/** How specific a range is for a media type: 2 exact, 1 `type/*`, 0 `*\/*`, undefined when it does not match. */
const specificity = (range: MediaRange, type: string, subtype: string): number | undefined => {
  if (range.type === type && range.subtype === subtype) return 2
  if (range.type === type && range.subtype === "*") return 1
  if (range.type === "*") return 0
  return undefined
}

/** The quality a request's ranges give a media type: that of the most specific matching range, 0 when none. */
export const qualityOf = (ranges: ReadonlyArray<MediaRange>, type: string, subtype: string): number => {
  let best = -1
  let q = 0
  for (const range of ranges) {
    const s = specificity(range, type, subtype)
    if (s !== undefined && s > best) {
      best = s
      q = range.q
    }
  }
  return q
}

/**
 * The representation to send for an `Accept` header among `offers` (first offer first on a tie). No header, or
 * one that accepts none of the offers, is the first offer.
 */
export const choose = (
  accept: string | undefined,
  offers: ReadonlyArray<Representation> = ["html", "markdown"]
): Representation => {
  const fallback = offers[0] ?? "html"
  if (accept === undefined || accept.trim() === "") return fallback
  const ranges = parseAccept(accept)
  let chosen = fallback
  let chosenQ = 0
  for (const offer of offers) {
    const [type, subtype] = MEDIA_TYPES[offer]
    const q = qualityOf(ranges, type, subtype)
    if (q > chosenQ) {
      chosen = offer
      chosenQ = q
    }
  }
  return chosen
}

/** Whether a request's `Accept` header prefers Markdown over HTML (the negotiation of `/` and the docs). */
export const wantsMarkdown = (accept: string | undefined): boolean => choose(accept) === "markdown"
