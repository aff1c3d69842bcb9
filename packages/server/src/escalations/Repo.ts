/**
 * The escalation walks' SQL (migration 0029): a walk started beside the incident it belongs to, claimed when a page
 * is due under `FOR UPDATE SKIP LOCKED`, advanced or stopped; the pages it sent; and the reads a page needs to find
 * its recipients (an org's member, a schedule's rules, a channel). Policies and schedules are the on-call
 * feature's tables, read here as the documents core decodes (`@signalman/core/oncall/*`).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId } from "@signalman/core/Identity"
import { Impact } from "@signalman/core/Incident"
import { PageRecipient } from "@signalman/core/IncidentEscalation"
import * as EscalationPolicy from "@signalman/core/oncall/EscalationPolicy"
import * as Schedule from "@signalman/core/oncall/Schedule"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transaction from "../database/Transaction.js"

const utc = Schema.DateTimeUtcFromDate

/** A policy's steps as stored (the document core's `EscalationPolicy` holds). */
const Steps = Schema.Array(EscalationPolicy.Step)

/** The policy a monitor binds, as it stands now. */
export const BoundPolicy = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  steps: Steps,
  repeat: Schema.Int
})
export type BoundPolicy = typeof BoundPolicy.Type

/** A monitor's bound policy and the account whose plan decides whether it may walk. */
export const BoundPolicyOfAccount = Schema.Struct({ ...BoundPolicy.fields, account_id: AccountId })

/** Why a walk stopped. */
export const StopReason = Schema.Literal("acknowledged", "resolved", "recovered", "exhausted")
export type StopReason = typeof StopReason.Type

/** A walk to start: the policy copied as it stands, and its first page's due time. */
export const NewWalk = Schema.Struct({
  incident_id: Schema.String,
  org_id: Schema.String,
  target_id: Schema.String,
  policy: BoundPolicy,
  opened_at: utc,
  next_page: Schema.Int,
  next_due_at: utc
})

/** A due walk, locked, with what its page's notice says about the incident and its monitor. */
export const DueWalk = Schema.Struct({
  incident_id: Schema.String,
  org_id: Schema.String,
  target_id: Schema.String,
  steps: Steps,
  repeat: Schema.Int,
  opened_at: utc,
  next_page: Schema.Int,
  next_due_at: utc,
  number: Schema.Int,
  started_at: utc,
  impact: Impact,
  open: Schema.Boolean,
  acknowledged: Schema.Boolean,
  close_reason: Schema.NullOr(Schema.Literal("recovered", "resolved")),
  /** The failing check's error as the incident's opening notice told it. */
  cause: Schema.NullOr(Schema.String),
  target_name: Schema.String,
  target_kind: Schema.String
})
export type DueWalk = typeof DueWalk.Type

/** A walk as an incident's read shows it. */
export const StoredWalk = Schema.Struct({
  policy_id: Schema.NullOr(Schema.String),
  policy_name: Schema.String,
  steps: Steps,
  repeat: Schema.Int,
  opened_at: utc,
  next_page: Schema.Int,
  next_due_at: Schema.NullOr(utc),
  stopped_at: Schema.NullOr(utc),
  stop_reason: Schema.NullOr(StopReason)
})
export type StoredWalk = typeof StoredWalk.Type

/** A page sent (`n` counts from 1). */
export const StoredPage = Schema.Struct({
  n: Schema.Int,
  round: Schema.Int,
  step: Schema.Int,
  due_at: utc,
  paged_at: utc,
  recipients: Schema.Array(PageRecipient)
})
export type StoredPage = typeof StoredPage.Type

const NewPage = Schema.Struct({
  ...StoredPage.fields,
  incident_id: Schema.String,
  notice_id: Schema.NullOr(Schema.String),
  recipients: Schema.parseJson(Schema.Array(PageRecipient))
})

/** A member of the org (not deleted), with the address a page mails. */
export const Member = Schema.Struct({ id: Schema.String, email: Schema.String })

/** A schedule's rules as stored. */
export const StoredSchedule = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  time_zone: Schema.String,
  layers: Schema.Array(Schedule.Layer),
  overrides: Schema.Array(Schedule.Override)
})
export type StoredSchedule = typeof StoredSchedule.Type

/** A channel of the org. */
export const OrgChannel = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  kind: Schema.String,
  enabled: Schema.Boolean
})

