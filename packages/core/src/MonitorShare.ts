/**
 * Share links (service-api.md "Share link (MonitorShare)"): a read-only view of one monitor at `/m/{token}`, for
 * people without an account. A link is live until it is revoked (DELETE) or, when it has one, until `expires_at`;
 * a revoked or lapsed link answers the same 404 as one that never existed. The rules here are pure; the server
 * seals the token at rest and keeps a hash of it for the lookup.
 *
 * @since 0.2.0
 */
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"
import { Instant } from "./Instant.js"
import * as RequestBody from "./RequestBody.js"

/**
 * @since 0.2.0
 * @category ids
 */
export const MonitorShareId = Schema.UUID.pipe(Schema.brand("MonitorShareId"))

/**
 * @since 0.2.0
 * @category ids
 */
export type MonitorShareId = typeof MonitorShareId.Type

/**
 * The most characters a label may hold (auth-and-limits.md, "share label").
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_LABEL_LENGTH = 80

/**
 * Every share token starts with this, so a leaked one is recognisable (secret scanners, logs).
 *
 * @since 0.2.0
 * @category constants
 */
export const TOKEN_PREFIX = "sm_share_"

/**
 * `POST /api/v1/targets/{id}/shares`. Both fields optional; JSON null means the same as leaving one out. The label
 * is any string here so that one too long answers 400 `SHARE_LABEL_INVALID` (see {@link validateCreate}), not a
 * generic decode failure.
 *
 * @since 0.2.0
 * @category requests
 */
export const CreateMonitorShare = RequestBody.Struct({
  label: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  expires_at: Schema.optionalWith(Schema.NullOr(Instant), { exact: true })
}).annotations({ identifier: "CreateMonitorShare" })

/**
 * @since 0.2.0
 * @category requests
 */
export type CreateMonitorShare = typeof CreateMonitorShare.Type

/**
 * A share link as the service answers it. `token` is null only when the row was sealed under an encryption key no
 * longer configured (the link still works for whoever holds it; it cannot be shown again), and `url` with it.
 *
 * @since 0.2.0
 * @category models
 */
export class MonitorShare extends Schema.Class<MonitorShare>("MonitorShare")({
  id: MonitorShareId,
  label: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(Schema.DateTimeUtc),
  token: Schema.NullOr(Schema.String),
  url: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
}) {}

/**
 * What a create stores, once its rules pass.
 *
 * @since 0.2.0
 * @category models
 */
export interface NewShare {
  readonly label: string | null
  readonly expires_at: DateTime.Utc | null
}

/**
 * The rules of a create: a label is trimmed (blank means none) and holds at most 80 characters, counted as people
 * count them (code points), else 400 `SHARE_LABEL_INVALID` on `label`; an `expires_at` at or before `now` is 400
 * `INVALID_EXPIRY` on `expires_at` (a link that is dead on arrival helps nobody).
 *
 * @since 0.2.0
 * @category transitions
 */
export const validateCreate = (
  input: CreateMonitorShare,
  now: DateTime.Utc
): Either.Either<NewShare, ApiError.ApiError> => {
  const trimmed = input.label?.trim() ?? ""
  if ([...trimmed].length > MAX_LABEL_LENGTH) {
    return Either.left(
      ApiError.make("SHARE_LABEL_INVALID", `A label holds at most ${MAX_LABEL_LENGTH} characters`, {
        field: "label",
        details: { max_length: MAX_LABEL_LENGTH }
      })
    )
  }
  const expires = input.expires_at ?? null
  if (expires !== null && DateTime.lessThanOrEqualTo(expires, now)) {
    return Either.left(ApiError.make("INVALID_EXPIRY", "expires_at must be in the future", { field: "expires_at" }))
  }
  return Either.right({ label: trimmed === "" ? null : trimmed, expires_at: expires })
}

/**
 * Whether a stored link opens its page at `now`: not revoked, and not past its expiry (the expiry instant itself
 * is already past, as a window's end is).
 *
 * @since 0.2.0
 * @category states
 */
export const isLive = (
  share: { readonly revoked_at: DateTime.Utc | null; readonly expires_at: DateTime.Utc | null },
  now: DateTime.Utc
): boolean => share.revoked_at === null && (share.expires_at === null || DateTime.lessThan(now, share.expires_at))

const TOKEN_SHAPE = /^sm_share_[A-Za-z0-9_-]{43}$/

/**
 * Whether a string has the shape of a share token (the prefix and 32 random bytes in base64url), so a lookup can
 * skip the database for anything else.
 *
 * @since 0.2.0
 * @category refinements
 */
export const looksLikeToken = (candidate: string): boolean => TOKEN_SHAPE.test(candidate)

/**
 * What the quotas let a create do: `max_share_links_per_monitor` counts the monitor's live links,
 * `max_shared_monitors` the account's monitors with at least one live link (a monitor already shared adds none).
 * The first quota broken is named.
 *
 * @since 0.2.0
 * @category quotas
 */
export const quotaBreach = (
  usage: {
    readonly linksOnMonitor: number
    readonly sharedMonitors: number
  },
  limits: { readonly max_share_links_per_monitor: number; readonly max_shared_monitors: number }
):
  | {
      readonly quota: "max_share_links_per_monitor" | "max_shared_monitors"
      readonly current: number
      readonly limit: number
    }
  | undefined => {
  if (usage.linksOnMonitor >= limits.max_share_links_per_monitor) {
    return {
      quota: "max_share_links_per_monitor",
      current: usage.linksOnMonitor,
      limit: limits.max_share_links_per_monitor
    }
  }
  if (usage.linksOnMonitor === 0 && usage.sharedMonitors >= limits.max_shared_monitors) {
    return { quota: "max_shared_monitors", current: usage.sharedMonitors, limit: limits.max_shared_monitors }
  }
  return undefined
}
