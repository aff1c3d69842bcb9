/**
 * Rules on a check's address that hold whenever a check is saved or tested, before anything is dialed:
 *
 * - an address written as an internal IP literal, in any spelling, is refused (`TARGET_ADDRESS_BLOCKED`) unless
 *   private targets are allowed; names are judged later, on the address actually dialed;
 * - an IP literal already decides the family, so pinning `ip_version` to the other one is `INVALID_IP_VERSION`.
 *
 * @since 0.1.0
 */
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as AddressGuard from "./AddressGuard.js"

/**
 * A refusal, with the field it names (the path under the check).
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal {
  readonly code: "TARGET_ADDRESS_BLOCKED" | "INVALID_IP_VERSION"
  readonly field: string
  readonly message: string
}

const hostOfUrl = (url: string): string | undefined => {
  try {
    return new URL(url).hostname
  } catch {
    return undefined
  }
}

const resolverHost = (resolver: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(resolver)
  if (bracketed?.[1] !== undefined) return bracketed[1]
  const colons = resolver.split(":").length - 1
  return colons === 1 ? (resolver.split(":")[0] ?? resolver) : resolver
}

/** The addresses a check names, each with its field. */
const addresses = (spec: CheckSpec): ReadonlyArray<{ readonly field: string; readonly host: string }> => {
  switch (spec.type) {
    case "http": {
      const host = hostOfUrl(spec.url)
      return host === undefined ? [] : [{ field: "url", host }]
    }
    case "flow": {
      const host = hostOfUrl(spec.start_url)
      const steps = spec.steps.flatMap((step, i) => {
        if (step.action !== "goto") return []
        const stepHost = hostOfUrl(step.url)
        return stepHost === undefined ? [] : [{ field: `steps[${i}].url`, host: stepHost }]
      })
      return [...(host === undefined ? [] : [{ field: "start_url", host }]), ...steps]
    }
    case "tcp":
    case "ping":
    case "tls_cert":
      return [{ field: "host", host: spec.host }]
    case "dns":
      return spec.resolver === undefined ? [] : [{ field: "resolver", host: resolverHost(spec.resolver) }]
    case "domain_expiry":
    case "heartbeat":
    case "manual":
      return []
  }
}

/**
 * The first refusal for a check, or undefined. `allowPrivate` is `checker.allow_private_targets`.
 *
 * @since 0.1.0
 * @category validation
 */
export const refusal = (spec: CheckSpec, allowPrivate: boolean): Refusal | undefined => {
  for (const { field, host } of addresses(spec)) {
    const literal = AddressGuard.parseLiteral(host)
    if (literal === undefined) continue
    if (!allowPrivate) {
      const verdict = AddressGuard.check(host)
      if (!verdict.allowed) {
        return {
          code: "TARGET_ADDRESS_BLOCKED",
          field,
          message: `${verdict.address} is ${verdict.reason}: checks may not reach internal addresses`
        }
      }
    }
    if ("ip_version" in spec && field !== "resolver") {
      const family = literal.kind() === "ipv4" ? "ipv4" : "ipv6"
      if (spec.ip_version !== "any" && spec.ip_version !== family) {
        return {
          code: "INVALID_IP_VERSION",
          field: "ip_version",
          message: `${host} is an ${family === "ipv4" ? "IPv4" : "IPv6"} address; ip_version ${spec.ip_version} contradicts it`
        }
      }
    }
  }
  return undefined
}
