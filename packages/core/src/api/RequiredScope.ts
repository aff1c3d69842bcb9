/**
 * What an authenticated endpoint requires of its caller, declared on the endpoint in the contract: the scope a token
 * must hold (a session holds every scope), a session and not a token, or any signed-in caller. The server's
 * `Authentication` middleware enforces it and the OpenAPI document shows it as the operation's security. Every
 * endpoint behind `Authentication` carries one, so a missing annotation is always a mistake (the contract's test
 * walks the API for it).
 *
 * @since 0.1.0
 */
import * as OpenApi from "@effect/platform/OpenApi"
import type { NonEmptyReadonlyArray } from "effect/Array"
import * as Context from "effect/Context"
import type * as Scope from "../Scope.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Requirement =
  /** A token needs this scope (write implies read, full_access grants all); a session passes. */
  | { readonly _tag: "Scope"; readonly scope: Scope.Scope }
  /** One of these scopes, chosen by the request body, so the handler checks it once the body is decoded. */
  | { readonly _tag: "ScopeByPayload"; readonly scopes: NonEmptyReadonlyArray<Scope.Scope> }
  /** Session only: token management, account and org administration refuse bearer tokens. */
  | { readonly _tag: "Session" }
  /** Any signed-in caller, session or token, whatever its scopes. */
  | { readonly _tag: "AnyCaller" }

/**
 * The endpoint annotation holding its `Requirement`.
 *
 * @since 0.1.0
 * @category annotations
 */
export class RequiredScope extends Context.Tag("Signalman/RequiredScope")<RequiredScope, Requirement>() {}

/**
 * The names of the OpenAPI security schemes the document declares (see `OpenApiDocument.securitySchemes`).
 *
 * @since 0.1.0
 * @category models
 */
export const schemes = { bearer: "bearer", session: "session" } as const

/**
 * The operation's OpenAPI security: alternatives, any one of which admits the request. OpenAPI 3.1 lets any scheme
 * list the scopes it needs, so a token's scope is written on the bearer scheme.
 *
 * @since 0.1.0
 * @category openapi
 */
export const security = (requirement: Requirement): ReadonlyArray<Readonly<Record<string, ReadonlyArray<string>>>> => {
  const session = { [schemes.session]: [] }
  switch (requirement._tag) {
    case "Scope":
      return [{ [schemes.bearer]: [requirement.scope] }, session]
    case "ScopeByPayload":
      return [...requirement.scopes.map((scope) => ({ [schemes.bearer]: [scope] })), session]
    case "Session":
      return [session]
    case "AnyCaller":
      return [{ [schemes.bearer]: [] }, session]
  }
}

// The requirement and its OpenAPI security travel together, so the document cannot disagree with the server.
const annotations = (requirement: Requirement): Context.Context<RequiredScope | OpenApi.Override> =>
  Context.make(RequiredScope, requirement).pipe(Context.add(OpenApi.Override, { security: security(requirement) }))

/**
 * For `HttpApiEndpoint.annotateContext`: a token needs `scope`.
 *
 * @since 0.1.0
 * @category annotations
 */
export const requires = (scope: Scope.Scope) => annotations({ _tag: "Scope", scope })

/**
 * For `HttpApiEndpoint.annotateContext`: a token needs one of `scopes`, which one depends on the body; the handler
 * checks it.
 *
 * @since 0.1.0
 * @category annotations
 */
export const requiresByPayload = (scopes: NonEmptyReadonlyArray<Scope.Scope>) =>
  annotations({ _tag: "ScopeByPayload", scopes })

/**
 * For `HttpApiEndpoint.annotateContext`: a session, never a token.
 *
 * @since 0.1.0
 * @category annotations
 */
export const sessionOnly = annotations({ _tag: "Session" })

/**
 * For `HttpApiEndpoint.annotateContext`: any signed-in caller; no scope is needed.
 *
 * @since 0.1.0
 * @category annotations
 */
export const anyCaller = annotations({ _tag: "AnyCaller" })
