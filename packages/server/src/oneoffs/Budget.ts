/**
 * How long a one-off run in an agent's region may take: the check's own timeout, plus `agents.one_off_grace_ms` for
 * everything around it (handing it to an agent, the agent's wait for a free slot, the answer's way back). The request
 * waits until the deadline; the agent must start the check early enough that it ends before it, whatever the check
 * takes within its timeout, so it is told to start it by the deadline less the timeout and a delivery allowance.
 */
import type { CheckSpec } from "@signalman/core/CheckSpec"

/**
 * A domain_expiry check has no timeout of its own: its registry lookup is bounded at 60 s by the probe
 * (`@signalman/checks/DomainExpiry`, the default lookup timeout).
 */
export const DOMAIN_EXPIRY_MS = 60_000

/** The longest the way back of an answer is allowed: at most this, at most half the grace. */
export const DELIVERY_ALLOWANCE_MS = 1_000

/** The most a check of this kind may run, by its own timeout. */
export const timeoutMs = (spec: CheckSpec): number => {
  switch (spec.type) {
    case "http":
    case "tcp":
    case "ping":
    case "dns":
    case "tls_cert":
    case "flow":
      return Math.ceil(spec.timeout * 1000)
    case "domain_expiry":
      return DOMAIN_EXPIRY_MS
    case "heartbeat":
    case "manual":
      return 0
  }
}

/** When the agent must start a run by, and when its request stops waiting (epoch ms). */
export interface Times {
  readonly startBy: number
  readonly deadline: number
}

/** The times of a run asked at `now`. */
export const times = (spec: CheckSpec, graceMs: number, now: number): Times => {
  const deadline = now + timeoutMs(spec) + graceMs
  return { startBy: now + graceMs - Math.min(DELIVERY_ALLOWANCE_MS, graceMs / 2), deadline }
}
