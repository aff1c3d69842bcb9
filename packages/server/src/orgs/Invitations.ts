/**
 * Invitations: issued by owners to an address, carried through any sign-in, accepted once. Accepting takes a seat
 * in the inviting account (`max_members` counts distinct people across its orgs) under a per-account lock; the
 * loser of a seat race keeps an unconsumed invitation.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { AccountId, InvitationId, OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Invalidation } from "../auth/Invalidation.js"
import { sha256 } from "../auth/Secrets.js"
import { Plans } from "../limits/Plans.js"

const PendingRow = Schema.Struct({
  id: InvitationId,
  org_id: OrgId,
  email: Schema.String,
  role: Schema.Literal("owner", "member"),
  account_id: AccountId,
  slug: Schema.String
})

export type AcceptOutcome =
  | { readonly _tag: "Joined"; readonly orgId: string; readonly slug: string }
  | { readonly _tag: "Failed"; readonly reason: "unknown" | "email_mismatch" | "no_seat" }

export class Invitations extends Effect.Service<Invitations>()("Signalman/Invitations", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const plans = yield* Plans
    const invalidation = yield* Invalidation
    const decode = Schema.decodeUnknown(Schema.Array(PendingRow))

    const pending = (token: string) =>
      sql`
        SELECT i.id, i.org_id, i.email, i.role, o.account_id, o.slug
        FROM invitations i JOIN orgs o ON o.id = i.org_id
        WHERE i.token_hash = ${sha256(token)} AND i.accepted_at IS NULL AND i.declined_at IS NULL
          AND i.revoked_at IS NULL AND i.expires_at > now() AND o.deleted_at IS NULL
      `.pipe(
        Effect.flatMap(decode),
        Effect.map((rows) => rows[0]),
        Effect.orDie
      )

    /** The address a live invitation is for, if the token names one. */
    const emailFor = (token: string) => Effect.map(pending(token), (row) => row?.email)

    const accept = (token: string, user: { readonly id: string; readonly email: string }) =>
      Effect.gen(function* () {
        const invitation = yield* pending(token)
        if (invitation === undefined) return { _tag: "Failed", reason: "unknown" } as AcceptOutcome
        if (invitation.email !== user.email) return { _tag: "Failed", reason: "email_mismatch" } as AcceptOutcome
        const plan = yield* plans.forAccount(invitation.account_id)
        return yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${invitation.account_id}`}))`
              const claimed = yield* sql<{ id: string }>`
                UPDATE invitations SET accepted_at = now()
                WHERE id = ${invitation.id} AND accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
                RETURNING id
              `
              if (claimed.length === 0) return { _tag: "Failed", reason: "unknown" } as AcceptOutcome
              const [seats] = yield* sql<{ people: number; mine: number }>`
                SELECT count(DISTINCT m.user_id)::int AS people,
                       count(*) FILTER (WHERE m.user_id = ${user.id})::int AS mine
                FROM memberships m JOIN orgs o ON o.id = m.org_id
                WHERE o.account_id = ${invitation.account_id} AND o.deleted_at IS NULL
              `
              // Someone already holding a seat in a sibling org takes no new one.
              if ((seats?.mine ?? 0) === 0 && (seats?.people ?? 0) >= plan.quotas.max_members) {
                // The seat race's loser keeps its invitation: un-consume it.
                yield* sql`UPDATE invitations SET accepted_at = NULL WHERE id = ${invitation.id}`
                return { _tag: "Failed", reason: "no_seat" } as AcceptOutcome
              }
              yield* sql`
                INSERT INTO memberships (org_id, user_id, role) VALUES (${invitation.org_id}, ${user.id}, ${invitation.role})
                ON CONFLICT (org_id, user_id) DO NOTHING
              `
              return { _tag: "Joined", orgId: invitation.org_id, slug: invitation.slug } as AcceptOutcome
            })
          )
          .pipe(
            Effect.orDie,
            Effect.tap((outcome) => (outcome._tag === "Joined" ? invalidation.publish(`user:${user.id}`) : Effect.void))
          )
      })

    return { emailFor, accept }
  }),
  dependencies: [Plans.Default, Invalidation.Default]
}) {}
