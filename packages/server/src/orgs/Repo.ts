/**
 * Orgs' SQL: orgs and their owners, the account's pooled usage counts, invitations (issued, refreshed, listed,
 * revoked, declined, accepted into a membership) and support requests. Counts a quota is compared against are taken
 * under the account's lock. Tokens arrive hashed; an invitation row is core's `Invitation` (timestamps arrive as
 * `Date`s, hence the `FromDate` fields).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId, Invitation, InvitationId, OrgId, Role } from "@signalman/core/Identity"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as Transaction from "../database/Transaction.js"

/** A stored invitation as its owners see it. */
export const InvitationRow = Schema.Struct({
  ...Invitation.fields,
  created_at: Schema.DateTimeUtcFromDate,
  expires_at: Schema.DateTimeUtcFromDate
})
export type InvitationRow = typeof InvitationRow.Type

/** A live invitation a token names, with its org's account and slug. */
export const PendingRow = Schema.Struct({
  id: InvitationId,
  org_id: OrgId,
  email: Schema.String,
  role: Role,
  account_id: AccountId,
  slug: Schema.String
})
export type PendingRow = typeof PendingRow.Type

/** How many of each pooled quota the account holds now. */
export const PooledCounts = Schema.Struct({
  orgs: Schema.Int,
  members: Schema.Int,
  invitations: Schema.Int,
  channels: Schema.Int,
  maintenance: Schema.Int,
  shared_monitors: Schema.Int,
  escalation_policies: Schema.Int,
  on_call_schedules: Schema.Int
})
export type PooledCounts = typeof PooledCounts.Type

/** A person in an org, with their role and when they joined. */
export const MemberRow = Schema.Struct({
  user_id: Schema.String,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  role: Role,
  joined_at: Schema.DateFromSelf
})
export type MemberRow = typeof MemberRow.Type

/** The seats of an account: the distinct people in its orgs, and whether the user is one of them. */
export const Seats = Schema.Struct({ people: Schema.Int, mine: Schema.Int })

/** An invitation issued or refreshed: the token arrives hashed. */
export const InvitationIssue = Schema.Struct({
  org_id: OrgId,
  email: Schema.String,
  role: Role,
  token_hash: Schema.Uint8ArrayFromSelf,
  invited_by: Schema.String,
  days: Schema.Int
})

/** A support request from a signed-in user, about their active org when they have one. */
export const SupportRequest = Schema.Struct({
  id: Schema.String,
  user_id: Schema.String,
  org_id: Schema.NullOr(Schema.String),
  subject: Schema.String,
  message: Schema.String
})

/** The slug is another org's: the unique index decided a race the check under the lock could not see. */
export class SlugTaken extends Data.TaggedError("SlugTaken") {}

