/**
 * The plan a config is judged against before the service is asked: one under which only the rules that hold on
 * every plan bite (the kinds' interval floors, heartbeat cadence, warning windows, flow asserts, recovery and
 * reminder rules). The plan's own figures (its interval floor, flow quota, feature flags) are the service's to judge
 * when the plan is known.
 *
 * @internal
 */
import * as Plan from "@signalman/core/Plan"
import * as Record from "effect/Record"

const pro = Plan.plans.pro

export const everyPlan: Plan.Plan = {
  ...pro,
  // Named so the API's messages read true offline ("at least 10 s for a http check on the least restrictive plan").
  name: "least restrictive",
  quotas: {
    ...pro.quotas,
    // No plan floor: the kind's floor (`TargetRules.kindFloor`) is the one that holds everywhere.
    min_check_interval_secs: 0,
    // The check schema's own cap (30 steps); a plan may allow fewer.
    max_flow_steps: 30,
    max_flow_checks: Number.MAX_SAFE_INTEGER
  },
  // Every feature on: whether the plan has it is the service's to say.
  flags: Record.map(pro.flags, () => true)
}
