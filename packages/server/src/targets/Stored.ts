/**
 * A stored monitor seen two ways: as the API answers it (core's `Target`, the check redacted) and as `TargetRules`
 * take it (`ResolvedTarget`, with whichever check the caller holds).
 */
import { CheckSpec } from "@signalman/core/CheckSpec"
import * as Target from "@signalman/core/Target"
import type { ResolvedTarget } from "@signalman/core/TargetRules"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as ManagedColumns from "../database/ManagedColumns.js"
import type { TargetRow } from "./Repo.js"

/** Decodes a check as stored (redacted, or opened from its sealed copy). */
export const decodeCheck = Schema.decodeUnknown(CheckSpec)

/** A stored row with the given check (its redacted one, or the full one opened), as `TargetRules` take it. */
export const withCheck = (row: TargetRow, check: CheckSpec): ResolvedTarget => ({
  name: row.name,
  check,
  interval: row.interval_secs,
  enabled: row.enabled,
  tags: row.tags,
  group: row.group_name,
  alerts: row.alerts,
  alert_confirmations: row.alert_confirmations,
  notify_recovery: row.notify_recovery,
  renotify_interval_secs: row.renotify_interval_secs,
  recovery_period_secs: row.recovery_period_secs,
  region_policy: row.region_policy,
  regions: row.regions,
  escalation_policy_id: row.escalation_policy_id
})

/** A stored row with its redacted check, for the rules that need only the check's kind and window. */
export const withStoredCheck = (row: TargetRow) =>
  Effect.map(decodeCheck(row.check_spec), (check) => withCheck(row, check))

/** The monitor as every answer shows it. */
export const toTarget = (row: TargetRow): Target.Target =>
  new Target.Target({
    id: row.id,
    org_id: row.org_id,
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at),
    write_source: row.write_source,
    managed_by: ManagedColumns.managedBy(row),
    name: row.name,
    check: row.check_spec,
    interval: row.interval_secs,
    enabled: row.enabled,
    tags: row.tags,
    group: row.group_name,
    alerts: row.alerts,
    alert_confirmations: row.alert_confirmations,
    notify_recovery: row.notify_recovery,
    renotify_interval_secs: row.renotify_interval_secs,
    recovery_period_secs: row.recovery_period_secs,
    region_policy: row.region_policy,
    regions: row.regions,
    escalation_policy_id: row.escalation_policy_id
  })