const Count = Schema.Struct({ n: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const One = Schema.Struct({ one: Schema.Int })

const isSlugTaken = (e: unknown) =>
  String(e).includes("orgs_slug_key") || String((e as { cause?: unknown }).cause).includes("orgs_slug_key")

export class OrgsRepo extends Effect.Service<OrgsRepo>()("Signalman/OrgsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const orgCount = SqlSchema.single({
      Request: AccountId,
      Result: Count,
      execute: (accountId) => sql`
        SELECT count(*)::int AS n FROM orgs WHERE account_id = ${accountId} AND deleted_at IS NULL
      `
    })

    const slugTaken = SqlSchema.findAll({
      Request: Schema.String,
      Result: One,
      execute: (slug) => sql`SELECT 1 AS one FROM orgs WHERE slug = ${slug}`
    })

    const insertOrg = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, account_id: AccountId, slug: Schema.String, name: Schema.String }),
      execute: (org) =>
        sql`INSERT INTO orgs (id, account_id, slug, name) VALUES (${org.id}, ${org.account_id}, ${org.slug}, ${org.name})`
    })

    const insertMembership = SqlSchema.void({
      Request: Schema.Struct({ org_id: Schema.String, user_id: Schema.String, role: Role }),
      execute: (m) => sql`INSERT INTO memberships (org_id, user_id, role) VALUES (${m.org_id}, ${m.user_id}, ${m.role})`
    })

    const joinOrg = SqlSchema.void({
      Request: Schema.Struct({ org_id: Schema.String, user_id: Schema.String, role: Role }),
      execute: (m) => sql`
        INSERT INTO memberships (org_id, user_id, role) VALUES (${m.org_id}, ${m.user_id}, ${m.role})
        ON CONFLICT (org_id, user_id) DO NOTHING
      `
    })

    /**
     * Pooled quotas: how many of each the account holds now. A resource that does not exist yet in this release
     * holds none; each feature adds its count here as it lands.
     */
    const pooledCounts = SqlSchema.single({
      Request: AccountId,
      Result: PooledCounts,
      execute: (accountId) => sql`
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
              AND (s.expires_at IS NULL OR s.expires_at > now()))::int AS shared_monitors,
          (SELECT count(*) FROM escalation_policies p JOIN orgs o ON o.id = p.org_id
            WHERE p.account_id = ${accountId} AND o.deleted_at IS NULL)::int AS escalation_policies,
          (SELECT count(*) FROM on_call_schedules c JOIN orgs o ON o.id = c.org_id
            WHERE c.account_id = ${accountId} AND o.deleted_at IS NULL)::int AS on_call_schedules
      `
    })

    const membersOf = SqlSchema.findAll({
      Request: OrgId,
      Result: MemberRow,
      execute: (orgId) => sql`
        SELECT u.id AS user_id, u.email, u.name, m.role, m.created_at AS joined_at
        FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${orgId}
        ORDER BY m.role = 'owner' DESC, m.created_at, u.email
      `
    })

    const isMember = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: OrgId, email: Schema.String }),
      Result: One,
      execute: ({ org_id, email }) => sql`
        SELECT 1 AS one FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${org_id} AND u.email = ${email}
      `
    })

    const refreshInvitation = SqlSchema.findOne({
      Request: InvitationIssue,
      Result: InvitationRow,
      execute: (issue) => sql`
        UPDATE invitations SET token_hash = ${issue.token_hash}, role = ${issue.role}, invited_by = ${issue.invited_by},
          expires_at = now() + make_interval(days => ${issue.days})
        WHERE org_id = ${issue.org_id} AND email = ${issue.email}
          AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
        RETURNING id, org_id, email, role, created_at, expires_at
      `
    })

    const pendingOfAccount = SqlSchema.single({
      Request: AccountId,
      Result: Count,
      execute: (accountId) => sql`
        SELECT count(*)::int AS n FROM invitations i JOIN orgs o ON o.id = i.org_id
        WHERE o.account_id = ${accountId} AND i.accepted_at IS NULL AND i.declined_at IS NULL
          AND i.revoked_at IS NULL AND i.expires_at > now()
      `
    })

    const insertInvitation = SqlSchema.single({
      Request: Schema.Struct({ ...InvitationIssue.fields, id: Schema.String }),
      Result: InvitationRow,
      execute: (issue) => sql`
        INSERT INTO invitations (id, org_id, email, role, token_hash, invited_by, expires_at)
        VALUES (${issue.id}, ${issue.org_id}, ${issue.email}, ${issue.role}, ${issue.token_hash}, ${issue.invited_by},
                now() + make_interval(days => ${issue.days}))
        RETURNING id, org_id, email, role, created_at, expires_at
      `
    })

    const pendingOfOrg = SqlSchema.findAll({
      Request: Schema.String,
      Result: InvitationRow,
      execute: (orgId) => sql`
        SELECT id, org_id, email, role, created_at, expires_at FROM invitations
        WHERE org_id = ${orgId} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL AND expires_at > now()
        ORDER BY created_at
      `
    })

    const revokeInvitation = SqlSchema.findAll({
      Request: Schema.Struct({ org_id: Schema.String, id: Schema.String }),
      Result: Id,
      execute: ({ org_id, id }) => sql`
        UPDATE invitations SET revoked_at = now()
        WHERE id = ${id} AND org_id = ${org_id} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
        RETURNING id
      `
    })

    const decline = SqlSchema.void({
      Request: Schema.Uint8ArrayFromSelf,
      execute: (tokenHash) => sql`
        UPDATE invitations SET declined_at = now()
        WHERE token_hash = ${tokenHash} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
      `
    })

    const pending = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: PendingRow,
      execute: (tokenHash) => sql`
        SELECT i.id, i.org_id, i.email, i.role, o.account_id, o.slug
        FROM invitations i JOIN orgs o ON o.id = i.org_id
        WHERE i.token_hash = ${tokenHash} AND i.accepted_at IS NULL AND i.declined_at IS NULL
          AND i.revoked_at IS NULL AND i.expires_at > now() AND o.deleted_at IS NULL
      `
    })

    const accountOfInvitation = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: Schema.Struct({ account_id: AccountId }),
      execute: (tokenHash) => sql`
        SELECT o.account_id FROM invitations i JOIN orgs o ON o.id = i.org_id
        WHERE i.token_hash = ${tokenHash}
      `
    })

    const claimInvitation = SqlSchema.findAll({
      Request: Schema.String,
      Result: Id,
      execute: (id) => sql`
        UPDATE invitations SET accepted_at = now()
        WHERE id = ${id} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
        RETURNING id
      `
    })

    const unclaimInvitation = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE invitations SET accepted_at = NULL WHERE id = ${id}`
    })

    const seats = SqlSchema.single({
      Request: Schema.Struct({ account_id: AccountId, user_id: Schema.String }),
      Result: Seats,
      execute: ({ account_id, user_id }) => sql`
        SELECT count(DISTINCT m.user_id)::int AS people,
               count(*) FILTER (WHERE m.user_id = ${user_id})::int AS mine
        FROM memberships m JOIN orgs o ON o.id = m.org_id
        WHERE o.account_id = ${account_id} AND o.deleted_at IS NULL
      `
    })

    const insertSupportRequest = SqlSchema.void({
      Request: SupportRequest,
      execute: (r) => sql`
        INSERT INTO support_requests (id, user_id, org_id, subject, message)
        VALUES (${r.id}, ${r.user_id}, ${r.org_id}, ${r.subject}, ${r.message})
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: AccountId) => AccountLock.lock(sql, accountId),
      orgCount: (accountId: AccountId) => Effect.map(Effect.orDie(orgCount(accountId)), (row) => row.n),
      slugTaken: (slug: string) => Effect.map(Effect.orDie(slugTaken(slug)), (rows) => rows.length > 0),
      /** A new org; `SlugTaken` when the unique index finds its slug taken after all. */
      insertOrg: (org: {
        readonly id: string
        readonly account_id: AccountId
        readonly slug: string
        readonly name: string
      }) =>
        insertOrg(org).pipe(
          Effect.catchIf(isSlugTaken, () => Effect.fail(new SlugTaken())),
          Effect.catchTag("SqlError", "ParseError", Effect.die)
        ),
      insertOwner: (orgId: string, userId: string) =>
        Effect.orDie(insertMembership({ org_id: orgId, user_id: userId, role: "owner" })),
      /** A membership, unless the user has one in the org already. */
      joinOrg: (orgId: string, userId: string, role: typeof Role.Type) =>
        Effect.orDie(joinOrg({ org_id: orgId, user_id: userId, role })),
      pooledCounts: (accountId: AccountId) => Effect.orDie(pooledCounts(accountId)),
      /** The org's people, owners first, then by when they joined. */
      membersOf: (orgId: OrgId) => Effect.orDie(membersOf(orgId)),
      isMember: (orgId: OrgId, email: string) =>
        Effect.map(Effect.orDie(isMember({ org_id: orgId, email })), (rows) => rows.length > 0),
      /** The pending invitation to the address refreshed with a new token, role and expiry; none when there is none. */
      refreshInvitation: (issue: typeof InvitationIssue.Type) =>
        Effect.map(Effect.orDie(refreshInvitation(issue)), Option.getOrUndefined),
      /** Live invitations across the account's orgs. */
      pendingOfAccount: (accountId: AccountId) => Effect.map(Effect.orDie(pendingOfAccount(accountId)), (row) => row.n),
      insertInvitation: (issue: typeof InvitationIssue.Type & { readonly id: string }) =>
        Effect.orDie(insertInvitation(issue)),
      /** The org's live invitations, oldest first. */
      pendingOfOrg: (orgId: string) => Effect.orDie(pendingOfOrg(orgId)),
      /** Revokes a pending invitation of the org; false when there is none. */
      revokeInvitation: (orgId: string, id: string) =>
        Effect.map(Effect.orDie(revokeInvitation({ org_id: orgId, id })), (rows) => rows.length > 0),
      decline: (tokenHash: Uint8Array) => Effect.orDie(decline(tokenHash)),
      /** The live invitation a token names, of an org not deleted. */
      pending: (tokenHash: Uint8Array) => Effect.map(Effect.orDie(pending(tokenHash)), Option.getOrUndefined),
      /** The account of the org a token's invitation is to, whatever its state. */
      accountOfInvitation: (tokenHash: Uint8Array) =>
        Effect.map(
          Effect.orDie(accountOfInvitation(tokenHash)),
          Option.match({ onNone: () => undefined, onSome: (row) => row.account_id })
        ),
      /** Consumes the invitation if nobody else has; false when it was gone. */
      claimInvitation: (id: string) => Effect.map(Effect.orDie(claimInvitation(id)), (rows) => rows.length > 0),
      /** Gives a consumed invitation back. */
      unclaimInvitation: (id: string) => Effect.orDie(unclaimInvitation(id)),
      seats: (accountId: AccountId, userId: string) => Effect.orDie(seats({ account_id: accountId, user_id: userId })),
      insertSupportRequest: (request: typeof SupportRequest.Type) => Effect.orDie(insertSupportRequest(request))
    }
  })
}) {}
