/**
 * The checks every write of a monitor (and every test of a check) goes through before the rules on intervals and
 * alerts: the redaction sentinel, http(s) URLs, internal IP literals and `ip_version`, the DNS parameter rules, and
 * variable references. Each refusal names its field under `check`.
 */

import * as DnsParams from "@signalman/checks/DnsParams"
import * as TargetAddress from "@signalman/checks/TargetAddress"
import * as ApiError from "@signalman/core/ApiError"
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as CheckUrl from "@signalman/core/CheckUrl"
import type { OrgId } from "@signalman/core/Identity"
import * as Target from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as VariableRefs from "@signalman/core/Variables"
import * as Effect from "effect/Effect"
import { type VariableRow, Variables } from "../variables/Variables.js"

export const toApiError = TargetRules.toApiError

/**
 * The rules of a check being saved or tested, answering the org's variables its references name (keyed by key).
 * Every reference must name a variable of the org, and a secret may sit only where `secretAllowed` says.
 */
export const checkSpec = (
  spec: CheckSpec,
  allowPrivate: boolean,
  orgId: OrgId
): Effect.Effect<ReadonlyMap<string, VariableRow>, ApiError.ApiError, Variables> =>
  Effect.gen(function* () {
    const sentinel = Target.sentinelField(spec)
    if (sentinel !== undefined) {
      return yield* Effect.fail(
        ApiError.make(
          "REDACTION_SENTINEL",
          "*** is the redaction placeholder, not a credential: omit check to keep the stored one",
          {
            field: sentinel
          }
        )
      )
    }
    yield* urls(spec)
    yield* addresses(spec, allowPrivate)
    if (spec.type === "dns") {
      const dns = DnsParams.validate(spec)
      if (dns !== undefined) return yield* Effect.fail(toApiError(dns))
    }
    return yield* resolve(spec, orgId)
  })

const urls = (spec: CheckSpec) => {
  const refused = CheckUrl.inCheck(spec)
  return refused === undefined ? Effect.void : Effect.fail(toApiError(refused))
}

const addresses = (spec: CheckSpec, allowPrivate: boolean) => {
  const refused = TargetAddress.refusal(spec, allowPrivate)
  return refused === undefined
    ? Effect.void
    : Effect.fail(ApiError.make(refused.code, refused.message, { field: `check.${refused.field}` }))
}

const resolve = (spec: CheckSpec, orgId: OrgId) =>
  Effect.gen(function* () {
    const references = VariableRefs.references(spec)
    if (references.length === 0) return new Map<string, VariableRow>()
    const variables = yield* Variables
    const found = new Map((yield* variables.forKeys(orgId, VariableRefs.keys(spec))).map((row) => [row.key, row]))
    for (const reference of references) {
      const variable = found.get(reference.key)
      if (variable === undefined) {
        return yield* Effect.fail(
          ApiError.make("UNRESOLVED_VARIABLE", `{{${reference.key}}} does not name a variable of this org`, {
            field: `check.${reference.field}`,
            details: { key: reference.key }
          })
        )
      }
      if (variable.is_secret && !reference.secretAllowed) {
        return yield* Effect.fail(
          ApiError.make(
            "UNRESOLVED_VARIABLE",
            `{{${reference.key}}} is a secret variable: a secret may appear only in a header value or the body`,
            { field: `check.${reference.field}`, details: { key: reference.key, secret: true } }
          )
        )
      }
    }
    return found
  })

/**
 * The check as a one-shot test runs it: references replaced by the values of the variables `checkSpec` found.
 * A substituted URL may carry a scheme or an internal address its template hid, so those rules are applied again.
 */
export const substitute = (
  spec: CheckSpec,
  found: ReadonlyMap<string, VariableRow>,
  allowPrivate: boolean
): Effect.Effect<CheckSpec, ApiError.ApiError, Variables> =>
  Effect.gen(function* () {
    if (found.size === 0) return spec
    const variables = yield* Variables
    const values = new Map<string, string>()
    for (const [key, row] of found) values.set(key, yield* variables.open(row))
    const filled = VariableRefs.substitute(spec, values)
    yield* urls(filled)
    yield* addresses(filled, allowPrivate)
    return filled
  })
