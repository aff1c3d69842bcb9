/**
 * Sign-in with OAuth providers (auth-and-limits.md, "OAuth sign-in"): the provider ids, a linked sign-in method as
 * the account sees it, and the pure rules of the callback: which address a provider attests, the identity key
 * it is known by, and whether removing a method would leave the account no way in.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"

/**
 * The four providers, by their ids in `auth.enabled_methods` (decisions.md, "Sign-in with OAuth providers and
 * passkeys").
 *
 * @since 0.1.0
 * @category models
 */
export const Provider = Schema.Literal("github", "google", "microsoft", "gitlab")

/**
 * @since 0.1.0
 * @category models
 */
export type Provider = typeof Provider.Type

/**
 * @since 0.1.0
 * @category models
 */
export const providers: ReadonlyArray<Provider> = Provider.literals

/**
 * What the pages call each provider.
 *
 * @since 0.1.0
 * @category models
 */
export const providerNames: Record<Provider, string> = {
  github: "GitHub",
  google: "Google",
  microsoft: "Microsoft",
  gitlab: "GitLab"
}

/**
 * @since 0.1.0
 * @category guards
 */
export const isProvider = (value: string): value is Provider => (providers as ReadonlyArray<string>).includes(value)

/**
 * A provider identity linked to the account (`GET /api/v1/me/sign-in-methods`).
 *
 * @since 0.1.0
 * @category models
 */
