/**
 * Credential changes (auth-and-limits.md, "Credential changes"): a sign-in method added to an account or removed
 * from it, as the account page and the data export show it. The device it came from is stored only as keyed
 * hashes, so it is not part of the record shown.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"

/**
 * The sign-in methods that are credentials of their own: the four providers and passkeys. Magic links are not:
 * they follow the account's address.
 *
 * @since 0.2.0
 * @category models
 */
export const CredentialMethod = Schema.Literal("github", "google", "microsoft", "gitlab", "passkey")

/**
 * @since 0.2.0
 * @category models
 */
export type CredentialMethod = typeof CredentialMethod.Type

/**
 * How the change came about: the account was opened with it (`signup`), a provider's attested address matched the
 * account's (`email_match`), or a signed-in person did it (`session`).
 *
 * @since 0.2.0
 * @category models
 */
export const CredentialOrigin = Schema.Literal("signup", "email_match", "session")

/**
 * @since 0.2.0
 * @category models
 */
export type CredentialOrigin = typeof CredentialOrigin.Type

/**
 * @since 0.2.0
 * @category models
 */
export const CredentialChangeKind = Schema.Literal("added", "removed")

/**
 * @since 0.2.0
 * @category models
 */
export type CredentialChangeKind = typeof CredentialChangeKind.Type

/**
 * One recorded change, as the data export's `credential_changes` lists it.
 *
 * @since 0.2.0
 * @category models
 */
export class CredentialEvent extends Schema.Class<CredentialEvent>("CredentialEvent")({
  id: Schema.UUID,
  change: CredentialChangeKind,
  method: CredentialMethod,
  origin: CredentialOrigin,
  /** The provider's account name or address, or the passkey's name. */
  label: Schema.String,
  created_at: Schema.DateTimeUtc
}) {}

/**
 * What a method is called in mail and on pages.
 *
 * @since 0.2.0
 * @category rules
 */
export const methodName = (method: CredentialMethod): string => {
  switch (method) {
    case "github":
      return "GitHub"
    case "google":
      return "Google"
    case "microsoft":
      return "Microsoft"
    case "gitlab":
      return "GitLab"
    case "passkey":
      return "Passkey"
  }
}
