/**
 * Duplicating a monitor (service-api.md "Duplicate rules"): the request, and the check of each copy, which is the
 * source's check pointed at the copy's address. Pure; the server copies the rest of the stored row.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { CheckSpec } from "./CheckSpec.js"
import * as CheckUrl from "./CheckUrl.js"
import * as RequestBody from "./RequestBody.js"
import type { Violation } from "./TargetRules.js"

/**
 * The most copies one request may ask for; more is 413 `BULK_TOO_LARGE`.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_COPIES = 100

/**
 * One copy: its name, and where it points when not where the source does.
 *
 * @since 0.1.0
 * @category requests
 */
export const CopyRequest = RequestBody.Struct({
  name: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200)),
  address: Schema.optionalWith(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(2048)), { exact: true })
}).annotations({ identifier: "CopyRequest" })

/**
 * `POST /api/v1/targets/{id}/duplicate`. The count is judged by the handler, not the schema, so that too many is
 * 413 `BULK_TOO_LARGE` rather than a validation error.
 *
 * @since 0.1.0
 * @category requests
 */
export const DuplicateTarget = RequestBody.Struct({
  copies: Schema.Array(CopyRequest).pipe(Schema.minItems(1))
}).annotations({ identifier: "DuplicateTarget" })

const refuse = (message: string, code: Violation["code"] = "VALIDATION_FAILED"): Either.Either<never, Violation> =>
  Either.left({ code, field: "address", message })

// A host template (`{{db_host}}`) is judged when it resolves, as on create.
const isTemplate = (address: string): boolean => address.includes("{{")

// The rule every check URL keeps (`CheckUrl`), so a copy is refused for what a create of it would be.
const url = (address: string): Either.Either<string, Violation> => {
  const why = CheckUrl.problem(address)
  return why === undefined ? Either.right(address) : refuse(`an http or flow copy's address ${why}`)
}

const badHostCharacters = /[\s/?#@\\]/

// The URL parser judges both forms: a name, or (with a colon) an IPv6 literal, which must parse as one.
const plainHost = (host: string): Either.Either<string, Violation> => {
  if (isTemplate(host)) return Either.right(host)
  const literal = host.includes(":") ? `[${host}]` : host
  return host === "" || badHostCharacters.test(host) || !URL.canParse(`http://${literal}/`)
    ? refuse(`${JSON.stringify(host)} is not a host name or address`)
    : Either.right(host)
}

/**
 * `host`, `host:port`, `[v6]`, `[v6]:port`, or a bare IPv6 literal (more than one colon, so never a port).
 *
 * @since 0.1.0
 * @category parsing
 */
export const hostAndPort = (
  address: string
): Either.Either<{ readonly host: string; readonly port: number | undefined }, Violation> => {
  let host: string
  let port: string | undefined
  if (address.startsWith("[")) {
    const match = /^\[([0-9A-Fa-f:.%]+)\](?::([^:]*))?$/.exec(address)
    if (match === null) return refuse("a bracketed address is [IPv6] or [IPv6]:port")
    host = match[1] ?? ""
    port = match[2]
  } else {
    const colons = address.split(":").length - 1
    if (colons === 1) {
      const at = address.indexOf(":")
      host = address.slice(0, at)
      port = address.slice(at + 1)
    } else {
      host = address
    }
  }
  if (port === undefined) return Either.map(plainHost(host), (h) => ({ host: h, port: undefined }))
  const number = /^[0-9]{1,5}$/.test(port) ? Number(port) : Number.NaN
  if (!(number >= 1 && number <= 65535)) return refuse(`the port of ${JSON.stringify(address)} is not 1 to 65535`)
  return Either.map(plainHost(host), (h) => ({ host: h, port: number }))
}

const hostOnly = (address: string, what: string): Either.Either<string, Violation> =>
  Either.flatMap(hostAndPort(address), ({ host, port }) =>
    port === undefined ? Either.right(host) : refuse(`a ${what} copy's address is a host, without a port`)
  )

/**
 * The check a copy runs: the source's, with the copy's address in its place (a URL for http and flow, a host or
 * host:port for tcp and tls_cert, a host for ping, a domain for dns and domain_expiry). No address keeps the
 * source's. An address on a heartbeat or manual monitor, which has none, is `INVALID_ADDRESS`. The violation's
 * field is `address`, under the copy's path.
 *
 * @since 0.1.0
 * @category copying
 */
export const withAddress = (check: CheckSpec, address: string | undefined): Either.Either<CheckSpec, Violation> => {
  if (check.type === "heartbeat" || check.type === "manual") {
    return address === undefined
      ? Either.right(check)
      : refuse(`a ${check.type} monitor has no address to change`, "INVALID_ADDRESS")
  }
  if (address === undefined) return Either.right(check)
  switch (check.type) {
    case "http":
      return Either.map(url(address), (next) => ({ ...check, url: next }))
    case "flow":
      return Either.map(url(address), (next) => ({ ...check, start_url: next }))
    case "tcp":
    case "tls_cert":
      // A bare host keeps the source's port; a tls_cert copy keeps any server_name override.
      return Either.map(hostAndPort(address), ({ host, port }) => ({ ...check, host, port: port ?? check.port }))
    case "ping":
      return Either.map(hostOnly(address, "ping"), (host) => ({ ...check, host }))
    case "dns":
      return Either.map(hostOnly(address, "dns"), (domain) => ({ ...check, domain }))
    case "domain_expiry":
      return Either.map(hostOnly(address, "domain_expiry"), (domain) => ({ ...check, domain }))
  }
}
