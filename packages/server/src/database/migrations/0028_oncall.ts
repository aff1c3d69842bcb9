import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// On-call (issue 21; docs/on-call.md). account_id is the quota subject on both tables (max_on_call_schedules and
// max_escalation_policies count across the account's orgs, under the account lock).
//
// on_call_schedules: a schedule is read and written whole, so its layers and overrides are stored as the documents
// the API shows (`@signalman/core/oncall/Schedule`), decoded with that Schema on the way out. The user ids they
// name are checked against the org's members when written.
//
// escalation_policies: likewise, steps is the document of `@signalman/core/oncall/EscalationPolicy`; the users,
// schedules and channels its targets name are checked to be the org's when written, and a schedule named by a
// policy cannot be deleted (409), under the org's reference lock.
//
// targets.escalation_policy_id: the monitor's policy (nullable). The foreign key names (org_id, policy) so a
// monitor can only bind a policy of its own org; deleting a policy some monitor binds is refused by the service
// (409), and the key's default NO ACTION is the backstop (a whole org deleted takes both in one statement).
//
// orgs.default_escalation_policy_id: the org's default policy (nullable), set with
// `PUT /api/v1/oncall/default-escalation-policy`; duplicate rule 3's copies follow it when they may not copy the
// source's policy. Same (org, policy) key, so the default is always one of the org's own.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE on_call_schedules (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name text NOT NULL,
      time_zone text NOT NULL,
      layers jsonb NOT NULL,
      overrides jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, id)
    )
  `
  yield* sql`CREATE INDEX on_call_schedules_org ON on_call_schedules (org_id, created_at, id)`
  yield* sql`CREATE INDEX on_call_schedules_account ON on_call_schedules (account_id)`

  yield* sql`
    CREATE TABLE escalation_policies (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      name text NOT NULL,
      steps jsonb NOT NULL,
      repeat integer NOT NULL CHECK (repeat BETWEEN 0 AND 5),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (org_id, id)
    )
  `
  yield* sql`CREATE INDEX escalation_policies_org ON escalation_policies (org_id, created_at, id)`
  yield* sql`CREATE INDEX escalation_policies_account ON escalation_policies (account_id)`

  yield* sql`
    ALTER TABLE targets
      ADD COLUMN escalation_policy_id uuid,
      ADD CONSTRAINT targets_escalation_policy
        FOREIGN KEY (org_id, escalation_policy_id) REFERENCES escalation_policies (org_id, id)
  `
  yield* sql`
    CREATE INDEX targets_escalation_policy ON targets (escalation_policy_id) WHERE escalation_policy_id IS NOT NULL
  `

  yield* sql`
    ALTER TABLE orgs
      ADD COLUMN default_escalation_policy_id uuid,
      ADD CONSTRAINT orgs_default_escalation_policy
        FOREIGN KEY (id, default_escalation_policy_id) REFERENCES escalation_policies (org_id, id)
  `
})
