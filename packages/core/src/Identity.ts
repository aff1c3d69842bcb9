/**
 * People, orgs and credentials as the API shows them: ids, the caller, sessions, API tokens, orgs, usage and
 * invitations.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as RequestBody from "./RequestBody.js"
import * as Scope from "./Scope.js"

/** @since 0.1.0 @category ids */
export const UserId = Schema.UUID.pipe(Schema.brand("UserId"))
/** @since 0.1.0 @category ids */
export type UserId = typeof UserId.Type
/** @since 0.1.0 @category ids */
export const AccountId = Schema.UUID.pipe(Schema.brand("AccountId"))
/** @since 0.1.0 @category ids */
export type AccountId = typeof AccountId.Type
/** @since 0.1.0 @category ids */
export const OrgId = Schema.UUID.pipe(Schema.brand("OrgId"))
/** @since 0.1.0 @category ids */
export type OrgId = typeof OrgId.Type
/** @since 0.1.0 @category ids */
export const SessionId = Schema.UUID.pipe(Schema.brand("SessionId"))
/** @since 0.1.0 @category ids */
export type SessionId = typeof SessionId.Type
/** @since 0.1.0 @category ids */
export const ApiTokenId = Schema.UUID.pipe(Schema.brand("ApiTokenId"))
/** @since 0.1.0 @category ids */
export type ApiTokenId = typeof ApiTokenId.Type
/** @since 0.1.0 @category ids */
export const InvitationId = Schema.UUID.pipe(Schema.brand("InvitationId"))
/** @since 0.1.0 @category ids */
export type InvitationId = typeof InvitationId.Type

/**
 * An org's handle in URLs and the `X-Signalman-Org` header: lower-case letters, digits and inner hyphens.
 *
 * @since 0.1.0
 * @category models
 */
export const OrgSlug = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/),
  Schema.annotations({ identifier: "OrgSlug", description: "1-63 lower-case letters, digits and inner hyphens" })
)

/**
 * @since 0.1.0
 * @category models
 */
export const Role = Schema.Literal("owner", "member")

/**
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * An org the caller belongs to.
 *
 * @since 0.1.0
 * @category models
 */
export class OrgMembership extends Schema.Class<OrgMembership>("OrgMembership")({
  id: OrgId,
  slug: Schema.String,
  name: Schema.String,
  role: Role,
  created_at: Schema.DateTimeUtc
}) {}

/**
 * `GET /api/v1/me`.
 *
 * @since 0.1.0
 * @category models
 */
