/**
 * What one run of a check found: its status, how long it took, why it failed, kind-specific details and, where
 * the protocol has them, per-phase timings.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * `up` and `down` are the monitored system's state; `degraded` is up but impaired (rate-limited, a certificate
 * near expiry); `error` means the check itself could not judge (a blocked address, an outer timeout, no
 * permission to open an ICMP socket) and is not downtime.
 *
 * @since 0.1.0
 * @category models
 */
export const CheckStatus = Schema.Literal("up", "degraded", "down", "error")

/**
 * @since 0.1.0
 * @category models
 */
export type CheckStatus = typeof CheckStatus.Type

/**
 * Milliseconds spent in each phase of a connection, for the kinds that have them; a phase that did not happen
 * (no DNS for an IP literal, no TLS for plain HTTP) is absent.
 *
 * @since 0.1.0
 * @category models
 */
export const Phases = Schema.Struct({
  dns_ms: Schema.optionalWith(Schema.Number, { exact: true }),
  connect_ms: Schema.optionalWith(Schema.Number, { exact: true }),
  tls_ms: Schema.optionalWith(Schema.Number, { exact: true }),
  first_byte_ms: Schema.optionalWith(Schema.Number, { exact: true }),
  total_ms: Schema.Number
}).annotations({ identifier: "Phases" })

/**
 * @since 0.1.0
 * @category models
 */
export type Phases = typeof Phases.Type

const outcomeFields = {
  status: CheckStatus,
  duration_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  details: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  phases: Schema.NullOr(Phases)
}

/**
 * What a run keeps beside its result and never inside it: a failed flow's screenshot of the page at the failing
 * step (decisions.md, "Regions, probe agents and browser flows"), stored for the plan's `evidence_days` and served at
 * its own route.
 *
 * @since 0.1.0
 * @category models
 */
export const Evidence = Schema.Struct({
  screenshot_png: Schema.Uint8ArrayFromSelf
}).annotations({ identifier: "Evidence" })

/**
 * @since 0.1.0
 * @category models
 */
export type Evidence = typeof Evidence.Type

/**
 * A probe's verdict, before the runner stamps when and where it ran. `evidence`, when present, is kept beside the
 * result, never in it.
 *
 * @since 0.1.0
 * @category models
 */
export const ProbeOutcome = Schema.Struct({
  ...outcomeFields,
  evidence: Schema.optionalWith(Evidence, { exact: true })
}).annotations({ identifier: "ProbeOutcome" })

/**
 * @since 0.1.0
 * @category models
 */
export type ProbeOutcome = typeof ProbeOutcome.Type

/**
 * One check result as the API answers it (`POST /targets/test`, `check-now`, `/results`).
 *
 * @since 0.1.0
 * @category models
 */
export class CheckResult extends Schema.Class<CheckResult>("CheckResult")({
  ...outcomeFields,
  checked_at: Schema.DateTimeUtc,
  region: Schema.String
}) {}
