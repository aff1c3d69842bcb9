/**
 * The heartbeat record (`GET /targets/{id}/heartbeat`, service-api.md "Heartbeat record"), and its derivation from
 * what the service keeps: the machine's state, the ping tokens, the successes of the last 14 days and the last
 * failure's output.
 *
 * Timestamps and the last failure's figures are null until they occur, so the record has one shape from the first
 * read; `cadence_advice` and the `previous_url_*` pair are absent outside the cases that give them (fewer than
 * five successes, no rotation overlap), as the spec describes.
 *
 * @since 0.1.0
 */
import type * as DateTime from "effect/DateTime"
import * as Schema from "effect/Schema"
import * as CadenceAdvice from "./CadenceAdvice.js"
import type { HeartbeatState } from "./HeartbeatMachine.js"
import * as Rotation from "./Rotation.js"

const instant = Schema.NullOr(Schema.DateTimeUtc)

/**
 * The record as the API answers it.
 *
 * @since 0.1.0
 * @category models
 */
export const HeartbeatRecord = Schema.Struct({
  ping_url: Schema.String,
  pending: Schema.Boolean,
  first_ping_at: instant,
  created_at: Schema.DateTimeUtc,
  last_ping_at: instant,
  last_start_at: instant,
  last_fail_at: instant,
  last_exit_code: Schema.NullOr(Schema.Int),
  last_failure_output: Schema.NullOr(Schema.String),
  declared_period_secs: Schema.Int,
  observed_period_secs: Schema.NullOr(Schema.Int),
  cadence_advice: Schema.optionalWith(CadenceAdvice.CadenceAdvice, { exact: true }),
  previous_url_expires_at: Schema.optionalWith(Schema.DateTimeUtc, { exact: true }),
  previous_url_last_used_at: Schema.optionalWith(instant, { exact: true }),
  rotated_at: instant
}).annotations({ identifier: "HeartbeatRecord" })

/**
 * @since 0.1.0
 * @category models
 */
export type HeartbeatRecord = typeof HeartbeatRecord.Type

/**
 * A ping URL: `<public base>/ping/<token>` (decisions.md "Wire shapes"); a trailing slash on the base is dropped.
 *
 * @since 0.1.0
 * @category derivations
 */
export const pingUrl = (publicBaseUrl: string, token: string): string =>
  `${publicBaseUrl.replace(/\/+$/, "")}/ping/${token}`

/**
 * What the record is derived from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sources {
  readonly public_base_url: string
  /** The current token in the form the URL carries. */
  readonly token: string
  readonly created_at: DateTime.Utc
  readonly window: { readonly period: number; readonly grace: number }
  readonly state: HeartbeatState
  readonly tokens: Rotation.PingTokens
  /** Success pings (`/success`, the bare URL, `/0`) of at least the last 14 days; older ones are ignored. */
  readonly successes: ReadonlyArray<DateTime.Utc>
  /** The kept output of the last failing ping (see `PingOutput`), null when it sent none. */
  readonly last_failure_output: string | null
}

/**
 * The record at `now`.
 *
 * @since 0.1.0
 * @category derivations
 */
export const derive = (sources: Sources, now: DateTime.Utc): HeartbeatRecord => {
  const { state } = sources
  const advice = CadenceAdvice.advise(sources.window, sources.successes, now)
  const overlap = Rotation.overlap(sources.tokens, now)
  return {
    ping_url: pingUrl(sources.public_base_url, sources.token),
    pending: state.first_ping_at === null,
    first_ping_at: state.first_ping_at,
    created_at: sources.created_at,
    last_ping_at: state.last_ping_at,
    last_start_at: state.last_start_at,
    last_fail_at: state.last_fail_at,
    last_exit_code: state.last_fail_at === null ? null : state.last_exit_code,
    last_failure_output: state.last_fail_at === null ? null : sources.last_failure_output,
    declared_period_secs: sources.window.period,
    observed_period_secs: CadenceAdvice.observedPeriod(sources.successes, now),
    ...(advice === undefined ? {} : { cadence_advice: advice }),
    ...(overlap ?? {}),
    rotated_at: sources.tokens.rotated_at
  }
}
