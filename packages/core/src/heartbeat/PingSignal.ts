/**
 * What a heartbeat ping says, read from the path after the token (service-api.md "Ping signals", decisions.md
 * "Wire shapes": `<public base>/ping/<token>` with `/success`, `/start`, `/fail` or `/<0-255>`).
 *
 * A path this module does not recognise is no signal at all: the caller answers 404, exactly as for an unknown
 * token, and never counts it as a success.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Option from "effect/Option"

/**
 * A run finished cleanly (`exit_code` is 0 when it came as `/0`), a run began, or a run failed (`exit_code` is the
 * shell's status when it came as `/<1-255>`, null for `/fail`).
 *
 * @since 0.1.0
 * @category models
 */
export type PingSignal = Data.TaggedEnum<{
  Success: { readonly exit_code: 0 | null }
  Start: Record<never, never>
  Fail: { readonly exit_code: number | null }
}>

/**
 * Constructors and matchers for {@link PingSignal}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const PingSignal = Data.taggedEnum<PingSignal>()

/**
 * The highest exit status a shell reports (`$?` is one byte).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_EXIT_CODE = 255

// One spelling per status: `$?` prints no leading zeros, and "007" or "00" would have to be guessed at (octal? a
// typo?), which the spec forbids ("an unrecognised segment is 404, never a success").
const exitStatus = /^(?:0|[1-9][0-9]{0,2})$/

const fromSegment = (segment: string): Option.Option<PingSignal> => {
  switch (segment) {
    case "":
    case "success":
      return Option.some(PingSignal.Success({ exit_code: null }))
    case "start":
      return Option.some(PingSignal.Start())
    case "fail":
      return Option.some(PingSignal.Fail({ exit_code: null }))
  }
  if (!exitStatus.test(segment)) return Option.none()
  const code = Number(segment)
  if (code > MAX_EXIT_CODE) return Option.none()
  return Option.some(code === 0 ? PingSignal.Success({ exit_code: 0 }) : PingSignal.Fail({ exit_code: code }))
}

/**
 * The signal of the path after the token: `""` (the bare URL), `/success`, `/start`, `/fail` or `/<0-255>`, each
 * also with one trailing slash (cron lines often carry one). Matching is exact and case-sensitive; a query string
 * must be removed first. Anything else (`/256`, `/-1`, `/007`, `/success/extra`, `//`) is none.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromSuffix = (suffix: string): Option.Option<PingSignal> => {
  if (suffix === "" || suffix === "/") return fromSegment("")
  if (!suffix.startsWith("/")) return Option.none()
  const rest = suffix.endsWith("/") ? suffix.slice(1, -1) : suffix.slice(1)
  // An inner slash is an extra segment; an empty one ("//") would otherwise read as the bare URL.
  if (rest === "" || rest.includes("/")) return Option.none()
  return fromSegment(rest)
}

/**
 * A ping URL's path split into its token and signal: `/ping/<token>` followed by a suffix {@link fromSuffix}
 * accepts. The token is returned as sent, for the caller to look up; none means 404.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromPath = (pathname: string): Option.Option<{ readonly token: string; readonly signal: PingSignal }> => {
  const prefix = "/ping/"
  if (!pathname.startsWith(prefix)) return Option.none()
  const afterPrefix = pathname.slice(prefix.length)
  const slash = afterPrefix.indexOf("/")
  const token = slash === -1 ? afterPrefix : afterPrefix.slice(0, slash)
  if (token === "") return Option.none()
  const suffix = slash === -1 ? "" : afterPrefix.slice(slash)
  return Option.map(fromSuffix(suffix), (signal) => ({ token, signal }))
}

/**
 * Whether a signal finishes a run (and so pairs with an earlier `/start`).
 *
 * @since 0.1.0
 * @category predicates
 */
export const finishesRun = (signal: PingSignal): boolean => signal._tag !== "Start"
