/**
 * Orgs of an account: creation under `max_orgs` (422 OWNER_ORG_LIMIT, counted under the account's lock so
 * concurrent creates settle at the limit), the account's usage, and invitations.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import type { CallerShape } from "@signalman/core/api/Authentication"
import { type AccountId, InvitationId, OrgId } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { isPlausibleEmail, normalizeEmail } from "../auth/Accounts.js"
import { Invalidation } from "../auth/Invalidation.js"
import { Mailer } from "../auth/Mailer.js"
import { randomSecret, sha256 } from "../auth/Secrets.js"
import { TtlCache } from "../auth/TtlCache.js"
import { AppConfig, publicBaseUrl } from "../Config.js"
import { uuidv7 } from "../Ids.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"

const INVITATION_DAYS = 7

export const InvitationRow = Schema.Struct({
  id: InvitationId,
  org_id: OrgId,
  email: Schema.String,
  role: Schema.Literal("owner", "member"),
  created_at: Schema.DateFromSelf,
  expires_at: Schema.DateFromSelf
})
export type InvitationRow = typeof InvitationRow.Type

/**
 * Pooled quotas: how many of each the account holds now. A resource that does not exist yet in this release
 * holds none; each feature adds its count here as it lands.
 */
const pooledCounts = (sql: SqlClient.SqlClient, accountId: string) =>
  sql<{
    orgs: number
    members: number
    invitations: number
    channels: number
    maintenance: number
    shared_monitors: number
  }>`
    SELECT
      (SELECT count(*) FROM orgs WHERE account_id = ${accountId} AND deleted_at IS NULL)::int AS orgs,
      (SELECT count(DISTINCT m.user_id) FROM memberships m JOIN orgs o ON o.id = m.org_id
        WHERE o.account_id = ${accountId} AND o.deleted_at IS NULL)::int AS members,
      (SELECT count(*) FROM invitations i JOIN orgs o ON o.id = i.org_id
        WHERE o.account_id = ${accountId} AND o.deleted_at IS NULL AND i.accepted_at IS NULL
          AND i.declined_at IS NULL AND i.revoked_at IS NULL AND i.expires_at > now())::int AS invitations,
      (SELECT count(*) FROM channels c JOIN orgs o ON o.id = c.org_id
        WHERE c.account_id = ${accountId} AND o.deleted_at IS NULL)::int AS channels,
      (SELECT count(*) FROM maintenance_windows w JOIN orgs o ON o.id = w.org_id
        WHERE w.account_id = ${accountId} AND o.deleted_at IS NULL AND w.deleted_at IS NULL
          AND w.ends_at > now())::int AS maintenance,
      (SELECT count(DISTINCT s.target_id) FROM monitor_shares s JOIN orgs o ON o.id = s.org_id
        WHERE s.account_id = ${accountId} AND o.deleted_at IS NULL AND s.revoked_at IS NULL
          AND (s.expires_at IS NULL OR s.expires_at > now()))::int AS shared_monitors
  `.pipe(
    Effect.map(([row]) => ({
      max_orgs: row?.orgs ?? 0,
      max_members: row?.members ?? 0,
      max_pending_invitations: row?.invitations ?? 0,
      max_notification_channels: row?.channels ?? 0,
      max_maintenance_windows: row?.maintenance ?? 0,
      max_shared_monitors: row?.shared_monitors ?? 0
    })),
    Effect.orDie
  )

export const pooledQuotas = [
  "max_orgs",
  "max_targets",
  "max_members",
  "max_pending_invitations",
  "max_status_pages",
  "max_public_components",
  "max_shared_monitors",
  "max_maintenance_windows",
  "max_notification_channels",
  "max_escalation_policies",
  "max_on_call_schedules"
] as const satisfies ReadonlyArray<Plan.QuotaName>

