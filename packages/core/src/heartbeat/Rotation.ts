/**
 * Rotation of a heartbeat's ping URL (service-api.md "Rotation overlap of the ping URL"): rotating mints a new
 * token and keeps the previous one live for 24 hours, unless the request revokes it at once; `DELETE previous`
 * ends the overlap and is idempotent. Pings on the previous URL count normally and stamp its last use.
 *
 * Rotation is its own state, apart from the heartbeat machine's: it cannot re-arm the silence clock or touch
 * incidents and history. Tokens here are whatever the service looks them up by (their stored hash); this module
 * only says which one resolves at a given time.
 *
 * @since 0.1.0
 */
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Schema from "effect/Schema"
import * as RequestBody from "../RequestBody.js"

/**
 * How long the previous URL keeps working after an ordinary rotation.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_OVERLAP = Duration.hours(24)

/**
 * The replaced token during its overlap.
 *
 * @since 0.1.0
 * @category models
 */
export const PreviousToken = Schema.Struct({
  token: Schema.String,
  expires_at: Schema.DateTimeUtc,
  last_used_at: Schema.NullOr(Schema.DateTimeUtc)
}).annotations({ identifier: "PreviousToken" })

/**
 * @since 0.1.0
 * @category models
 */
export type PreviousToken = typeof PreviousToken.Type

/**
 * A heartbeat's ping tokens: the current one, the previous one while it overlaps, and when it last rotated.
 *
 * @since 0.1.0
 * @category models
 */
export const PingTokens = Schema.Struct({
  current: Schema.String,
  previous: Schema.NullOr(PreviousToken),
  rotated_at: Schema.NullOr(Schema.DateTimeUtc)
}).annotations({ identifier: "PingTokens" })

/**
 * @since 0.1.0
 * @category models
 */
export type PingTokens = typeof PingTokens.Type

/**
 * The body of `POST /targets/{id}/heartbeat/rotate`: `{}` for an ordinary rotation.
 *
 * @since 0.1.0
 * @category requests
 */
export const RotateRequest = RequestBody.Struct({
  revoke_previous_immediately: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "RotateRequest" })

/**
 * @since 0.1.0
 * @category requests
 */
export type RotateRequest = typeof RotateRequest.Type

/**
 * The tokens of a newly created heartbeat.
 *
 * @since 0.1.0
 * @category constructors
 */
export const minted = (token: string): PingTokens => ({ current: token, previous: null, rotated_at: null })

// The previous token while it still works: live strictly before its expiry.
const previousLive = (tokens: PingTokens, now: DateTime.Utc): PreviousToken | null =>
  tokens.previous !== null && DateTime.lessThan(now, tokens.previous.expires_at) ? tokens.previous : null

/**
 * Rotate to a fresh token. The current one becomes the previous one for the overlap, or dies in the same commit
 * with `revoke_previous_immediately`. A previous token still overlapping from an earlier rotation ends now: only
 * the URL just replaced gets a grace period, so two rotations in a row cannot keep a leaked URL alive.
 *
 * @since 0.1.0
 * @category transitions
 */
export const rotate = (
  tokens: PingTokens,
  request: RotateRequest & { readonly token: string },
  now: DateTime.Utc,
  overlap: Duration.DurationInput = DEFAULT_OVERLAP
): PingTokens => ({
  current: request.token,
  previous:
    request.revoke_previous_immediately === true
      ? null
      : { token: tokens.current, expires_at: DateTime.addDuration(now, overlap), last_used_at: null },
  rotated_at: now
})

/**
 * End the overlap (`DELETE .../heartbeat/previous`): the previous token stops working at once. Idempotent: with no
 * previous token nothing changes, and the answer is 204 either way.
 *
 * @since 0.1.0
 * @category transitions
 */
export const endPrevious = (tokens: PingTokens): PingTokens =>
  tokens.previous === null ? tokens : { ...tokens, previous: null }

/**
 * Which of the heartbeat's tokens `token` is at `now`: the current one, the previous one during its overlap, or
 * none (answered 404 like an unknown token).
 *
 * @since 0.1.0
 * @category resolution
 */
export const resolve = (tokens: PingTokens, token: string, now: DateTime.Utc): "current" | "previous" | undefined => {
  if (token === tokens.current) return "current"
  const previous = previousLive(tokens, now)
  return previous !== null && token === previous.token ? "previous" : undefined
}

/**
 * Stamp a ping on the previous URL as its last use (shown as `previous_url_last_used_at`, so the owner can see
 * whether anything still calls the old URL before ending it). Any other ping changes nothing.
 *
 * @since 0.1.0
 * @category transitions
 */
export const recordUse = (tokens: PingTokens, token: string, now: DateTime.Utc): PingTokens => {
  const previous = previousLive(tokens, now)
  return previous !== null && token === previous.token
    ? { ...tokens, previous: { ...previous, last_used_at: now } }
    : tokens
}

/**
 * The overlap fields of the heartbeat record: present only while the previous URL works.
 *
 * @since 0.1.0
 * @category derivations
 */
export const overlap = (
  tokens: PingTokens,
  now: DateTime.Utc
):
  | { readonly previous_url_expires_at: DateTime.Utc; readonly previous_url_last_used_at: DateTime.Utc | null }
  | undefined => {
  const previous = previousLive(tokens, now)
  return previous === null
    ? undefined
    : { previous_url_expires_at: previous.expires_at, previous_url_last_used_at: previous.last_used_at }
}

/**
 * Drop a previous token whose overlap has passed, so a sweeper can clear it from storage. Resolution already ignores
 * it; this only tidies.
 *
 * @since 0.1.0
 * @category transitions
 */
export const prune = (tokens: PingTokens, now: DateTime.Utc): PingTokens =>
  tokens.previous !== null && previousLive(tokens, now) === null ? { ...tokens, previous: null } : tokens
