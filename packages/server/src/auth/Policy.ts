/**
 * What a handler requires of its caller, as one-line checks: a session (not a token), a scope, an org, the
 * owner role. Each fails with the spec's error. The session and scope an endpoint needs are declared on the
 * contract (`RequiredScope`) and enforced by the `Authentication` middleware with the same errors; the checks here
 * serve what a declaration cannot say (a scope chosen by the body) and handlers that need the session's id.
 */
import * as ApiError from "@signalman/core/ApiError"
import { type ActiveOrg, Caller, type CallerShape } from "@signalman/core/api/Authentication"
import * as Scope from "@signalman/core/Scope"
import * as Effect from "effect/Effect"

export const sessionRequired = () =>
  ApiError.make("SESSION_REQUIRED", "This route takes a signed-in session, not an API token")

/** Token management, billing and account administration read the session cookie and refuse bearer tokens. */
export const requireSession = Effect.flatMap(Caller, (caller) =>
  caller.credential.kind === "session" ? Effect.succeed(caller.credential.sessionId) : Effect.fail(sessionRequired())
)

export const insufficientScope = (scope: Scope.Scope) =>
  ApiError.make("INSUFFICIENT_SCOPE", `This token lacks the ${scope} scope`, { details: { required: scope } })

/** Sessions hold every scope; a token needs the scope (write implies read; full_access grants all). */
export const hasScope = (credential: CallerShape["credential"], scope: Scope.Scope): boolean =>
  credential.kind === "session" || Scope.grants(credential.scopes, scope)

export const requireScope = (scope: Scope.Scope) =>
  Effect.flatMap(Caller, (caller) =>
    hasScope(caller.credential, scope) ? Effect.void : Effect.fail(insufficientScope(scope))
  )

/** The org the request acts on; an unbound token without `X-Signalman-Org` has none. */
export const requireOrg: Effect.Effect<ActiveOrg, ApiError.BadRequest, Caller> = Effect.flatMap(Caller, (caller) =>
  caller.org === null
    ? Effect.fail(
        ApiError.make("ORG_REQUIRED", "This token is not bound to an org: name one with the X-Signalman-Org header")
      )
    : Effect.succeed(caller.org)
)

export const requireOwner = (org: ActiveOrg) =>
  org.role === "owner"
    ? Effect.void
    : Effect.fail(ApiError.make("OWNER_REQUIRED", "Only an owner of the org may do this"))
