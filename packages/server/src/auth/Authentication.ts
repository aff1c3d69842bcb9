/**
 * The `Authentication` middleware: a bearer API token or the session cookie becomes the `Caller`.
 *
 * Order of checks, each with the spec's answer: the credential (401 `UNAUTHENTICATED` for a missing, malformed,
 * unknown, expired or revoked one), CSRF on state-changing cookie requests (403 `CSRF_REQUIRED`), an account
 * being deleted (only reading `/me`, restoring and signing out remain), the org binding (`X-Signalman-Org`, the
 * pure rule of `OrgBinding`: 400 `ORG_HEADER_INVALID`, 403 `ORG_HEADER_MISMATCH`), then the per-minute rate budget
 * of `/api/v1/*` (429 `RATE_LIMITED`), account tier first, then user tier, and last what the endpoint declares it
 * requires (`RequiredScope` in the contract): a token lacking the scope is 403 `INSUFFICIENT_SCOPE`, a token on a
 * session-only route 403 `SESSION_REQUIRED`. That last step is where the handlers checked it, so a refused request
 * has spent its budget as before.
 *
 * The `Authenticator` does all of it but the endpoint's declaration, so a surface outside the contract (`/mcp`) admits
 * a caller with the same rules, caches and budgets.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { type ActiveOrg, Authentication, type CallerShape } from "@signalman/core/api/Authentication"
import type { Requirement } from "@signalman/core/api/RequiredScope"
import * as OrgBinding from "@signalman/core/OrgBinding"
import * as RateBudget from "@signalman/core/RateBudget"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { Accounts, type MembershipRow, type UserRow } from "../accounts/Accounts.js"
import { readCookie } from "../infra/Cookies.js"
import { safeEqual } from "../infra/Secrets.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { RateBudgets } from "../limits/RateBudgets.js"
import { ApiTokens, type TokenRow } from "./ApiTokens.js"
import { type Attempt, Attempts } from "./Attempts.js"
import { hasScope, insufficientScope, sessionRequired } from "./Policy.js"
import * as RouteRequirements from "./RouteRequirements.js"
import { COOKIE, type SessionRow, Sessions } from "./Sessions.js"

const CSRF_VALUE = "signalman"

const unauthenticated = (message = "Sign in, or send a valid API token as Authorization: Bearer") =>
  ApiError.make("UNAUTHENTICATED", message)

const safeMethod = (method: string) => method === "GET" || method === "HEAD" || method === "OPTIONS"

const pathnameOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

// A soft-deleted account keeps a session so its owner can see the state and restore it, and take their data with
// them before it is purged (the export); nothing else.
const allowedWhileDeleted = (method: string, pathname: string) =>
  (method === "GET" && (pathname === "/api/v1/me" || pathname === "/api/v1/me/export")) ||
  (method === "POST" && pathname === "/api/v1/me/restore") ||
  pathname === "/auth/logout" ||
  pathname === "/auth/logout-all"

const toActiveOrg = (m: MembershipRow): ActiveOrg => ({
  id: m.id,
  slug: m.slug,
  accountId: m.account_id,
  role: m.role
})

const invalidToken = () => unauthenticated("The API token is invalid, expired or revoked")

/** Who a request is, before the org binding: the user, how they signed in, their orgs and the default org. */
interface Access {
  readonly user: UserRow
  readonly credential: CallerShape["credential"]
  readonly memberships: ReadonlyArray<MembershipRow>
  readonly defaultOrg: MembershipRow | undefined
}

/** A live token's access: refused when its owner is gone, or when the org it is bound to is gone to them. */
const tokenAccess = (
  row: TokenRow,
  user: UserRow,
  memberships: ReadonlyArray<MembershipRow>
): Either.Either<Access, ApiError.ApiError> => {
  const defaultOrg = row.org_id === null ? undefined : memberships.find((m) => m.id === row.org_id)
  if (row.org_id !== null && defaultOrg === undefined) {
    // The bound org is gone or the user left it: the token can act nowhere.
    return Either.left(unauthenticated("The API token's org is no longer available to its owner"))
  }
  return Either.right({
    user,
    credential: { kind: "token", tokenId: row.id, scopes: row.scopes, boundOrgId: row.org_id },
    memberships,
    defaultOrg
  })
}

/** A live session's access: its active org when the user still belongs to it, else their first org. */
const sessionAccess = (session: SessionRow, user: UserRow, memberships: ReadonlyArray<MembershipRow>): Access => ({
  user,
  credential: { kind: "session", sessionId: session.id },
  memberships,
  defaultOrg:
    (session.active_org_id === null ? undefined : memberships.find((m) => m.id === session.active_org_id)) ??
    memberships[0]
})

/** A state-changing request with a session cookie must say `X-Requested-With: signalman`. */
const csrfRefusal = (request: HttpServerRequest.HttpServerRequest): ApiError.ApiError | undefined => {
  if (safeMethod(request.method)) return undefined
  const header = request.headers["x-requested-with"]
  return header !== undefined && safeEqual(header, CSRF_VALUE)
    ? undefined
    : ApiError.make("CSRF_REQUIRED", "State-changing requests with a session need X-Requested-With: signalman")
}

