/**
 * The `me` group: the caller, sessions and API tokens. Token management and account administration are
 * session-only (a token cannot mint another token).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as AccountExport from "@signalman/core/api/AccountExport"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import { ApiToken, CreatedApiToken, SessionInfo } from "@signalman/core/Identity"
import * as Scope from "@signalman/core/Scope"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AccountData } from "../accountdata/AccountData.js"
import { Accounts } from "../accounts/Accounts.js"
import { ApiTokens, type TokenRow } from "../auth/ApiTokens.js"
import * as Authentication from "../auth/Authentication.js"
import { deviceOf } from "../auth/Http.js"
import { requireSession } from "../auth/Policy.js"
import { type SessionRow, Sessions } from "../auth/Sessions.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { Passkeys } from "../passkeys/Passkeys.js"
import { EncodedMe } from "./EncodedMe.js"
import { MeService, notFound } from "./Me.js"
import * as SubscriptionEnd from "./SubscriptionEnd.js"

const utc = (d: Date) => DateTime.unsafeFromDate(d)
const utcOrNull = (d: Date | null) => (d === null ? null : utc(d))

const tokenFields = (row: TokenRow) => ({
  id: row.id,
  name: row.name,
  prefix: row.prefix,
  scopes: row.scopes,
  org_id: row.org_id,
  created_at: utc(row.created_at),
  expires_at: utcOrNull(row.expires_at),
  last_used_at: utcOrNull(row.last_used_at)
})

/** A token as its owner sees it (prefix only), as `GET /api/v1/me/api-tokens` answers it. */
export const toApiToken = (row: TokenRow) => new ApiToken(tokenFields(row))

/** A live session as `GET /api/v1/me/sessions` answers it: it lapses at the sooner of its idle and absolute ends. */
export const toSessionInfo = (row: SessionRow, current: string) =>
  new SessionInfo({
    id: row.id,
    created_at: utc(row.created_at),
    last_seen_at: utc(row.last_seen_at),
    expires_at: utc(new Date(Math.min(row.idle_expires_at.getTime(), row.absolute_expires_at.getTime()))),
    current: row.id === current
  })

export const layer = HttpApiBuilder.group(SignalmanApi, "me", (handlers) =>
  Effect.gen(function* () {
    const me = yield* MeService
    const sessions = yield* Sessions
    const tokens = yield* ApiTokens
    const accounts = yield* Accounts
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const passkeys = yield* Passkeys
    const accountData = yield* AccountData
    const subscriptionEnd = yield* SubscriptionEnd.SubscriptionEnd
    const exportJson = HttpServerResponse.schemaJson(AccountExport.AccountExport)

    // The document is answered pre-encoded; the contract's `Me` schema is what encodes it (EncodedMe.ts).
    const encoded = new EncodedMe()

    return handlers
      .handle("get", () =>
        Effect.flatMap(Caller, (caller) =>
          Effect.map(me.sources(caller), (sources) =>
            HttpServerResponse.uint8Array(encoded.body(caller, sources), { contentType: "application/json" })
          )
        )
      )
      .handle("delete", () =>
        Effect.gen(function* () {
          const caller = yield* Caller
          // A paid subscription ends at the provider first, outside any transaction; refused, nothing is deleted.
          yield* subscriptionEnd.beforeDeletion(caller.user.accountId)
          yield* me.scheduleDeletion(caller)
          return yield* me.document(caller)
        })
      )
      .handle("restore", () =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* me.restore(caller)
          return yield* me.document(caller)
        })
      )
      .handle("export", () =>
        Effect.gen(function* () {
          const sessionId = yield* requireSession
          const at = new Date()
          const document = yield* accountData.exportOf(yield* Caller, sessionId, at)
          // Offered as a file: a browser following the account page's link saves it instead of showing it.
          return yield* exportJson(document, {
            headers: { "content-disposition": `attachment; filename="${AccountExport.fileName(at)}"` }
          }).pipe(Effect.orDie)
        })
      )
      .handle("usage", () => Effect.flatMap(Caller, me.usage))
      .handle("listSessions", () =>
        Effect.gen(function* () {
          const current = yield* requireSession
          const caller = yield* Caller
          const rows = yield* sessions.list(caller.user.id)
          return { data: rows.map((row) => toSessionInfo(row, current)) }
        })
      )
      .handle("revokeSession", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const revoked = yield* sessions.revoke(caller.user.id, path.id)
          if (!revoked) return yield* Effect.fail(notFound("session"))
        })
      )
      .handle("removePasskey", ({ path, request }) =>
        Effect.gen(function* () {
          const current = yield* requireSession
          const caller = yield* Caller
          const removed = yield* passkeys.remove({
            userId: caller.user.id,
            id: path.id,
            keepSessionId: current,
            device: deviceOf(request)
          })
          if (removed === undefined) return yield* Effect.fail(notFound("passkey"))
        })
      )
      .handle("listTokens", () =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const rows = yield* tokens.list(caller.user.id)
          return { data: rows.map(toApiToken) }
        })
      )
      .handle("createToken", ({ payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          if (!caller.user.emailVerified) {
            return yield* Effect.fail(
              ApiError.make("EMAIL_NOT_VERIFIED", "Verify your email address before creating API tokens")
            )
          }
          if (payload.org_id !== null) {
            const member = yield* accounts.membership(caller.user.id, payload.org_id)
            if (member === undefined) {
              return yield* Effect.fail(ApiError.make("NOT_FOUND", "No such org", { field: "org_id" }))
            }
          }
          // The cap is per person, from the plan of the person's own account.
          const plan = yield* plans.forAccount(caller.user.accountId)
          const cap = plan.quotas.max_api_tokens_per_user
          const created = yield* tokens.create({
            userId: caller.user.id,
            orgId: payload.org_id,
            name: payload.name,
            scopes: Scope.normalize(payload.scopes),
            expiresInDays: payload.expires_in_days,
            cap
          })
          if (created._tag === "Full") {
            return yield* quotaEvents.refuse({
              plan,
              accountId: caller.user.accountId,
              userId: caller.user.id,
              quota: "max_api_tokens_per_user",
              current: created.current
            })
          }
          return new CreatedApiToken({ ...tokenFields(created.row), token: created.token })
        })
      )
      .handle("renameToken", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const row = yield* tokens.rename(caller.user.id, path.id, payload.name)
          if (row === undefined) return yield* Effect.fail(notFound("token"))
          return new ApiToken(tokenFields(row))
        })
      )
      .handle("revokeToken", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const revoked = yield* tokens.revoke(caller.user.id, path.id)
          if (!revoked) return yield* Effect.fail(notFound("token"))
        })
      )
  })
).pipe(
  Layer.provide([
    MeService.Default,
    AccountData.Default,
    Sessions.Default,
    ApiTokens.Default,
    Accounts.Default,
    Plans.Default,
    QuotaEvents.Default,
    SubscriptionEnd.layer,
    Authentication.layer
  ])
)
