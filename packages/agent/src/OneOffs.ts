/**
 * One-off jobs (`one_off` from the service: a test or a check-now in this agent's region, with a person waiting)
 * to the checks package's `Runner` and back. A one-off job has no due time, so the runner starts it at once, under
 * the same concurrency bound and per-host throttle as leased jobs, and not after its `deadline_ms` (translated to
 * the agent's clock, see `Skew`): past it, the person would stop waiting before the check could end.
 *
 * Someone is waiting, so every one-off job is answered with an outcome: a check that did not run says why in an
 * `error` outcome (the per-host throttle dropped it, its deadline passed before it could start, it has no probe
 * here, its probe failed), where a leased job would answer no outcome and leave its slot to the schedule.
 *
 * @since 0.2.0
 */
import type * as Runner from "@signalman/checks/Runner"
import type * as Agent from "@signalman/core/api/Agent"
import { OneOffResult } from "@signalman/core/api/Agent"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import * as DateTime from "effect/DateTime"
import * as Skew from "./Skew.js"

/**
 * A one-off job as the runner takes it: the protocol's job rides along, to be answered.
 *
 * @since 0.2.0
 * @category models
 */
export interface Taken extends Runner.Job {
  readonly oneOff: Agent.OneOffJob
}

/**
 * The runner's job for a one-off job: at once, not after its deadline on the agent's clock.
 *
 * @since 0.2.0
 * @category constructors
 */
export const taken = (job: Agent.OneOffJob, offset: Skew.Offset): Taken => ({
  org: job.org_id,
  spec: job.check,
  deadlineMs: Skew.toLocal(job.deadline_ms, offset),
  oneOff: job
})

const outcome = (found: ProbeOutcome, checkedAtMs: number): Agent.Outcome => ({
  checked_at: DateTime.unsafeMake(checkedAtMs),
  status: found.status,
  duration_ms: found.duration_ms,
  error: found.error,
  details: found.details,
  phases: found.phases,
  evidence: found.evidence === undefined ? null : { screenshot_png: found.evidence.screenshot_png }
})

/**
 * The `error` answer of a one-off job that measured nothing: `error` says why.
 *
 * @since 0.2.0
 * @category constructors
 */
export const failed = (id: string, error: string, checkedAtMs: number): Agent.OneOffResult =>
  new OneOffResult({
    id,
    outcome: outcome({ status: "error", duration_ms: 0, error, details: null, phases: null }, checkedAtMs)
  })

/**
 * The answer to what the runner made of a one-off job. `checkedAtMs` is when it ended, on the service's clock.
 *
 * @since 0.2.0
 * @category constructors
 */
export const resultOf = (ran: Runner.Result<Taken>, checkedAtMs: number): Agent.OneOffResult => {
  const id = ran.job.oneOff.id
  switch (ran._tag) {
    case "Ran":
      return new OneOffResult({ id, outcome: outcome(ran.outcome, checkedAtMs) })
    case "Unprobeable":
      return failed(id, ran.error.message, checkedAtMs)
    case "Dropped": {
      const host = ran.key.host.includes(":") ? `[${ran.key.host}]` : ran.key.host
      const where = ran.key.port === null ? host : `${host}:${ran.key.port}`
      return failed(
        id,
        `not run: the agent already has its most checks in flight to ${where} (AGENT__PER_HOST_MAX_INFLIGHT)`,
        checkedAtMs
      )
    }
    case "Expired":
      return failed(id, "not run: the agent could not start it in time (all its checks were busy)", checkedAtMs)
    case "Died":
      return failed(id, "the check failed to run on the agent (a bug in its probe; the agent logged it)", checkedAtMs)
  }
}