export class Me extends Schema.Class<Me>("Me")({
  id: UserId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  email_verified: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  account_id: AccountId,
  plan_id: Schema.String,
  /** The org requests act on unless they name another: the session's active org, or a bound token's org. */
  active_org: Schema.NullOr(OrgMembership),
  orgs: Schema.Array(OrgMembership),
  /** How the caller authenticated. */
  auth: Schema.Struct({
    kind: Schema.Literal("session", "token"),
    scopes: Schema.Array(Schema.String)
  }),
  /** Set while the account is scheduled for deletion (30-day grace). */
  deletion_scheduled_for: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/**
 * A signed-in device.
 *
 * @since 0.1.0
 * @category models
 */
export class SessionInfo extends Schema.Class<SessionInfo>("SessionInfo")({
  id: SessionId,
  created_at: Schema.DateTimeUtc,
  last_seen_at: Schema.DateTimeUtc,
  expires_at: Schema.DateTimeUtc,
  current: Schema.Boolean
}) {}

/**
 * An API token as listed: its prefix only, never the secret.
 *
 * @since 0.1.0
 * @category models
 */
export class ApiToken extends Schema.Class<ApiToken>("ApiToken")({
  id: ApiTokenId,
  name: Schema.String,
  prefix: Schema.String,
  scopes: Schema.Array(Schema.String),
  org_id: Schema.NullOr(OrgId),
  created_at: Schema.DateTimeUtc,
  expires_at: Schema.NullOr(Schema.DateTimeUtc),
  last_used_at: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/**
 * The answer to a token's creation: the only time the secret is shown.
 *
 * @since 0.1.0
 * @category models
 */
export class CreatedApiToken extends Schema.Class<CreatedApiToken>("CreatedApiToken")({
  ...ApiToken.fields,
  token: Schema.String
}) {}

const tokenName = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100))

/**
 * `POST /api/v1/me/api-tokens` (decisions.md: name, scopes, org_id, expires_in_days).
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateApiToken = RequestBody.Struct({
  name: tokenName,
  scopes: Schema.Array(Schema.String).pipe(Schema.maxItems(64)),
  org_id: Schema.optionalWith(Schema.NullOr(OrgId), { default: () => null }),
  expires_in_days: Schema.optionalWith(Schema.NullOr(Schema.Int.pipe(Schema.between(1, 365))), {
    default: () => null
  })
}).annotations({ identifier: "CreateApiToken" })

/**
 * `PATCH /api/v1/me/api-tokens/{id}`: rename.
 *
 * @since 0.1.0
 * @category requests
 */
export const RenameApiToken = RequestBody.Struct({ name: tokenName }).annotations({ identifier: "RenameApiToken" })

/**
 * Every known scope, for clients building a token form.
 *
 * @since 0.1.0
 * @category constants
 */
export const knownScopes: ReadonlyArray<string> = Scope.all

/**
 * Current use against a limit.
 *
 * @since 0.1.0
 * @category models
 */
export const UsageFigure = Schema.Struct({ current: Schema.Int, limit: Schema.Int })

/**
 * `GET /api/v1/me/usage`.
 *
 * @since 0.1.0
 * @category models
 */
export class MeUsage extends Schema.Class<MeUsage>("MeUsage")({
  api_tokens: UsageFigure,
  owned_orgs: UsageFigure
}) {}

/**
 * `GET /api/v1/orgs/{id}/usage`: the account's pooled quotas, policy values, rate budgets and flags.
 *
 * @since 0.1.0
 * @category models
 */
export class OrgUsage extends Schema.Class<OrgUsage>("OrgUsage")({
  plan: Schema.Struct({ id: Schema.String, name: Schema.String }),
  quotas: Schema.Record({ key: Schema.String, value: UsageFigure }),
  policy: Schema.Record({ key: Schema.String, value: Schema.Int }),
  rates: Schema.Record({ key: Schema.String, value: Schema.Int }),
  flags: Schema.Record({ key: Schema.String, value: Schema.Boolean })
}) {}

/**
 * An org.
 *
 * @since 0.1.0
 * @category models
 */
export class Org extends Schema.Class<Org>("Org")({
  id: OrgId,
  slug: Schema.String,
  name: Schema.String,
  role: Role,
  created_at: Schema.DateTimeUtc
}) {}

/**
 * `POST /api/v1/orgs`.
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateOrg = RequestBody.Struct({
  name: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100)),
  slug: OrgSlug
}).annotations({ identifier: "CreateOrg" })

/**
 * A pending invitation.
 *
 * @since 0.1.0
 * @category models
 */
export class Invitation extends Schema.Class<Invitation>("Invitation")({
  id: InvitationId,
  org_id: OrgId,
  email: Schema.String,
  role: Role,
  created_at: Schema.DateTimeUtc,
  expires_at: Schema.DateTimeUtc
}) {}

/**
 * `POST /api/v1/orgs/{org_id}/invitations`.
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateInvitation = RequestBody.Struct({
  email: Schema.Trim.pipe(Schema.minLength(3), Schema.maxLength(254)),
  role: Schema.optionalWith(Role, { default: () => "member" as const })
}).annotations({ identifier: "CreateInvitation" })

/**
 * `POST /api/v1/invitations/accept` and `/decline`.
 *
 * @since 0.1.0
 * @category requests
 */
export const InvitationToken = RequestBody.Struct({
  token: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))
}).annotations({
  identifier: "InvitationToken"
})

/**
 * `POST /api/v1/support`.
 *
 * @since 0.1.0
 * @category requests
 */
export const SupportRequest = RequestBody.Struct({
  subject: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200)),
  message: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(10_000))
}).annotations({ identifier: "SupportRequest" })

/**
 * `POST /auth/magic-link/request`: the same answer for every address, known, unknown or malformed.
 *
 * @since 0.1.0
 * @category requests
 */
export const MagicLinkRequest = RequestBody.Struct({
  email: Schema.String.pipe(Schema.maxLength(320)),
  redirect_after: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(2000)), { exact: true }),
  invitation: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(200)), { exact: true })
}).annotations({ identifier: "MagicLinkRequest" })

/**
 * `POST /auth/magic-link/code`: the six-character code from the mail, typed in the browser that asked.
 *
 * @since 0.1.0
 * @category requests
 */
export const MagicLinkCode = RequestBody.Struct({ code: Schema.String.pipe(Schema.maxLength(64)) }).annotations({
  identifier: "MagicLinkCode"
})

/**
 * Where the browser goes after signing in.
 *
 * @since 0.1.0
 * @category models
 */
export class SignedIn extends Schema.Class<SignedIn>("SignedIn")({ redirect: Schema.String }) {}

/**
 * @since 0.1.0
 * @category models
 */
export class Sent extends Schema.Class<Sent>("Sent")({ sent: Schema.Literal(true) }) {}
