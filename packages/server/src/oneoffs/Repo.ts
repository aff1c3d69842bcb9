/**
 * The one-off runs' SQL (`one_off_runs`, migration 0021): a request's run written and waited on, where regions stand
 * (enabled, an agent connected, one with a browser), a stream's claim of the runs of its agents' regions, and an
 * agent's answers taken once. Several items travel as one JSON parameter, so a batch is one statement.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { CheckKind } from "@signalman/core/CheckSpec"
import { OrgId } from "@signalman/core/Identity"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** A run as the request writes it. */
export const NewRun = Schema.Struct({
  id: Schema.String,
  region: Schema.String,
  kind: Schema.String,
  org_id: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  requested_by: Schema.String,
  check_sealed: Schema.String,
  /** ISO timestamps. */
  start_by: Schema.String,
  deadline: Schema.String
})
export type NewRun = typeof NewRun.Type

/** What the waiting request reads of its run: answered or not, and the result (the API's `CheckResult`, encoded). */
export const Answer = Schema.Struct({
  answered: Schema.Boolean,
  result: Schema.NullOr(Schema.Unknown)
})
export type Answer = typeof Answer.Type

/**
 * Where a region stands for a one-off run: enabled, whether an agent of it (not revoked) has a stream open now, as
 * the operator's `connected` reads it, and whether one of those reported a browser.
 */
export const Standing = Schema.Struct({
  id: Schema.String,
  enabled: Schema.Boolean,
  connected: Schema.Boolean,
  flow_connected: Schema.Boolean
})
export type Standing = typeof Standing.Type

/** For each region a process holds streams of: the agent its runs go to this pass, and the one for flows (if any). */
export interface Assignment {
  readonly region: string
  readonly agent_id: string
  readonly flow_agent_id: string | null
}

/** A run claimed for an agent, its check still sealed. */
export const Claimed = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  agent_id: Schema.String,
  check_sealed: Schema.String,
  start_by: Schema.DateFromSelf
})
export type Claimed = typeof Claimed.Type

/** A run an agent may still answer: its own, not answered, its request still waiting. */
export const Open = Schema.Struct({
  id: Schema.String,
  org_id: OrgId,
  target_id: Schema.NullOr(Schema.String),
  /** The monitor's kind, while it exists (a check-now's; null for a one-off test of a check). */
  kind: Schema.NullOr(CheckKind),
  created_at: Schema.DateFromSelf
})
export type Open = typeof Open.Type

/** An answer to record: the run and its result (encoded). */
export interface Finished {
  readonly id: string
  readonly result: unknown
}

const Id = Schema.Struct({ id: Schema.String })

/** Not every answer went in: another delivery answered one of these runs meanwhile, or its request gave up. */
export class AnswerConflict extends Data.TaggedError("AnswerConflict") {}