const IncidentId = Schema.Struct({ incident_id: Schema.String })
const OrgAndId = Schema.Struct({ org_id: Schema.String, id: Schema.String })

export class EscalationRepo extends Effect.Service<EscalationRepo>()("Signalman/EscalationRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const boundPolicy = SqlSchema.findOne({
      Request: Schema.String,
      Result: BoundPolicyOfAccount,
      execute: (targetId) => sql`
        SELECT p.id::text AS id, p.name, p.steps, p.repeat, o.account_id::text AS account_id
        FROM targets t JOIN escalation_policies p ON p.id = t.escalation_policy_id AND p.org_id = t.org_id
        JOIN orgs o ON o.id = t.org_id
        WHERE t.id = ${targetId}
      `
    })

    const start = SqlSchema.void({
      Request: NewWalk,
      execute: (walk) => sql`
        INSERT INTO incident_escalations (incident_id, org_id, target_id, policy_id, policy_name, steps, repeat,
          opened_at, next_page, next_due_at)
        VALUES (${walk.incident_id}, ${walk.org_id}, ${walk.target_id}, ${walk.policy.id}, ${walk.policy.name},
          ${JSON.stringify(walk.policy.steps)}::jsonb, ${walk.policy.repeat}, ${walk.opened_at}, ${walk.next_page},
          ${walk.next_due_at})
        ON CONFLICT (incident_id) DO NOTHING
      `
    })

    const stop = SqlSchema.findAll({
      Request: Schema.Struct({ incident_id: Schema.String, reason: StopReason, at: utc }),
      Result: IncidentId,
      execute: ({ incident_id, reason, at }) => sql`
        UPDATE incident_escalations SET stopped_at = ${at}, stop_reason = ${reason}, next_due_at = NULL
        WHERE incident_id = ${incident_id} AND stopped_at IS NULL
        RETURNING incident_id::text AS incident_id
      `
    })

    const lockDue = SqlSchema.findOne({
      Request: Schema.Struct({ now: utc, seen: Schema.Array(Schema.String) }),
      Result: DueWalk,
      execute: ({ now, seen }) => sql`
        SELECT e.incident_id::text AS incident_id, e.org_id::text AS org_id, e.target_id::text AS target_id, e.steps,
          e.repeat, e.opened_at, e.next_page, e.next_due_at, i.number, i.started_at, i.impact,
          i.ended_at IS NULL AS open, i.acknowledged_at IS NOT NULL AS acknowledged, i.close_reason,
          (SELECT n.payload->'incident'->>'cause' FROM notices n
            WHERE n.incident_id = e.incident_id AND n.kind = 'opened' LIMIT 1) AS cause,
          t.name AS target_name, t.kind AS target_kind
        FROM incident_escalations e JOIN incidents i ON i.id = e.incident_id JOIN targets t ON t.id = e.target_id
        WHERE e.next_due_at <= ${now}
          ${seen.length === 0 ? sql`` : sql`AND e.incident_id NOT IN ${sql.in(seen)}`}
        ORDER BY e.next_due_at, e.incident_id
        LIMIT 1
        FOR UPDATE OF e SKIP LOCKED
      `
    })

    const advance = SqlSchema.void({
      Request: Schema.Struct({ incident_id: Schema.String, next_page: Schema.Int, next_due_at: utc }),
      execute: (walk) => sql`
        UPDATE incident_escalations SET next_page = ${walk.next_page}, next_due_at = ${walk.next_due_at}
        WHERE incident_id = ${walk.incident_id}
      `
    })

    const recordPage = SqlSchema.findAll({
      Request: NewPage,
      Result: IncidentId,
      execute: (page) => sql`
        INSERT INTO escalation_pages (incident_id, n, round, step, due_at, paged_at, notice_id, recipients)
        VALUES (${page.incident_id}, ${page.n}, ${page.round}, ${page.step}, ${page.due_at}, ${page.paged_at},
          ${page.notice_id}, ${page.recipients}::jsonb)
        ON CONFLICT (incident_id, n) DO NOTHING
        RETURNING incident_id::text AS incident_id
      `
    })

    // The timeline's system note, as the incident writer writes its own (kind note, no phase, nobody's).
    const note = SqlSchema.void({
      Request: Schema.Struct({ id: Schema.String, incident_id: Schema.String, message: Schema.String, at: utc }),
      execute: (n) => sql`
        INSERT INTO incident_updates (id, incident_id, kind, phase, message, created_by, created_at)
        VALUES (${n.id}, ${n.incident_id}, 'note', NULL, ${n.message}, NULL, ${n.at})
      `
    })

    const member = SqlSchema.findOne({
      Request: OrgAndId,
      Result: Member,
      execute: ({ org_id, id }) => sql`
        SELECT u.id::text AS id, u.email FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${org_id} AND m.user_id::text = lower(${id}) AND u.deleted_at IS NULL
      `
    })

    // Members who left (or whose account was purged) are no longer on call, as the on-call API reads a schedule.
    const memberIds = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (orgId) => sql`
        SELECT m.user_id::text AS id FROM memberships m JOIN users u ON u.id = m.user_id
        WHERE m.org_id = ${orgId} AND u.deleted_at IS NULL
      `
    })

    const schedule = SqlSchema.findOne({
      Request: OrgAndId,
      Result: StoredSchedule,
      execute: ({ org_id, id }) => sql`
        SELECT id::text AS id, name, time_zone, layers, overrides FROM on_call_schedules
        WHERE org_id = ${org_id} AND id::text = lower(${id})
      `
    })

    const channel = SqlSchema.findOne({
      Request: OrgAndId,
      Result: OrgChannel,
      execute: ({ org_id, id }) => sql`
        SELECT id::text AS id, name, kind, enabled FROM channels WHERE org_id = ${org_id} AND id::text = lower(${id})
      `
    })

    const walkOf = SqlSchema.findOne({
      Request: Schema.String,
      Result: StoredWalk,
      execute: (incidentId) => sql`
        SELECT policy_id::text AS policy_id, policy_name, steps, repeat, opened_at, next_page, next_due_at,
          stopped_at, stop_reason
        FROM incident_escalations WHERE incident_id = ${incidentId}
      `
    })

    const pagesOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: StoredPage,
      execute: (incidentId) => sql`
        SELECT n, round, step, due_at, paged_at, recipients FROM escalation_pages
        WHERE incident_id = ${incidentId} ORDER BY n
      `
    })

    const one = <A>(found: Option.Option<A>) => Option.getOrUndefined(found)

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),
      /** The policy the monitor binds now; undefined when none. */
      boundPolicy: (targetId: string) => Effect.map(Effect.orDie(boundPolicy(targetId)), one),
      /** Starts a walk once: a second start of the same incident (a fold repeated) writes nothing. */
      start: (walk: typeof NewWalk.Type) => Effect.orDie(start(walk)),
      /** Stops a walk still going; true when this call stopped it. */
      stop: (incidentId: string, reason: StopReason, at: typeof utc.Type) =>
        Effect.map(Effect.orDie(stop({ incident_id: incidentId, reason, at })), (rows) => rows.length === 1),
      /** The walk due first at `now`, locked, other than those `seen`; those another worker holds are skipped. */
      lockDue: (now: typeof utc.Type, seen: ReadonlyArray<string>) =>
        Effect.map(Effect.orDie(lockDue({ now, seen })), one),
      advance: (incidentId: string, nextPage: number, nextDueAt: typeof utc.Type) =>
        Effect.orDie(advance({ incident_id: incidentId, next_page: nextPage, next_due_at: nextDueAt })),
      /** Records a page once; false when the walk already has a page `n`. */
      recordPage: (page: typeof NewPage.Type) =>
        Effect.map(Effect.orDie(recordPage(page)), (rows) => rows.length === 1),
      note: (id: string, incidentId: string, message: string, at: typeof utc.Type) =>
        Effect.orDie(note({ id, incident_id: incidentId, message, at })),
      member: (orgId: string, id: string) => Effect.map(Effect.orDie(member({ org_id: orgId, id })), one),
      /** The ids of the org's current members. */
      memberIds: (orgId: string) =>
        Effect.map(Effect.orDie(memberIds(orgId)), (rows) => new Set(rows.map((r) => r.id))),
      schedule: (orgId: string, id: string) => Effect.map(Effect.orDie(schedule({ org_id: orgId, id })), one),
      channel: (orgId: string, id: string) => Effect.map(Effect.orDie(channel({ org_id: orgId, id })), one),
      walkOf: (incidentId: string) => Effect.map(Effect.orDie(walkOf(incidentId)), one),
      pagesOf: (incidentId: string) => Effect.orDie(pagesOf(incidentId))
    }
  })
}) {}
