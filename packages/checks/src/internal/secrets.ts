/**
 * Keeping a flow's fill values out of everything a run says. A fill value may have been an org secret the server
 * put in just before the run (`{{name}}`), and the probe cannot tell which, so every one is treated as secret:
 * wherever one appears in a text the run reports (an error, a step's error, the final URL, which carries a form
 * sent by GET), it is replaced by the API's redaction sentinel. Browsers echo typed text in places (puppeteer's
 * "Element did not accept the value ..."), and a form's fields land in the URL percent-encoded or form-encoded, so
 * those spellings go too.
 *
 * @internal
 */

/**
 * What a secret is replaced by: the API's redaction sentinel (service-api.md: three asterisks).
 *
 * @internal
 */
export const sentinel = "***"

/**
 * A text with every given value, in every spelling a browser may write it, replaced by the sentinel.
 *
 * @internal
 */
export type Scrub = (text: string) => string

const spellings = (value: string): ReadonlyArray<string> => [
  value,
  encodeURIComponent(value),
  // application/x-www-form-urlencoded, as a form sent by GET puts it in the query.
  new URLSearchParams({ v: value }).toString().slice(2)
]

const escaped = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A scrubber for `values` (empty values are nothing to hide). The match ignores case, since percent-escapes may be
 * written either way (`%2f`, `%2F`); the longest spellings go first, so a value that contains another is replaced
 * whole.
 *
 * @internal
 */
export const scrubber = (values: ReadonlyArray<string>): Scrub => {
  const needles = [...new Set(values.filter((value) => value !== "").flatMap(spellings))].sort(
    (a, b) => b.length - a.length
  )
  if (needles.length === 0) return (text) => text
  const pattern = new RegExp(needles.map(escaped).join("|"), "gi")
  return (text) => text.replace(pattern, sentinel)
}