/** The caller an access makes for this request: the account's deletion state, then the org binding. */
const settle = (
  request: HttpServerRequest.HttpServerRequest,
  pathname: string,
  access: Access
): Either.Either<CallerShape, ApiError.ApiError> => {
  const { user, credential } = access
  if (user.deleted_at !== null && !allowedWhileDeleted(request.method, pathname)) {
    return Either.left(
      ApiError.make("ACCOUNT_PENDING_DELETION", "The account is scheduled for deletion: restore it first", {
        details: { restore: "POST /api/v1/me/restore" }
      })
    )
  }
  const boundOrgId = credential.kind === "token" ? credential.boundOrgId : null
  return Either.map(
    OrgBinding.named(request.headers["x-signalman-org"], { boundOrgId }, access.memberships),
    (named): CallerShape => {
      // An unbound token acts on an org only when the request names one.
      const org = named ?? (credential.kind === "token" && boundOrgId === null ? undefined : access.defaultOrg)
      return {
        user: {
          id: user.id,
          email: user.email,
          accountId: user.account_id,
          emailVerified: user.email_verified_at !== null,
          deleted: user.deleted_at !== null
        },
        credential,
        org: org === undefined ? null : toActiveOrg(org)
      }
    }
  )
}

/**
 * The caller against what the endpoint requires. A scope chosen by the body is the handler's to check (the body is
 * decoded after this middleware), and any caller passes the rest.
 */
const refusal = (caller: CallerShape, requirement: Requirement): ApiError.ApiError | undefined => {
  switch (requirement._tag) {
    case "Scope":
      return hasScope(caller.credential, requirement.scope) ? undefined : insufficientScope(requirement.scope)
    case "Session":
      return caller.credential.kind === "session" ? undefined : sessionRequired()
    case "ScopeByPayload":
    case "AnyCaller":
      return undefined
  }
}

const bearerOf = (authorization: string): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]

/** The two budgets a request of the API spends from, account tier first. */
const budgetSubjects = (caller: CallerShape) =>
  [
    ["account", `account:${caller.org?.accountId ?? caller.user.accountId}`],
    ["user", `user:${caller.user.id}`]
  ] as const

/**
 * Who a request is, and whether it may go on: the credential, CSRF, the org binding and the rate budget of the
 * budgeted surfaces (`RateBudget.applies`). One per process, so its caches and reserved budgets are shared by every
 * surface that asks.
 */
