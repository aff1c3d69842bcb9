/**
 * The agents' SQL: finding an agent by its token's prefix, its standing (revoked, its region), what its hello
 * reports, the stream's sign of life, the receipts that make a delivered result count once, and the local region's
 * browser stamp. Several items travel as one JSON parameter, so a batch is one statement.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { CheckKind } from "@signalman/core/CheckSpec"
import { OrgId } from "@signalman/core/Identity"
import * as Region from "@signalman/core/Region"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** An agent whose stored prefix matches a token: its hash decides whether the token is its. */
export const Candidate = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  region_id: Schema.String,
  hash: Schema.String,
  revoked: Schema.Boolean
})
export type Candidate = typeof Candidate.Type

/** Where an agent stands now: revoked or not, and whether its last hello reported a browser. */
export const Standing = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  region_id: Schema.String,
  revoked: Schema.Boolean,
  flows: Schema.Boolean
})
export type Standing = typeof Standing.Type

/** What an agent says of itself in its hello. */
export const Reported = Schema.Struct({
  id: Schema.String,
  version: Schema.String,
  browser: Schema.NullOr(Schema.String),
  concurrency: Schema.Int
})

/**
 * A stream's sign of life: the agents still standing, whether their region takes work, and whether they reported a
 * browser in their last hello (flows handed out at once go only to those).
 */
const Alive = Schema.Struct({ id: Schema.String, region_enabled: Schema.Boolean, browser: Schema.Boolean })

/** A delivered result as the receipts see it: its id and its slot. */
export interface Slot {
  readonly result_id: string
  readonly target_id: string
  /** The job's `due`, as the claim answered it. */
  readonly due: string
}

/**
 * A delivered result judged against what the server holds: the monitor it is for (null fields when the monitor is
 * gone; `in_region` false when it no longer runs in the agent's region), whether the result was stored before (its
 * id) or its slot was, by another result; and whether its slot is still the one its schedule row waits on
 * (`current`), which alone its release may end the lease of.
 */
export const Judgement = Schema.Struct({
  result_id: Schema.String,
  target_id: Schema.NullOr(Schema.String),
  org_id: Schema.NullOr(OrgId),
  interval_secs: Schema.NullOr(Schema.Number),
  kind: Schema.NullOr(CheckKind),
  in_region: Schema.Boolean,
  known: Schema.Boolean,
  slot_taken: Schema.Boolean,
  current: Schema.Boolean
})
export type Judgement = typeof Judgement.Type

const Id = Schema.Struct({ id: Schema.String })
const ResultId = Schema.Struct({ result_id: Schema.String })

/** The receipts did not all go in: another delivery of one of these results or slots committed meanwhile. */
export class ReceiptConflict extends Data.TaggedError("ReceiptConflict") {}

