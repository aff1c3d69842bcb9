/**
 * The account's data as one JSON document (`GET /api/v1/me/export`, decisions.md "Sign-in with OAuth providers and
 * passkeys"): the person, the orgs their account owns with their monitors, channels, status pages and variables,
 * their sessions and API tokens, their credential changes and their sign-in attempts of the last 90 days.
 *
 * Each resource is in the shape the API answers it, so nothing secret is in it: channel secrets read `***`, a
 * secret variable's value is null, tokens carry their prefix only, sessions their id and times.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import { Channel } from "../Channel.js"
import { CredentialEvent } from "../CredentialEvent.js"
import { ApiToken, OrgId, SessionInfo, UserId } from "../Identity.js"
import { EscalationPolicy } from "../oncall/EscalationPolicy.js"
import { Schedule } from "../oncall/Schedule.js"
import { StatusPage } from "../StatusPage.js"
import { Target } from "../Target.js"
import { Variable } from "../Variable.js"

/**
 * How far back the export's sign-in attempts go.
 *
 * @since 0.2.0
 * @category constants
 */
export const ATTEMPTS_DAYS = 90

/**
 * @since 0.2.0
 * @category models
 */
export class ExportedUser extends Schema.Class<ExportedUser>("ExportedUser")({
  id: UserId,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  email_verified: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  /** When the account is purged for good, while its deletion is pending. */
  deletion_scheduled_for: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/**
 * An org the account owns, with what it holds.
 *
 * @since 0.2.0
 * @category models
 */
export class ExportedOrg extends Schema.Class<ExportedOrg>("ExportedOrg")({
  id: OrgId,
  slug: Schema.String,
  name: Schema.String,
  created_at: Schema.DateTimeUtc,
  /** Set while the org waits out its account's deletion grace. */
  deleted_at: Schema.NullOr(Schema.DateTimeUtc),
  monitors: Schema.Array(Target),
  channels: Schema.Array(Channel),
  status_pages: Schema.Array(StatusPage),
  variables: Schema.Array(Variable),
  on_call_schedules: Schema.Array(Schedule),
  escalation_policies: Schema.Array(EscalationPolicy)
}) {}

/**
 * A sign-in attempt as the attempts log keeps it, without its device hashes.
 *
 * @since 0.2.0
 * @category models
 */
export class SignInAttempt extends Schema.Class<SignInAttempt>("SignInAttempt")({
  /** `magic_link`, `passkey`, `<provider>_oauth`, ... */
  method: Schema.String,
  success: Schema.Boolean,
  failure_reason: Schema.NullOr(Schema.String),
  created_at: Schema.DateTimeUtc
}) {}

/**
 * @since 0.2.0
 * @category models
 */
export class AccountExport extends Schema.Class<AccountExport>("AccountExport")({
  exported_at: Schema.DateTimeUtc,
  user: ExportedUser,
  orgs: Schema.Array(ExportedOrg),
  sessions: Schema.Array(SessionInfo),
  api_tokens: Schema.Array(ApiToken),
  credential_changes: Schema.Array(CredentialEvent),
  /** The last 90 days, newest first. */
  sign_in_attempts: Schema.Array(SignInAttempt)
}) {}

/**
 * The file name the export is offered under: `signalman-export-<date>.json`, the date in UTC.
 *
 * @since 0.2.0
 * @category constructors
 */
export const fileName = (at: Date): string => `signalman-export-${at.toISOString().slice(0, 10)}.json`
