import * as SqlClient from "@effect/sql/SqlClient"
import * as Plan from "@signalman/core/Plan"
import * as Effect from "effect/Effect"

// Identity and access: plans, accounts, people, orgs, credentials, the attempts log and the limits' bookkeeping.
// Emails are stored lower-cased (normalised by the application), tokens and codes only as hashes, and IP
// addresses and User-Agents only as keyed hashes.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient

  yield* sql`
    CREATE TABLE plans (
      id text PRIMARY KEY,
      name text NOT NULL,
      listed boolean NOT NULL,
      max_orgs integer NOT NULL,
      max_targets integer NOT NULL,
      min_check_interval_secs integer NOT NULL,
      retention_days integer NOT NULL,
      raw_days integer NOT NULL,
      evidence_days integer NOT NULL,
      max_flow_steps integer NOT NULL,
      max_flow_checks integer NOT NULL,
      max_regions integer NOT NULL,
      max_members integer NOT NULL,
      max_pending_invitations integer NOT NULL,
      max_api_tokens_per_user integer NOT NULL,
      max_status_pages integer NOT NULL,
      max_public_components integer NOT NULL,
      max_share_links_per_monitor integer NOT NULL,
      max_shared_monitors integer NOT NULL,
      max_maintenance_windows integer NOT NULL,
      max_notification_channels integer NOT NULL,
      max_escalation_policies integer NOT NULL,
      max_on_call_schedules integer NOT NULL,
      max_logo_size_bytes integer NOT NULL,
      api_writes_per_minute integer NOT NULL,
      api_reads_per_minute integer NOT NULL,
      bulk_ops_per_minute integer NOT NULL,
      test_now_per_minute integer NOT NULL,
      check_now_per_minute integer NOT NULL,
      custom_domain_enabled boolean NOT NULL,
      white_label_enabled boolean NOT NULL,
      sms_alerts_enabled boolean NOT NULL,
      incident_narration_enabled boolean NOT NULL,
      on_call_enabled boolean NOT NULL,
      private_pages_enabled boolean NOT NULL
    )
  `

  // The seeded plans, from the spec's tables (core/src/Plan.ts); later changes come as new migrations.
  for (const plan of Object.values(Plan.plans)) {
    yield* sql`INSERT INTO plans ${sql.insert({
      id: plan.id,
      name: plan.name,
      listed: plan.listed,
      ...plan.quotas,
      ...plan.rates,
      ...plan.flags
    })}`
  }

  yield* sql`
    CREATE TABLE accounts (
      id uuid PRIMARY KEY,
      plan_id text NOT NULL REFERENCES plans(id),
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz,
      purge_after timestamptz
    )
  `

  // Overrides may only raise a plan's figures (checked by the application); a null column keeps the plan's.
  yield* sql`
    CREATE TABLE account_overrides (
      account_id uuid PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
      limits jsonb NOT NULL DEFAULT '{}'::jsonb,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `

  yield* sql`
    CREATE TABLE users (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts(id),
      email text NOT NULL UNIQUE CHECK (email = lower(email)),
      email_verified_at timestamptz,
      name text,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz,
      purge_after timestamptz
    )
  `

  yield* sql`
    CREATE TABLE orgs (
      id uuid PRIMARY KEY,
      account_id uuid NOT NULL REFERENCES accounts(id),
      slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'),
      name text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    )
  `
  yield* sql`CREATE INDEX orgs_account ON orgs (account_id) WHERE deleted_at IS NULL`

  yield* sql`
    CREATE TABLE memberships (
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      role text NOT NULL CHECK (role IN ('owner', 'member')),
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (org_id, user_id)
    )
  `
  yield* sql`CREATE INDEX memberships_user ON memberships (user_id, created_at)`

  yield* sql`
    CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      token_hash bytea NOT NULL UNIQUE,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      active_org_id uuid REFERENCES orgs(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      idle_expires_at timestamptz NOT NULL,
      absolute_expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      ip_hash text,
      user_agent_hash text
    )
  `
  yield* sql`CREATE INDEX sessions_user ON sessions (user_id) WHERE revoked_at IS NULL`

  yield* sql`
    CREATE TABLE api_tokens (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
      org_id uuid REFERENCES orgs(id) ON DELETE CASCADE,
      name text NOT NULL,
      prefix text NOT NULL,
      hash text NOT NULL,
      scopes text[] NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      last_used_at timestamptz,
      revoked_at timestamptz
    )
  `
  yield* sql`CREATE INDEX api_tokens_prefix ON api_tokens (prefix)`
  yield* sql`CREATE INDEX api_tokens_user ON api_tokens (user_id) WHERE revoked_at IS NULL`

  yield* sql`
    CREATE TABLE invitations (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      email text NOT NULL CHECK (email = lower(email)),
      role text NOT NULL CHECK (role IN ('owner', 'member')),
      token_hash bytea NOT NULL UNIQUE,
      invited_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      accepted_at timestamptz,
      declined_at timestamptz,
      revoked_at timestamptz
    )
  `
  // One pending invitation per address and org: a repeated invite refreshes it instead of adding a row.
  yield* sql`
    CREATE UNIQUE INDEX invitations_pending ON invitations (org_id, email)
    WHERE accepted_at IS NULL AND declined_at IS NULL AND revoked_at IS NULL
  `

  yield* sql`
    CREATE TABLE magic_links (
      id uuid PRIMARY KEY,
      email text NOT NULL CHECK (email = lower(email)),
      token_hash bytea NOT NULL UNIQUE,
      code_hash bytea NOT NULL,
      browser_hash bytea NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      retired_at timestamptz,
      code_spent_at timestamptz,
      mailed boolean NOT NULL DEFAULT false,
      invitation_token text,
      redirect_after text,
      ip_hash text,
      user_agent_hash text
    )
  `
  yield* sql`CREATE INDEX magic_links_email ON magic_links (email, created_at DESC)`

  yield* sql`
    CREATE TABLE auth_attempts (
      id uuid PRIMARY KEY,
      method text NOT NULL,
      success boolean NOT NULL,
      failure_reason text,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      ip_hash text,
      user_agent_hash text,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX auth_attempts_user ON auth_attempts (user_id, created_at DESC)`

  // Append-only: every quota or rate refusal, for support and abuse review.
  yield* sql`
    CREATE TABLE quota_events (
      id uuid PRIMARY KEY,
      account_id uuid REFERENCES accounts(id) ON DELETE CASCADE,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      kind text NOT NULL CHECK (kind IN ('quota', 'rate')),
      name text NOT NULL,
      limit_value integer NOT NULL,
      current_value integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `

  // Per-minute rate windows shared by every server process.
  yield* sql`
    CREATE TABLE rate_windows (
      subject text NOT NULL,
      category text NOT NULL,
      window_start timestamptz NOT NULL,
      used bigint NOT NULL,
      PRIMARY KEY (subject, category, window_start)
    )
  `

  yield* sql`
    CREATE TABLE support_requests (
      id uuid PRIMARY KEY,
      user_id uuid REFERENCES users(id) ON DELETE SET NULL,
      org_id uuid REFERENCES orgs(id) ON DELETE SET NULL,
      subject text NOT NULL,
      message text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `

  yield* sql`
    CREATE TABLE regions (
      id text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
      name text NOT NULL,
      city text,
      country_code text,
      continent text,
      latitude double precision,
      longitude double precision,
      enabled boolean NOT NULL DEFAULT true,
      flow_capable boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`INSERT INTO regions (id, name, flow_capable) VALUES ('local', 'Local', false)`

  yield* sql`
    CREATE TABLE agents (
      id uuid PRIMARY KEY,
      region_id text NOT NULL REFERENCES regions(id),
      name text NOT NULL,
      prefix text NOT NULL,
      hash text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz,
      revoked_at timestamptz
    )
  `
  yield* sql`CREATE INDEX agents_prefix ON agents (prefix)`

  yield* sql`
    CREATE TABLE auth_salt_history (
      salt_sha256 text NOT NULL,
      retired_at timestamptz NOT NULL
    )
  `

  yield* sql`
    CREATE TABLE instance_secrets (
      name text PRIMARY KEY,
      value text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
})