export class AgentsRepo extends Effect.Service<AgentsRepo>()("Signalman/AgentsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const candidates = SqlSchema.findAll({
      Request: Schema.String,
      Result: Candidate,
      execute: (prefix) => sql`
        SELECT id, name, region_id, hash, revoked_at IS NOT NULL AS revoked FROM agents WHERE prefix = ${prefix}
      `
    })

    // Read and touched at once: the recheck of a cached token is also the agent's sign of life.
    const standing = SqlSchema.findOne({
      Request: Schema.String,
      Result: Standing,
      execute: (id) => sql`
        WITH touched AS (
          UPDATE agents SET last_seen_at = now() WHERE id = ${id} AND revoked_at IS NULL RETURNING id
        )
        SELECT a.id, a.name, a.region_id, a.revoked_at IS NOT NULL AS revoked, a.browser IS NOT NULL AS flows
        FROM agents a WHERE a.id = ${id}
      `
    })

    const report = SqlSchema.findAll({
      Request: Reported,
      Result: Id,
      execute: (r) => sql`
        UPDATE agents SET version = ${r.version}, browser = ${r.browser}, concurrency = ${r.concurrency},
          last_seen_at = now()
        WHERE id = ${r.id} AND revoked_at IS NULL
        RETURNING id
      `
    })

    const streaming = SqlSchema.findAll({
      Request: Schema.Struct({ ids: Schema.Array(Schema.String), secs: Schema.Number }),
      Result: Alive,
      execute: ({ ids, secs }) => sql`
        UPDATE agents a SET last_seen_at = now(), streaming_until = now() + make_interval(secs => ${secs})
        FROM regions r
        WHERE a.id = ANY(${ids}::uuid[]) AND a.revoked_at IS NULL AND r.id = a.region_id
        RETURNING a.id, r.enabled AS region_enabled, a.browser IS NOT NULL AS browser
      `
    })

    const streamEnded = SqlSchema.void({
      Request: Schema.String,
      execute: (id) => sql`UPDATE agents SET streaming_until = NULL WHERE id = ${id}`
    })

    // One statement a batch, the monitors' standing and the receipts' together: each round trip on the embedded
    // database's one connection is time every other agent and the scheduler wait.
    const judge = SqlSchema.findAll({
      Request: Schema.Struct({ slots: Schema.String, region: Schema.String }),
      Result: Judgement,
      execute: ({ slots, region }) => sql`
        SELECT x.result_id::text AS result_id, t.id::text AS target_id, t.org_id, t.interval_secs, t.kind,
               COALESCE(${region} = ANY(t.regions), false) AS in_region,
               EXISTS (SELECT 1 FROM agent_receipts r WHERE r.result_id = x.result_id) AS known,
               EXISTS (
                 SELECT 1 FROM agent_receipts r
                 WHERE r.target_id = x.target_id AND r.region = ${region} AND r.due = x.due
               ) AS slot_taken,
               EXISTS (
                 SELECT 1 FROM schedules s
                 WHERE s.target_id = x.target_id AND s.region = ${region} AND s.next_run_at = x.due
               ) AS current
        FROM jsonb_to_recordset(${slots}::jsonb) AS x(result_id uuid, target_id uuid, due timestamptz)
        LEFT JOIN targets t ON t.id = x.target_id
      `
    })

    const insertReceipts = SqlSchema.findAll({
      Request: Schema.Struct({ slots: Schema.String, region: Schema.String, agent_id: Schema.String }),
      Result: ResultId,
      execute: ({ slots, region, agent_id }) => sql`
        INSERT INTO agent_receipts (result_id, target_id, region, due, agent_id)
        SELECT x.result_id, x.target_id, ${region}, x.due, ${agent_id}::uuid
        FROM jsonb_to_recordset(${slots}::jsonb) AS x(result_id uuid, target_id uuid, due timestamptz)
        ON CONFLICT DO NOTHING
        RETURNING result_id
      `
    })

    const localBrowser = SqlSchema.void({
      Request: Schema.Void,
      execute: () => sql`UPDATE regions SET browser_seen_at = now() WHERE id = ${Region.LOCAL}`
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      /** The agents whose stored prefix is this token's (normally one). */
      candidates: (prefix: string) => Effect.orDie(candidates(prefix)),
      /** The agent's standing now, its last sign of life stamped when it is not revoked; none when it is gone. */
      standing: (id: string) => Effect.map(Effect.orDie(standing(id)), Option.getOrUndefined),
      /** Stores what the agent reported; false when it is revoked or gone. */
      report: (reported: typeof Reported.Type) => Effect.map(Effect.orDie(report(reported)), (rows) => rows.length > 0),
      /**
       * Stamps these agents as streaming for `secs` more and seen now; answers those still standing (not revoked,
       * their region there) with whether their region takes work and whether they have a browser.
       */
      streaming: (ids: ReadonlyArray<string>, secs: number) =>
        ids.length === 0
          ? Effect.succeed<ReadonlyArray<typeof Alive.Type>>([])
          : Effect.orDie(streaming({ ids, secs })),
      /** The agent's last stream in this process closed. */
      streamEnded: (id: string) => Effect.orDie(streamEnded(id)),
      /**
       * For each result (its slot's due time well-formed), its monitor's standing and whether it or its slot is held
       * already, and whether its slot is the row's current one.
       */
      judge: (slots: ReadonlyArray<Slot>, region: string) =>
        slots.length === 0
          ? Effect.succeed<ReadonlyArray<Judgement>>([])
          : Effect.orDie(judge({ slots: JSON.stringify(slots), region })),
      /**
       * Records the results' receipts in the surrounding transaction; fails with `ReceiptConflict` (so the
       * transaction rolls back) when any was taken meanwhile by a concurrent delivery.
       */
      insertReceipts: (slots: ReadonlyArray<Slot>, region: string, agentId: string) =>
        slots.length === 0
          ? Effect.void
          : Effect.flatMap(
              Effect.orDie(insertReceipts({ slots: JSON.stringify(slots), region, agent_id: agentId })),
              (rows) => (rows.length === slots.length ? Effect.void : Effect.fail(new ReceiptConflict()))
            ),
      /** This process runs the local region's checks with a browser: stamped now. */
      localBrowser: Effect.orDie(localBrowser())
    }
  })
}) {}
