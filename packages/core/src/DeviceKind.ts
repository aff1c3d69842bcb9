/**
 * A coarse, human name for the device a request came from ("Firefox on Linux"), read from its User-Agent when the
 * request is at hand: for the account mail, which says where a change came from. Only the keyed hash of the
 * User-Agent is ever stored, so this is never derived from stored data.
 *
 * @since 0.2.0
 */

// Order matters: Edge and Opera also say "Chrome", Chrome also says "Safari", iOS also says "Mac OS X".
const browsers: ReadonlyArray<readonly [RegExp, string]> = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\bOPR\/|\bOpera\b/, "Opera"],
  [/\bFirefox\/|\bFxiOS\//, "Firefox"],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"]
]

const systems: ReadonlyArray<readonly [RegExp, string]> = [
  [/\biPhone\b|\biPad\b|\biPod\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"]
]

const first = (table: ReadonlyArray<readonly [RegExp, string]>, userAgent: string) =>
  table.find(([pattern]) => pattern.test(userAgent))?.[1]

/**
 * "Firefox on Linux", "Safari on iOS", "Windows" or "Chrome" from a User-Agent; undefined when neither the browser
 * nor the system is recognised (a script, a bot, nothing sent).
 *
 * @since 0.2.0
 * @category rules
 */
export const describe = (userAgent: string | undefined): string | undefined => {
  if (userAgent === undefined || userAgent === "") return undefined
  const browser = first(browsers, userAgent)
  const system = first(systems, userAgent)
  if (browser !== undefined && system !== undefined) return `${browser} on ${system}`
  return browser ?? system
}
