/**
 * Who is calling: the `Authentication` middleware of every authenticated route resolves a session cookie or a
 * bearer API token (and the org the request acts on) into the `Caller`.
 *
 * @since 0.1.0
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import type { AccountId, ApiTokenId, OrgId, Role, SessionId, UserId } from "../Identity.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Credential =
  | { readonly kind: "session"; readonly sessionId: SessionId }
  | {
      readonly kind: "token"
      readonly tokenId: ApiTokenId
      readonly scopes: ReadonlyArray<string>
      readonly boundOrgId: OrgId | null
    }

/**
 * The org a request acts on, with the caller's role in it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ActiveOrg {
  readonly id: OrgId
  readonly slug: string
  readonly accountId: AccountId
  readonly role: Role
}

/**
 * @since 0.1.0
 * @category models
 */
export interface CallerShape {
  readonly user: {
    readonly id: UserId
    readonly email: string
    readonly accountId: AccountId
    readonly emailVerified: boolean
    readonly deleted: boolean
  }
  readonly credential: Credential
  /** Null when no org applies: an unbound token without `X-Signalman-Org` (routes needing one answer ORG_REQUIRED). */
  readonly org: ActiveOrg | null
}

/**
 * @since 0.1.0
 * @category services
 */
export class Caller extends Context.Tag("Signalman/Caller")<Caller, CallerShape>() {}

/**
 * @since 0.1.0
 * @category middleware
 */
export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("Signalman/Authentication", {
  provides: Caller,
  failure: Schema.Union(
    ApiError.Wire.Unauthorized,
    ApiError.Wire.Forbidden,
    ApiError.Wire.BadRequest,
    ApiError.Wire.TooManyRequests
  )
}) {}
