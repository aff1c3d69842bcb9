/**
 * The checks every write of a monitor (and every test of a check) goes through before the rules on intervals and
 * alerts: the redaction sentinel, internal IP literals and `ip_version`, the DNS parameter rules, and variable
 * references. Each refusal names its field under `check`.
 */

import * as DnsParams from "@signalman/checks/DnsParams"
import * as TargetAddress from "@signalman/checks/TargetAddress"
import * as ApiError from "@signalman/core/ApiError"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Target from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Variables from "@signalman/core/Variables"
import * as Effect from "effect/Effect"

export const toApiError = TargetRules.toApiError

export const checkSpec = (spec: CheckSpec, allowPrivate: boolean): Effect.Effect<void, ApiError.ApiError> =>
  Effect.suspend(() => {
    const sentinel = Target.sentinelField(spec)
    if (sentinel !== undefined) {
      return Effect.fail(
        ApiError.make(
          "REDACTION_SENTINEL",
          "*** is the redaction placeholder, not a credential: omit check to keep the stored one",
          {
            field: sentinel
          }
        )
      )
    }
    const refused = TargetAddress.refusal(spec, allowPrivate)
    if (refused !== undefined) {
      return Effect.fail(ApiError.make(refused.code, refused.message, { field: `check.${refused.field}` }))
    }
    if (spec.type === "dns") {
      const dns = DnsParams.validate(spec)
      if (dns !== undefined) return Effect.fail(toApiError(dns))
    }
    // The org has no variables yet (they arrive with the variables resource), so any reference is unresolved.
    const reference = Variables.references(spec)[0]
    if (reference !== undefined) {
      return Effect.fail(
        ApiError.make("UNRESOLVED_VARIABLE", `{{${reference.key}}} does not name a variable of this org`, {
          field: `check.${reference.field}`,
          details: { key: reference.key }
        })
      )
    }
    return Effect.void
  })
