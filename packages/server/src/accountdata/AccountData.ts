/**
 * The account's own data as one document (`GET /api/v1/me/export`).
 *
 * The export gathers each resource through its own service, in the shape the API answers it, so it carries no
 * more than the API would show its owner: channel secrets read `***`, a secret variable's value is null, tokens
 * carry their prefix, sessions their id and times, attempts and credential changes no device hashes.
 */
import {
  AccountExport,
  ATTEMPTS_DAYS,
  ExportedOrg,
  ExportedUser,
  SignInAttempt
} from "@signalman/core/api/AccountExport"
import type { ActiveOrg, CallerShape } from "@signalman/core/api/Authentication"
import { CredentialEvent } from "@signalman/core/CredentialEvent"
import { ApiToken, SessionInfo } from "@signalman/core/Identity"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { Accounts } from "../accounts/Accounts.js"
import { ApiTokens } from "../auth/ApiTokens.js"
import { Sessions } from "../auth/Sessions.js"
import { Channels } from "../channels/Channels.js"
import { CredentialEvents } from "../credentials/CredentialEvents.js"
import { EscalationPolicies } from "../oncall/EscalationPolicies.js"
import { Schedules } from "../oncall/Schedules.js"
import { StatusPages } from "../statuspages/StatusPages.js"
import { toTarget } from "../targets/Stored.js"
import { Targets } from "../targets/Targets.js"
import { Variables } from "../variables/Variables.js"
import { AccountDataRepo, type OwnedOrgRow } from "./Repo.js"

// The largest page the list endpoints allow; an export reads every page.
const PAGE = 500
// A bound on one export's attempts: far above what 90 days of a person's sign-ins make, low enough that a flood of
// failed token checks cannot make the document unbounded.
const MAX_ATTEMPTS = 10_000

const utc = (d: Date) => DateTime.unsafeFromDate(d)
const utcOrNull = (d: Date | null) => (d === null ? null : utc(d))

/** Every page of a list, `total` telling when to stop. */
const all = <A>(
  page: (offset: number) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly total: number }>
) =>
  Effect.gen(function* () {
    const items: Array<A> = []
    for (;;) {
      const next = yield* page(items.length)
      items.push(...next.items)
      if (next.items.length === 0 || items.length >= next.total) return items
    }
  })

export class AccountData extends Effect.Service<AccountData>()("Signalman/AccountData", {
  effect: Effect.gen(function* () {
    const repo = yield* AccountDataRepo
    const accounts = yield* Accounts
    const sessions = yield* Sessions
    const tokens = yield* ApiTokens
    const credentialEvents = yield* CredentialEvents
    const targets = yield* Targets
    const channels = yield* Channels
    const variables = yield* Variables
    const statusPages = yield* StatusPages
    const schedules = yield* Schedules
    const policies = yield* EscalationPolicies

    const org = (row: OwnedOrgRow, accountId: ActiveOrg["accountId"]) =>
      Effect.gen(function* () {
        // The account owns the org, so its owner reads it as an owner would.
        const active: ActiveOrg = { id: row.id, slug: row.slug, accountId, role: "owner" }
        const query = (offset: number) => ({ limit: PAGE, offset })
        const [monitors, orgChannels, pages, orgVariables, orgSchedules, orgPolicies] = yield* Effect.all([
          all((offset) =>
            Effect.map(targets.list(active, query(offset)), (p) => ({ items: p.rows.map(toTarget), total: p.total }))
          ),
          all((offset) => Effect.map(channels.list(active, query(offset)), (p) => ({ items: p.data, total: p.total }))),
          all((offset) =>
            Effect.map(statusPages.list(active, query(offset)), (p) => ({ items: p.data, total: p.total }))
          ),
          all((offset) =>
            Effect.map(variables.list(row.id, query(offset)), (p) => ({ items: p.data, total: p.total }))
          ),
          all((offset) => Effect.map(schedules.list(active, PAGE, offset), (p) => ({ items: p.data, total: p.total }))),
          all((offset) => Effect.map(policies.list(active, PAGE, offset), (p) => ({ items: p.data, total: p.total })))
        ])
        return new ExportedOrg({
          id: row.id,
          slug: row.slug,
          name: row.name,
          created_at: utc(row.created_at),
          deleted_at: utcOrNull(row.deleted_at),
          monitors,
          channels: orgChannels,
          status_pages: pages,
          variables: orgVariables,
          on_call_schedules: orgSchedules,
          escalation_policies: orgPolicies
        })
      })

    /** The caller's data as one document; `sessionId` is the session asking, marked `current`. */
    const exportOf = (caller: CallerShape, sessionId: string, at: Date) =>
      Effect.gen(function* () {
        const user = yield* accounts.byId(caller.user.id)
        if (user === undefined) return yield* Effect.dieMessage("caller without a user row")
        const owned = yield* repo.ownedOrgs(user.account_id)
        const orgs = yield* Effect.forEach(owned, (row) => org(row, user.account_id))
        const live = yield* sessions.list(user.id)
        const liveTokens = yield* tokens.list(user.id)
        const changes = yield* credentialEvents.ofUser(user.id)
        const attempts = yield* repo.attempts(user.id, ATTEMPTS_DAYS, MAX_ATTEMPTS)
        return new AccountExport({
          exported_at: utc(at),
          user: new ExportedUser({
            id: user.id,
            email: user.email,
            name: user.name,
            email_verified: user.email_verified_at !== null,
            created_at: utc(user.created_at),
            deletion_scheduled_for: utcOrNull(user.purge_after)
          }),
          orgs,
          sessions: live.map(
            (s) =>
              new SessionInfo({
                id: s.id,
                created_at: utc(s.created_at),
                last_seen_at: utc(s.last_seen_at),
                expires_at: utc(new Date(Math.min(s.idle_expires_at.getTime(), s.absolute_expires_at.getTime()))),
                current: s.id === sessionId
              })
          ),
          api_tokens: liveTokens.map(
            (t) =>
              new ApiToken({
                id: t.id,
                name: t.name,
                prefix: t.prefix,
                scopes: t.scopes,
                org_id: t.org_id,
                created_at: utc(t.created_at),
                expires_at: utcOrNull(t.expires_at),
                last_used_at: utcOrNull(t.last_used_at)
              })
          ),
          credential_changes: changes.map(
            (c) =>
              new CredentialEvent({
                id: c.id,
                change: c.change,
                method: c.method,
                origin: c.origin,
                label: c.label,
                created_at: utc(c.created_at)
              })
          ),
          sign_in_attempts: attempts.map(
            (a) =>
              new SignInAttempt({
                method: a.method,
                success: a.success,
                failure_reason: a.failure_reason,
                created_at: utc(a.created_at)
              })
          )
        })
      })

    return { exportOf }
  }),
  dependencies: [
    AccountDataRepo.Default,
    Accounts.Default,
    Sessions.Default,
    ApiTokens.Default,
    CredentialEvents.Default,
    Targets.Default,
    Channels.Default,
    Variables.Default,
    Schedules.Default,
    EscalationPolicies.Default
  ]
}) {}