export class SignInMethod extends Schema.Class<SignInMethod>("SignInMethod")({
  provider: Provider,
  /** The provider's key for the person (`DELETE ...?provider_user_id=` names it when one vendor is linked twice). */
  provider_user_id: Schema.String,
  /** The address or account name the provider gave, to tell two identities apart. */
  label: Schema.String,
  created_at: Schema.DateTimeUtc,
  last_used_at: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/**
 * The answer to `POST /auth/{provider}/link`: where the browser goes to consent.
 *
 * @since 0.1.0
 * @category models
 */
export class LinkStarted extends Schema.Class<LinkStarted>("LinkStarted")({
  redirect: Schema.String
}) {}

/**
 * One entry of GitHub's `GET /user/emails`.
 *
 * @since 0.1.0
 * @category models
 */
export const GitHubEmail = Schema.Struct({
  email: Schema.String,
  primary: Schema.Boolean,
  verified: Schema.Boolean
})

/**
 * GitHub attests only the primary address, and only when it is verified.
 *
 * @since 0.1.0
 * @category rules
 */
export const githubAttestedEmail = (emails: ReadonlyArray<typeof GitHubEmail.Type>): string | undefined =>
  emails.find((e) => e.primary && e.verified)?.email

/**
 * The OpenID Connect claims the callback reads (Google and GitLab); other claims are ignored.
 *
 * @since 0.1.0
 * @category models
 */
export const OidcClaims = Schema.Struct({
  iss: Schema.String,
  sub: Schema.String,
  email: Schema.optional(Schema.String),
  // Google has sent the claim as the string "true" in the past; only a true value attests.
  email_verified: Schema.optional(Schema.Union(Schema.Boolean, Schema.Literal("true", "false")))
})

/**
 * @since 0.1.0
 * @category models
 */
export type OidcClaims = typeof OidcClaims.Type

/**
 * Google and GitLab attest the address only with `email_verified` true.
 *
 * @since 0.1.0
 * @category rules
 */
export const oidcAttestedEmail = (claims: OidcClaims): string | undefined =>
  claims.email !== undefined && (claims.email_verified === true || claims.email_verified === "true")
    ? claims.email
    : undefined

/** The trailing slashes of an issuer or base URL are not part of its identity. */
const bareUrl = (url: string) => url.replace(/\/+$/, "")

/**
 * GitLab's token must come from the configured instance: its `iss` equals `auth.gitlab.base_url`.
 *
 * @since 0.1.0
 * @category rules
 */
export const gitlabIssuerMatches = (claims: OidcClaims, baseUrl: string): boolean =>
  bareUrl(claims.iss) === bareUrl(baseUrl)

/**
 * GitLab's identity key: `{iss}/{sub}`, so two instances' user 1 are two people.
 *
 * @since 0.1.0
 * @category rules
 */
export const gitlabKey = (claims: OidcClaims): string => `${bareUrl(claims.iss)}/${claims.sub}`

/**
 * The claims of a Microsoft identity platform v2.0 id_token the callback reads.
 *
 * @since 0.1.0
 * @category models
 */
export const MicrosoftClaims = Schema.Struct({
  sub: Schema.String,
  tid: Schema.optional(Schema.String),
  oid: Schema.optional(Schema.String),
  email: Schema.optional(Schema.String),
  preferred_username: Schema.optional(Schema.String),
  /** "Email domain owner verified", an optional claim the app registration asks for. */
  xms_edov: Schema.optional(Schema.Union(Schema.Boolean, Schema.Literal("true", "false", "1", "0")))
})

/**
 * @since 0.1.0
 * @category models
 */
export type MicrosoftClaims = typeof MicrosoftClaims.Type

/**
 * The tenant personal Microsoft accounts sign in from.
 *
 * @since 0.1.0
 * @category rules
 */
export const MICROSOFT_PERSONAL_TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad"

/**
 * Microsoft's own consumer mail domains, the addresses its consumer account service has handed out under its
 * successive names: outlook.com and hotmail.com (Outlook.com, offered at sign-up today), live.com (Windows Live),
 * msn.com (MSN) and passport.com (.NET Passport, the account service's first name). Source: the brief,
 * which names these five; Microsoft publishes no machine-readable list. Country variants (hotmail.co.uk, live.fr,
 * ...) are left out as the spec says. An address of a personal account on any other domain was typed by its owner
 * and never proved to Microsoft, so it attests nothing.
 *
 * @since 0.1.0
 * @category rules
 */
export const MICROSOFT_CONSUMER_DOMAINS: ReadonlyArray<string> = [
  "outlook.com",
  "hotmail.com",
  "live.com",
  "msn.com",
  "passport.com"
]

const isTrue = (value: boolean | string | undefined) => value === true || value === "true" || value === "1"

/**
 * Microsoft attests the address when the tenant says the domain's owner verified it (`xms_edov`), or when the
 * account is personal and the address is on one of Microsoft's own consumer domains.
 *
 * @since 0.1.0
 * @category rules
 */
export const microsoftAttestedEmail = (claims: MicrosoftClaims): string | undefined => {
  const email = claims.email
  if (email === undefined || !email.includes("@")) return undefined
  if (isTrue(claims.xms_edov)) return email
  const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase()
  return claims.tid === MICROSOFT_PERSONAL_TENANT && MICROSOFT_CONSUMER_DOMAINS.includes(domain) ? email : undefined
}

/**
 * Microsoft's identity key: `{tid}/{oid}`, the same person across apps; `sub` (per app) when either is missing.
 *
 * @since 0.1.0
 * @category rules
 */
export const microsoftKey = (claims: MicrosoftClaims): string =>
  claims.tid !== undefined && claims.oid !== undefined ? `${claims.tid}/${claims.oid}` : claims.sub

/**
 * What the account could still sign in with once one linked identity is gone.
 *
 * @since 0.1.0
 * @category models
 */
export interface WaysIn {
  /** Magic links are offered: the account's address always gets it in. */
  readonly magicLink: boolean
  /** Linked identities left after the removal whose provider is offered and completely configured. */
  readonly otherIdentities: number
  /** Passkeys of the account, when passkeys are offered. */
  readonly passkeys: number
}

/**
 * `DELETE /api/v1/me/sign-in-methods/{provider}` refuses only when it would leave no way in: 409
 * `LAST_SIGN_IN_METHOD`. With magic links offered it never refuses.
 *
 * @since 0.1.0
 * @category rules
 */
export const removalRefusal = (left: WaysIn): ApiError.ApiError | undefined =>
  left.magicLink || left.otherIdentities > 0 || left.passkeys > 0
    ? undefined
    : ApiError.make(
        "LAST_SIGN_IN_METHOD",
        "This is the only way left to sign in to your account; add another before removing it",
        { field: "provider" }
      )
