/**
 * The `Authentication` middleware: a bearer API token or the session cookie becomes the `Caller`.
 *
 * Order of checks, each with the spec's answer: the credential (401 `UNAUTHENTICATED` for a missing, malformed,
 * unknown, expired or revoked one), CSRF on state-changing cookie requests (403 `CSRF_REQUIRED`), an account
 * being deleted (only reading `/me`, restoring and signing out remain), the org binding (`X-Signalman-Org`, the
 * pure rule of `OrgBinding`: 400 `ORG_HEADER_INVALID`, 403 `ORG_HEADER_MISMATCH`), then the per-minute rate budget
 * of `/api/v1/*` (429 `RATE_LIMITED`), account tier first, then user tier.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as ApiError from "@signalman/core/ApiError"
import { type ActiveOrg, Authentication, type CallerShape } from "@signalman/core/api/Authentication"
import * as OrgBinding from "@signalman/core/OrgBinding"
import * as RateBudget from "@signalman/core/RateBudget"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { RateBudgets } from "../limits/RateBudgets.js"
import { Accounts, type MembershipRow, type UserRow } from "./Accounts.js"
import { ApiTokens } from "./ApiTokens.js"
import { Attempts } from "./Attempts.js"
import { readCookie } from "./Cookies.js"
import { safeEqual } from "./Secrets.js"
import { COOKIE, Sessions } from "./Sessions.js"

const CSRF_VALUE = "signalman"

const unauthenticated = (message = "Sign in, or send a valid API token as Authorization: Bearer") =>
  ApiError.make("UNAUTHENTICATED", message)

const safeMethod = (method: string) => method === "GET" || method === "HEAD" || method === "OPTIONS"

const pathnameOf = (url: string) => {
  const q = url.indexOf("?")
  return q === -1 ? url : url.slice(0, q)
}

// A soft-deleted account keeps a session so its owner can see the state and restore it; nothing else.
const allowedWhileDeleted = (method: string, pathname: string) =>
  (method === "GET" && pathname === "/api/v1/me") ||
  (method === "POST" && pathname === "/api/v1/me/restore") ||
  pathname === "/auth/logout" ||
  pathname === "/auth/logout-all"

const toActiveOrg = (m: MembershipRow): ActiveOrg => ({
  id: m.id,
  slug: m.slug,
  accountId: m.account_id,
  role: m.role
})

export const layer = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const tokens = yield* ApiTokens
    const accounts = yield* Accounts
    const attempts = yield* Attempts
    const plans = yield* Plans
    const budgets = yield* RateBudgets
    const quotaEvents = yield* QuotaEvents

    const spendBudget = (caller: CallerShape, user: UserRow, method: string, pathname: string) =>
      Effect.gen(function* () {
        if (!pathname.startsWith("/api/v1/")) return
        const category = RateBudget.categoryOf(method, pathname)
        const accountId = caller.org?.accountId ?? user.account_id
        const plan = yield* plans.forAccount(accountId)
        const limit = RateBudget.limitOf(plan, category)
        for (const [tier, subject] of [
          ["account", `account:${accountId}`],
          ["user", `user:${user.id}`]
        ] as const) {
          const verdict = yield* budgets.spend(subject, category, limit)
          if (!verdict.allowed) {
            return yield* Effect.flatMap(
              quotaEvents.rateLimited({
                accountId,
                userId: user.id,
                scope: RateBudget.scopeName(tier, category),
                limit,
                retryAfterSecs: verdict.retryAfterSecs
              }),
              Effect.fail
            )
          }
        }
      })

    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const pathname = pathnameOf(request.url)
      const authorization = request.headers["authorization"]
      const device = {
        ip: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined,
        userAgent: request.headers["user-agent"]
      }

      let user: UserRow | undefined
      let credential: CallerShape["credential"]
      let memberships: ReadonlyArray<MembershipRow>
      let defaultOrg: MembershipRow | undefined

      if (authorization !== undefined) {
        // A bearer token, when sent, is what the request authenticates with, whatever cookie rides along.
        const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
        const row = match?.[1] === undefined ? undefined : yield* tokens.verify(match[1])
        if (row === undefined) {
          yield* attempts.record({ method: "api_token", success: false, failureReason: "invalid_token", ...device })
          return yield* Effect.fail(unauthenticated("The API token is invalid, expired or revoked"))
        }
        user = yield* accounts.byId(row.user_id)
        if (user === undefined || user.deleted_at !== null) {
          return yield* Effect.fail(unauthenticated("The API token is invalid, expired or revoked"))
        }
        yield* tokens.touch(row)
        credential = {
          kind: "token",
          tokenId: row.id,
          scopes: row.scopes,
          boundOrgId: row.org_id
        }
        memberships = yield* accounts.memberships(user.id)
        defaultOrg = row.org_id === null ? undefined : memberships.find((m) => m.id === row.org_id)
        if (row.org_id !== null && defaultOrg === undefined) {
          // The bound org is gone or the user left it: the token can act nowhere.
          return yield* Effect.fail(unauthenticated("The API token's org is no longer available to its owner"))
        }
      } else {
        const cookie = readCookie(request.headers["cookie"], COOKIE)
        const session = cookie === undefined ? undefined : yield* sessions.live(cookie)
        if (session === undefined) return yield* Effect.fail(unauthenticated())
        if (!safeMethod(request.method)) {
          const header = request.headers["x-requested-with"]
          if (header === undefined || !safeEqual(header, CSRF_VALUE)) {
            return yield* Effect.fail(
              ApiError.make("CSRF_REQUIRED", "State-changing requests with a session need X-Requested-With: signalman")
            )
          }
        }
        user = yield* accounts.byId(session.user_id)
        if (user === undefined) return yield* Effect.fail(unauthenticated())
        yield* sessions.touch(session)
        credential = { kind: "session", sessionId: session.id }
        memberships = yield* accounts.memberships(user.id)
        defaultOrg =
          (session.active_org_id === null ? undefined : memberships.find((m) => m.id === session.active_org_id)) ??
          memberships[0]
      }

      if (user.deleted_at !== null && !allowedWhileDeleted(request.method, pathname)) {
        return yield* Effect.fail(
          ApiError.make("ACCOUNT_PENDING_DELETION", "The account is scheduled for deletion: restore it first", {
            details: { restore: "POST /api/v1/me/restore" }
          })
        )
      }

      const named = yield* OrgBinding.named(
        request.headers["x-signalman-org"],
        { boundOrgId: credential.kind === "token" ? credential.boundOrgId : null },
        memberships
      )
      let org: MembershipRow | undefined = named ?? defaultOrg
      if (credential.kind === "token" && credential.boundOrgId === null && named === undefined) org = undefined

      const caller: CallerShape = {
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
      yield* spendBudget(caller, user, request.method, pathname)
      return caller
    })
  })
)