export class Authenticator extends Effect.Service<Authenticator>()("Signalman/Authenticator", {
  effect: Effect.gen(function* () {
    const sessions = yield* Sessions
    const tokens = yield* ApiTokens
    const accounts = yield* Accounts
    const attempts = yield* Attempts
    const plans = yield* Plans
    const budgets = yield* RateBudgets
    const quotaEvents = yield* QuotaEvents

    const spendBudget = (caller: CallerShape, method: string, pathname: string) =>
      RateBudget.applies(pathname) ? spend(caller, RateBudget.categoryOf(method, pathname)) : Effect.void

    /** One request from the caller's budgets of `category`, account tier first; a refusal is recorded. */
    const spend = (caller: CallerShape, category: RateBudget.Category): Effect.Effect<void, ApiError.ApiError> =>
      Effect.gen(function* () {
        const accountId = caller.org?.accountId ?? caller.user.accountId
        const plan = yield* plans.forAccount(accountId)
        const limit = RateBudget.limitOf(plan, category)
        for (const [tier, subject] of budgetSubjects(caller)) {
          const verdict = yield* budgets.spend(subject, category, limit)
          if (!verdict.allowed) {
            return yield* Effect.flatMap(
              quotaEvents.rateLimited({
                accountId,
                userId: caller.user.id,
                scope: RateBudget.scopeName(tier, category),
                limit,
                retryAfterSecs: verdict.retryAfterSecs
              }),
              Effect.fail
            )
          }
        }
      })

    const tokenAccessOf = (token: string | undefined, device: Pick<Attempt, "ip" | "userAgent">) =>
      Effect.gen(function* () {
        const row = token === undefined ? undefined : yield* tokens.verify(token)
        if (row === undefined) {
          yield* attempts.record({ method: "api_token", success: false, failureReason: "invalid_token", ...device })
          return yield* Effect.fail(invalidToken())
        }
        const user = yield* accounts.byId(row.user_id)
        if (user === undefined || user.deleted_at !== null) return yield* Effect.fail(invalidToken())
        yield* tokens.touch(row)
        return yield* tokenAccess(row, user, yield* accounts.memberships(user.id))
      })

    const sessionAccessOf = (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const cookie = readCookie(request.headers["cookie"], COOKIE)
        const session = cookie === undefined ? undefined : yield* sessions.live(cookie)
        if (session === undefined) return yield* Effect.fail(unauthenticated())
        const csrf = csrfRefusal(request)
        if (csrf !== undefined) return yield* Effect.fail(csrf)
        const user = yield* accounts.byId(session.user_id)
        if (user === undefined) return yield* Effect.fail(unauthenticated())
        yield* sessions.touch(session)
        return sessionAccess(session, user, yield* accounts.memberships(user.id))
      })

    /** Every case, reading what memory does not hold and recording refusals. */
    const full = (request: HttpServerRequest.HttpServerRequest, pathname: string) =>
      Effect.gen(function* () {
        const authorization = request.headers["authorization"]
        // A bearer token, when sent, is what the request authenticates with, whatever cookie rides along.
        const access =
          authorization !== undefined
            ? yield* tokenAccessOf(bearerOf(authorization), {
                ip: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined,
                userAgent: request.headers["user-agent"]
              })
            : yield* sessionAccessOf(request)
        const caller = yield* settle(request, pathname, access)
        yield* spendBudget(caller, request.method, pathname)
        return caller
      })

    /**
     * The common case answered from memory alone: a credential, its user and their orgs all cached, no last-use
     * write due, the request admitted, and a request left in both budget blocks this process reserved. Anything
     * else (a miss, a refusal, a write, a reservation) is undefined, and `full` handles the request from the start;
     * nothing has been changed by then, so the two never count a request twice. The rules are the same functions.
     */
    const fromMemory = (request: HttpServerRequest.HttpServerRequest, pathname: string): CallerShape | undefined => {
      const authorization = request.headers["authorization"]
      let access: Access | undefined
      if (authorization !== undefined) {
        const token = bearerOf(authorization)
        const row = token === undefined ? undefined : tokens.peek(token)
        if (row === undefined || tokens.usageDue(row)) return undefined
        const user = accounts.peekUser(row.user_id)
        if (user === undefined || user.deleted_at !== null) return undefined
        const memberships = accounts.peekMemberships(user.id)
        if (memberships === undefined) return undefined
        access = Either.getOrUndefined(tokenAccess(row, user, memberships))
      } else {
        const cookie = readCookie(request.headers["cookie"], COOKIE)
        const session = cookie === undefined ? undefined : sessions.peek(cookie)
        if (session === undefined || sessions.usageDue(session) || csrfRefusal(request) !== undefined) return undefined
        const user = accounts.peekUser(session.user_id)
        const memberships = user === undefined ? undefined : accounts.peekMemberships(user.id)
        if (user === undefined || memberships === undefined) return undefined
        access = sessionAccess(session, user, memberships)
      }
      if (access === undefined) return undefined
      const caller = Either.getOrUndefined(settle(request, pathname, access))
      if (caller === undefined) return undefined
      if (!RateBudget.applies(pathname)) return caller
      const category = RateBudget.categoryOf(request.method, pathname)
      const subjects = budgetSubjects(caller).map(([, subject]) => subject)
      return budgets.spendReserved(subjects, category) ? caller : undefined
    }

    return {
      fromMemory,
      full,
      spend,
      /** The caller of `request`, from memory when it can tell, else the full path; or the refusal. */
      authenticate: (request: HttpServerRequest.HttpServerRequest): Effect.Effect<CallerShape, ApiError.ApiError> => {
        const pathname = pathnameOf(request.url)
        const caller = fromMemory(request, pathname)
        return caller === undefined ? full(request, pathname) : Effect.succeed(caller)
      }
    }
  }),
  // The same layer values every group provides, so the caches and the reserved rate budgets stay one per process.
  dependencies: [
    Sessions.Default,
    ApiTokens.Default,
    Accounts.Default,
    Attempts.Default,
    Plans.Default,
    RateBudgets.Default,
    QuotaEvents.Default
  ]
}) {}

/** The API's authentication middleware: the `Authenticator`, then what the endpoint declares it requires. */
export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticator = yield* Authenticator
    const requirements = RouteRequirements.fromApi(SignalmanApi)

    const admitted = (caller: CallerShape, requirement: Requirement) => {
      const refused = refusal(caller, requirement)
      return refused === undefined ? Effect.succeed(caller) : Effect.fail(refused)
    }

    return Effect.withFiberRuntime<CallerShape, ApiError.ApiError>((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const { route } = Context.unsafeGet(fiber.currentContext, HttpRouter.RouteContext)
      const requirement = requirements.of(route.method, route.path)
      // The contract's test holds every authenticated endpoint to a declaration; without one, refuse rather than
      // guess.
      if (requirement === undefined) {
        return Effect.dieMessage(`${route.method} ${route.path} declares no RequiredScope`)
      }
      // The common case stays one synchronous call, as on the benchmark's path (docs/request-path.md).
      const pathname = pathnameOf(request.url)
      const caller = authenticator.fromMemory(request, pathname)
      return caller === undefined
        ? Effect.flatMap(authenticator.full(request, pathname), (caller) => admitted(caller, requirement))
        : admitted(caller, requirement)
    })
  })
).pipe(Layer.provide(Authenticator.Default))
