/**
 * From the protocol's jobs to the checks package's `Runner` and back: a leased job becomes a runner job on the
 * agent's clock (its due time and lease end translated by the clock offset, see `Skew`), and what the runner made
 * of it becomes a result with a fresh id, stamped with when it ended on the service's clock.
 *
 * What became of a job, as the service's own scheduler reads it (`server/src/engine/Scheduler.ts`):
 * - `Ran`: its outcome;
 * - `Unprobeable` (heartbeat, manual, or a kind this agent's checks package cannot probe): an `error` outcome saying so;
 * - `Dropped` by the per-host throttle, `Expired` (not started by its lease's end), `Died` (a probe's bug): no
 *   outcome, so the service only moves the slot on.
 *
 * @since 0.1.0
 */
import type * as Runner from "@signalman/checks/Runner"
import type * as Agent from "@signalman/core/api/Agent"
import { Result } from "@signalman/core/api/Agent"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as DateTime from "effect/DateTime"
import * as Skew from "./Skew.js"

/**
 * A leased job with a check to run, as the runner takes it: the protocol's job rides along, to be answered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Leased extends Runner.Job {
  readonly job: Agent.Job
}

/**
 * A job's slot: what a result answers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Slot {
  readonly target_id: string
  readonly due: string
}

/**
 * The runner's job for a leased check, its times on the agent's clock.
 *
 * @since 0.1.0
 * @category constructors
 */
export const leased = (job: Agent.Job, spec: CheckSpec, offset: Skew.Offset): Leased => ({
  org: job.org_id,
  spec,
  dueMs: Skew.toLocal(job.due_ms, offset),
  deadlineMs: Skew.toLocal(job.deadline_ms, offset),
  job
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
 * The `error` result standing for a run that could not measure anything (the service could not make the check
 * ready, or the agent could not read it): `error` says why.
 *
 * @since 0.1.0
 * @category constructors
 */
export const failed = (slot: Slot, error: string, id: string, checkedAtMs: number): Agent.Result =>
  new Result({
    id,
    target_id: slot.target_id,
    due: slot.due,
    outcome: outcome({ status: "error", duration_ms: 0, error, details: null, phases: null }, checkedAtMs)
  })

/**
 * The result of what the runner made of a job. `checkedAtMs` is when it ended, on the service's clock.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resultOf = (ran: Runner.Result<Leased>, id: string, checkedAtMs: number): Agent.Result => {
  const slot = ran.job.job
  switch (ran._tag) {
    case "Ran":
      return new Result({ id, target_id: slot.target_id, due: slot.due, outcome: outcome(ran.outcome, checkedAtMs) })
    case "Unprobeable":
      return failed(slot, ran.error.message, id, checkedAtMs)
    case "Dropped":
    case "Expired":
    case "Died":
      return new Result({ id, target_id: slot.target_id, due: slot.due, outcome: null })
  }
}

const userinfoPassword = (url: string): ReadonlyArray<string> => {
  if (!URL.canParse(url)) return []
  const parsed = new URL(url)
  return [parsed.password, decodeURIComponent(parsed.password)]
}

/**
 * The strings of a check that must never reach a log line: credentials (basic auth, bearer token, header values,
 * a body, a password in a URL) and a flow's fill values. A probe's defect is logged with these scrubbed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const secretsOf = (spec: CheckSpec): ReadonlyArray<string> => {
  const found: Array<string> = []
  switch (spec.type) {
    case "http":
      found.push(...userinfoPassword(spec.url), ...Object.values(spec.headers))
      if (spec.body !== undefined) found.push(spec.body)
      if (spec.bearer_token !== null) found.push(spec.bearer_token)
      if (spec.basic_auth !== null && spec.basic_auth !== "***") found.push(spec.basic_auth.password)
      break
    case "flow":
      found.push(...userinfoPassword(spec.start_url))
      for (const step of spec.steps) {
        if (step.action === "fill") found.push(step.value)
        if (step.action === "goto") found.push(...userinfoPassword(step.url))
      }
      break
    default:
      break
  }
  // Longest first, so a secret containing another is scrubbed whole.
  return [...new Set(found.filter((secret) => secret !== ""))].sort((a, b) => b.length - a.length)
}