export class OneOffsRepo extends Effect.Service<OneOffsRepo>()("Signalman/OneOffsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = SqlSchema.void({
      Request: NewRun,
      execute: (r) => sql`
        INSERT INTO one_off_runs (id, region, kind, org_id, target_id, requested_by, check_sealed, start_by, deadline)
        VALUES (${r.id}, ${r.region}, ${r.kind}, ${r.org_id}, ${r.target_id}, ${r.requested_by}, ${r.check_sealed},
          ${r.start_by}::timestamptz, ${r.deadline}::timestamptz)
      `
    })

    const answer = SqlSchema.findOne({
      Request: Schema.String,
      Result: Answer,
      execute: (id) => sql`SELECT answered_at IS NOT NULL AS answered, result FROM one_off_runs WHERE id = ${id}`
    })

    // At its deadline the request closes its run itself, so no answer is taken after it stopped waiting.
    const close = SqlSchema.findAll({
      Request: Schema.String,
      Result: Id,
      execute: (id) => sql`
        UPDATE one_off_runs SET answered_at = now(), check_sealed = NULL
        WHERE id = ${id} AND answered_at IS NULL
        RETURNING id::text AS id
      `
    })

    const remove = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`DELETE FROM one_off_runs WHERE id = ${id}`
    })

    const standing = SqlSchema.findAll({
      Request: Schema.Array(Schema.String),
      Result: Standing,
      execute: (ids) => sql`
        SELECT r.id, r.enabled,
          EXISTS (
            SELECT 1 FROM agents a
            WHERE a.region_id = r.id AND a.revoked_at IS NULL AND a.streaming_until > now()
          ) AS connected,
          EXISTS (
            SELECT 1 FROM agents a
            WHERE a.region_id = r.id AND a.revoked_at IS NULL AND a.streaming_until > now() AND a.browser IS NOT NULL
          ) AS flow_connected
        FROM regions r WHERE r.id = ANY(${ids}::text[])
      `
    })

    // Oldest first; a flow goes only to an agent with a browser. The row lock keeps two processes (or two passes)
    // from claiming one run; a run past the time its agent must start it by is left to its request's deadline.
    const claim = SqlSchema.findAll({
      Request: Schema.Struct({ assignments: Schema.String, limit: Schema.Int }),
      Result: Claimed,
      execute: ({ assignments, limit }) => sql`
        WITH assign AS (
          SELECT * FROM jsonb_to_recordset(${assignments}::jsonb) AS x(region text, agent_id uuid, flow_agent_id uuid)
        ),
        picked AS (
          SELECT o.id, CASE WHEN o.kind = 'flow' THEN a.flow_agent_id ELSE a.agent_id END AS agent_id
          FROM one_off_runs o JOIN assign a ON a.region = o.region
          WHERE o.agent_id IS NULL AND o.answered_at IS NULL AND o.start_by > now()
            AND (o.kind <> 'flow' OR a.flow_agent_id IS NOT NULL)
          ORDER BY o.created_at
          LIMIT ${limit}
          FOR UPDATE OF o SKIP LOCKED
        )
        UPDATE one_off_runs o SET agent_id = picked.agent_id, dispatched_at = now()
        FROM picked WHERE o.id = picked.id
        RETURNING o.id::text AS id, o.org_id, o.agent_id::text AS agent_id, o.check_sealed, o.start_by
      `
    })

    // A claimed run that could not be sent (the stream closed meanwhile) goes back for another pass or process.
    const release = SqlSchema.void({
      Request: Schema.Array(Schema.String),
      execute: (ids) => sql`
        UPDATE one_off_runs SET agent_id = NULL, dispatched_at = NULL
        WHERE id = ANY(${ids}::uuid[]) AND answered_at IS NULL
      `
    })

    const open = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Schema.Array(Schema.String), agent_id: Schema.String }),
      Result: Open,
      execute: ({ ids, agent_id }) => sql`
        SELECT o.id::text AS id, o.org_id, o.target_id::text AS target_id, t.kind, o.created_at
        FROM one_off_runs o LEFT JOIN targets t ON t.id = o.target_id
        WHERE o.id = ANY(${ids}::uuid[]) AND o.agent_id = ${agent_id}::uuid AND o.answered_at IS NULL
      `
    })

    const finish = SqlSchema.findAll({
      Request: Schema.Struct({ answers: Schema.String, agent_id: Schema.String }),
      Result: Id,
      execute: ({ answers, agent_id }) => sql`
        UPDATE one_off_runs o SET answered_at = now(), result = x.result, check_sealed = NULL
        FROM jsonb_to_recordset(${answers}::jsonb) AS x(id uuid, result jsonb)
        WHERE o.id = x.id AND o.agent_id = ${agent_id}::uuid AND o.answered_at IS NULL
        RETURNING o.id::text AS id
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** Writes a request's run. */
      insert: (run: NewRun) => Effect.orDie(insert(run)),
      /** The run's answer so far; none when the run is gone (its monitor was deleted). */
      answer: (id: string) => Effect.map(Effect.orDie(answer(id)), Option.getOrUndefined),
      /** Closes a run its request stops waiting for; false when an answer came first. */
      close: (id: string) => Effect.map(Effect.orDie(close(id)), (rows) => rows.length > 0),
      /** Deletes a run its request is done with. */
      remove: (id: string) => Effect.orDie(remove(id)),
      /** Where these regions stand (unknown ones are absent). */
      standing: (ids: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.succeed<ReadonlyArray<Standing>>([]) : Effect.orDie(standing(ids)),
      /** Claims up to `limit` waiting runs of the assignments' regions for their agents. */
      claim: (assignments: ReadonlyArray<Assignment>, limit: number) =>
        assignments.length === 0
          ? Effect.succeed<ReadonlyArray<Claimed>>([])
          : Effect.orDie(claim({ assignments: JSON.stringify(assignments), limit })),
      /** Gives claimed runs back, unsent. */
      release: (ids: ReadonlyArray<string>) => (ids.length === 0 ? Effect.void : Effect.orDie(release(ids))),
      /** The runs among `ids` that the agent may still answer. */
      open: (ids: ReadonlyArray<string>, agentId: string) =>
        ids.length === 0 ? Effect.succeed<ReadonlyArray<Open>>([]) : Effect.orDie(open({ ids, agent_id: agentId })),
      /**
       * Records the answers in the surrounding transaction; fails with `AnswerConflict` (so the transaction rolls
       * back) when any of them was answered or closed meanwhile.
       */
      finish: (answers: ReadonlyArray<Finished>, agentId: string) =>
        answers.length === 0
          ? Effect.void
          : Effect.flatMap(Effect.orDie(finish({ answers: JSON.stringify(answers), agent_id: agentId })), (rows) =>
              rows.length === answers.length ? Effect.void : Effect.fail(new AnswerConflict())
            )
    }
  })
}) {}