export class Orgs extends Effect.Service<Orgs>()("Signalman/Orgs", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const mailer = yield* Mailer
    const invalidation = yield* Invalidation
    const config = yield* AppConfig
    const base = yield* publicBaseUrl
    const decodeInvitations = Schema.decodeUnknown(Schema.Array(InvitationRow))

    const create = (caller: CallerShape, input: { readonly name: string; readonly slug: string }) =>
      Effect.gen(function* () {
        const accountId = caller.user.accountId
        const plan = yield* plans.forAccount(accountId)
        const outcome = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${accountId}`}))`
              const [count] = yield* sql<{ n: number }>`
                SELECT count(*)::int AS n FROM orgs WHERE account_id = ${accountId} AND deleted_at IS NULL
              `
              const current = count?.n ?? 0
              if (current >= plan.quotas.max_orgs) return { _tag: "Full", current } as const
              const taken = yield* sql`SELECT 1 FROM orgs WHERE slug = ${input.slug}`
              if (taken.length > 0) return { _tag: "Taken" } as const
              const id = uuidv7()
              yield* sql`INSERT INTO orgs (id, account_id, slug, name) VALUES (${id}, ${accountId}, ${input.slug}, ${input.name})`
              yield* sql`INSERT INTO memberships (org_id, user_id, role) VALUES (${id}, ${caller.user.id}, 'owner')`
              return { _tag: "Created", id } as const
            })
          )
          .pipe(
            // Two creates racing for one slug: the unique index decides, the loser hears SLUG_TAKEN.
            Effect.catchIf(
              (e) =>
                String(e).includes("orgs_slug_key") ||
                String((e as { cause?: unknown }).cause).includes("orgs_slug_key"),
              () => Effect.succeed({ _tag: "Taken" } as const)
            ),
            Effect.orDie
          )
        switch (outcome._tag) {
          case "Full":
            return yield* quotaEvents.refuse({
              plan,
              accountId,
              userId: caller.user.id,
              quota: "max_orgs",
              current: outcome.current,
              code: "OWNER_ORG_LIMIT"
            })
          case "Taken":
            return yield* Effect.fail(ApiError.make("SLUG_TAKEN", `The slug ${input.slug} is taken`, { field: "slug" }))
          case "Created":
            yield* invalidation.publish(`user:${caller.user.id}`)
            return outcome.id
        }
      })

    // Usage counts are cached per account for usage_cache_ttl_secs (the spec's usage cache).
    const usageCache = new TtlCache<Awaited<Effect.Effect.Success<ReturnType<typeof pooledCounts>>>>(
      config.usage_cache_ttl_secs * 1000
    )
    const counted = (accountId: string) =>
      Effect.suspend(() => {
        const hit = usageCache.get(accountId)
        return hit !== undefined
          ? Effect.succeed(hit)
          : Effect.tap(pooledCounts(sql, accountId), (counts) =>
              Effect.sync(() => usageCache.set(accountId, counts, [`account:${accountId}`]))
            )
      })

    const usage = (accountId: AccountId) =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(accountId)
        const counts = yield* counted(accountId)
        const known: Partial<Record<Plan.QuotaName, number>> = counts
        const quotas = Object.fromEntries(
          pooledQuotas.map((q) => [q, { current: known[q] ?? 0, limit: plan.quotas[q] }])
        )
        const pooled = new Set<string>(pooledQuotas)
        const policy = Object.fromEntries(Plan.quotaNames.filter((q) => !pooled.has(q)).map((q) => [q, plan.quotas[q]]))
        return { plan, quotas, policy }
      })

    const invite = (
      caller: CallerShape,
      org: { readonly id: OrgId; readonly accountId: AccountId; readonly slug: string },
      input: { readonly email: string; readonly role: "owner" | "member" }
    ) =>
      Effect.gen(function* () {
        const email = normalizeEmail(input.email)
        if (!isPlausibleEmail(email)) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "email: not an email address", { field: "email" })
          )
        }
        const plan = yield* plans.forAccount(org.accountId)
        const token = randomSecret(32)
        const outcome = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
              const member = yield* sql`
                SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id
                WHERE m.org_id = ${org.id} AND u.email = ${email}
              `
              if (member.length > 0) return { _tag: "Member" } as const
              // A repeated invitation to the same address refreshes the one pending row.
              const refreshed = yield* sql`
                UPDATE invitations SET token_hash = ${sha256(token)}, role = ${input.role}, invited_by = ${caller.user.id},
                  expires_at = now() + make_interval(days => ${INVITATION_DAYS})
                WHERE org_id = ${org.id} AND email = ${email}
                  AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
                RETURNING id, org_id, email, role, created_at, expires_at
              `.pipe(Effect.flatMap(decodeInvitations))
              if (refreshed[0] !== undefined) return { _tag: "Invited", row: refreshed[0] } as const
              const [pending] = yield* sql<{ n: number }>`
                SELECT count(*)::int AS n FROM invitations i JOIN orgs o ON o.id = i.org_id
                WHERE o.account_id = ${org.accountId} AND i.accepted_at IS NULL AND i.declined_at IS NULL
                  AND i.revoked_at IS NULL AND i.expires_at > now()
              `
              const current = pending?.n ?? 0
              if (current >= plan.quotas.max_pending_invitations) return { _tag: "Full", current } as const
              const rows = yield* sql`
                INSERT INTO invitations (id, org_id, email, role, token_hash, invited_by, expires_at)
                VALUES (${uuidv7()}, ${org.id}, ${email}, ${input.role}, ${sha256(token)}, ${caller.user.id},
                        now() + make_interval(days => ${INVITATION_DAYS}))
                RETURNING id, org_id, email, role, created_at, expires_at
              `.pipe(Effect.flatMap(decodeInvitations))
              const row = rows[0]
              if (row === undefined) return yield* Effect.dieMessage("invitation vanished after insert")
              return { _tag: "Invited", row } as const
            })
          )
          .pipe(Effect.orDie)
        if (outcome._tag === "Member") {
          return yield* Effect.fail(
            ApiError.make("ALREADY_MEMBER", `${email} is already a member of ${org.slug}`, { field: "email" })
          )
        }
        if (outcome._tag === "Full") {
          yield* quotaEvents.quotaExceeded({
            accountId: org.accountId,
            userId: caller.user.id,
            quota: "max_pending_invitations",
            current: outcome.current,
            limit: plan.quotas.max_pending_invitations,
            plan: plan.id
          })
          return yield* Effect.fail(
            ApiError.make("INVITATIONS_LIMIT", `The account has ${outcome.current} pending invitations, its limit`, {
              details: {
                quota: "max_pending_invitations",
                current: outcome.current,
                limit: plan.quotas.max_pending_invitations,
                plan: plan.id
              }
            })
          )
        }
        yield* mailer
          .send({
            to: email,
            subject: `You are invited to ${org.slug} on Signalman`,
            text: [
              `${caller.user.email} invites you to the ${org.slug} org on Signalman.`,
              "",
              `Accept: ${base}/invitations/accept?token=${token}`,
              `Decline: ${base}/invitations/decline?token=${token}`,
              "",
              `The invitation is valid for ${INVITATION_DAYS} days.`
            ].join("\n")
          })
          .pipe(Effect.catchAll((error) => Effect.logError("Could not send the invitation mail", error.cause)))
        return outcome.row
      })

    const pendingInvitations = (orgId: string) =>
      sql`
        SELECT id, org_id, email, role, created_at, expires_at FROM invitations
        WHERE org_id = ${orgId} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL AND expires_at > now()
        ORDER BY created_at
      `.pipe(Effect.flatMap(decodeInvitations), Effect.orDie)

    const revokeInvitation = (orgId: string, id: string) =>
      sql<{ id: string }>`
        UPDATE invitations SET revoked_at = now()
        WHERE id = ${id} AND org_id = ${orgId} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
        RETURNING id
      `.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.orDie
      )

    const decline = (token: string) =>
      sql`
        UPDATE invitations SET declined_at = now()
        WHERE token_hash = ${sha256(token)} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
      `.pipe(Effect.asVoid, Effect.orDie)

    return { create, usage, invite, pendingInvitations, revokeInvitation, decline }
  }),
  dependencies: [Plans.Default, QuotaEvents.Default, Invalidation.Default]
}) {}
