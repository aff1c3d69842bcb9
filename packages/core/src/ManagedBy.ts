/**
 * Monitoring as code (decisions.md, "Monitoring as code (the CLI) and the SDK"): which config project and key
 * manage a resource. A target, notification channel, variable, status page or maintenance window answers
 * `managed_by: { project, key }`, or null when nobody manages it. The field is read-only: a write sets it through
 * the `Signalman-Managed-By` header (`<project>/<key>`; the bulk create takes the project alone and the keys in the
 * body's `managed_keys`).
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"

/**
 * A project name: 1 to 64 lowercase letters, digits or hyphens.
 *
 * @since 0.2.0
 * @category constants
 */
export const PROJECT_PATTERN = /^[a-z0-9-]{1,64}$/

/**
 * A resource's key within its project and kind: a lowercase letter or digit, then up to 62 lowercase letters,
 * digits, hyphens or underscores.
 *
 * @since 0.2.0
 * @category constants
 */
export const KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/

/**
 * @since 0.2.0
 * @category schemas
 */
export const Project = Schema.String.pipe(
  Schema.filter((s) => PROJECT_PATTERN.test(s) || "must be 1 to 64 lowercase letters, digits or hyphens", {
    jsonSchema: { pattern: PROJECT_PATTERN.source }
  })
).annotations({ identifier: "ManagedProject", description: "A config project: 1-64 of [a-z0-9-]" })

/**
 * @since 0.2.0
 * @category schemas
 */
export const Key = Schema.String.pipe(
  Schema.filter(
    (s) =>
      KEY_PATTERN.test(s) ||
      "must start with a lowercase letter or digit, then up to 62 lowercase letters, digits, hyphens or underscores",
    { jsonSchema: { pattern: KEY_PATTERN.source } }
  )
).annotations({ identifier: "ManagedKey", description: "A resource's key in its project: [a-z0-9][a-z0-9-_]{0,62}" })

/**
 * The project and key that manage a resource.
 *
 * @since 0.2.0
 * @category models
 */
export const ManagedBy = Schema.Struct({ project: Project, key: Key }).annotations({
  identifier: "ManagedBy",
  description: "The config project and key that manage this resource (signalman CLI); null when nobody manages it"
})

/**
 * @since 0.2.0
 * @category models
 */
export type ManagedBy = typeof ManagedBy.Type

/**
 * The response field every managed kind carries.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Field = Schema.NullOr(ManagedBy)

/**
 * The request header, as documented and as errors name it.
 *
 * @since 0.2.0
 * @category constants
 */
export const HEADER = "Signalman-Managed-By"

/**
 * The header's key as a request's headers carry it (lower case), which the contract declares.
 *
 * @since 0.2.0
 * @category constants
 */
export const HEADER_KEY = "signalman-managed-by"

/**
 * What the description of an endpoint that takes the header says of it.
 *
 * @since 0.2.0
 * @category constants
 */
export const WRITE_NOTE =
  "Signalman-Managed-By: <project>/<key> stamps managed_by in the same transaction (a PATCH of {} with it only " +
  "adopts); a key another resource of the kind holds is 409 MANAGED_KEY_TAKEN."

/**
 * The header value of a single-resource write, `<project>/<key>`, as a string.
 *
 * @since 0.2.0
 * @category formatting
 */
export const format = (managedBy: ManagedBy): string => `${managedBy.project}/${managedBy.key}`

/**
 * Reads a single-resource header value: `<project>/<key>`, or why it is not one. A project alone is the bulk
 * create's form, said so, since that is the likely mix-up.
 *
 * @since 0.2.0
 * @category parsing
 */
export const parse = (value: string): Either.Either<ManagedBy, string> => {
  const slash = value.indexOf("/")
  if (slash === -1) {
    return Either.left(
      PROJECT_PATTERN.test(value)
        ? "takes <project>/<key> here; a project alone is for POST /api/v1/targets/bulk with managed_keys"
        : "must be <project>/<key>"
    )
  }
  const project = value.slice(0, slash)
  const key = value.slice(slash + 1)
  if (!PROJECT_PATTERN.test(project)) {
    return Either.left("must be <project>/<key>, the project 1 to 64 lowercase letters, digits or hyphens")
  }
  if (!KEY_PATTERN.test(key)) {
    return Either.left(
      "must be <project>/<key>, the key a lowercase letter or digit then up to 62 lowercase letters, digits, " +
        "hyphens or underscores"
    )
  }
  return Either.right({ project, key })
}

/**
 * The header value of a single-resource write, `<project>/<key>` (the wire form: clients send the string; the
 * server reads its parts with {@link parse}).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Reference = Schema.String.pipe(
  Schema.filter((value) => Either.match(parse(value), { onLeft: (why) => why, onRight: () => true }), {
    jsonSchema: { pattern: `^[a-z0-9-]{1,64}/${KEY_PATTERN.source.slice(1)}` }
  })
).annotations({
  identifier: "ManagedByReference",
  description: "<project>/<key>: the write stamps managed_by with them, in the same transaction"
})

/**
 * The header value of the bulk create: the project alone, the keys travelling in the body's `managed_keys`.
 *
 * @since 0.2.0
 * @category schemas
 */
export const BulkProject = Schema.String.pipe(
  Schema.filter(
    (value) =>
      PROJECT_PATTERN.test(value) ||
      (value.includes("/")
        ? "takes the project alone here; the keys go in managed_keys, one per target"
        : "must be a project: 1 to 64 lowercase letters, digits or hyphens"),
    { jsonSchema: { pattern: PROJECT_PATTERN.source } }
  )
).annotations({
  identifier: "ManagedByProject",
  description: "<project>: with managed_keys in the body, each new target is managed as <project>/<its key>"
})

/**
 * The headers of a create or update of a single resource.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Headers = Schema.Struct({ [HEADER_KEY]: Schema.optional(Reference) })

/**
 * The headers of the bulk create.
 *
 * @since 0.2.0
 * @category schemas
 */
export const BulkHeaders = Schema.Struct({ [HEADER_KEY]: Schema.optional(BulkProject) })

/**
 * What a write says of `managed_by`, from its headers: the project and key to stamp, or undefined to leave it as
 * it is. A value the contract let through is well formed; one that is not is the same 400 the contract gives.
 *
 * @since 0.2.0
 * @category parsing
 */
export const fromHeaders = (
  headers: typeof Headers.Type
): Either.Either<ManagedBy | undefined, ApiError.BadRequest> => {
  const value = headers[HEADER_KEY]
  if (value === undefined) return Either.right(undefined)
  return Either.mapLeft(parse(value), (why) =>
    ApiError.make("VALIDATION_FAILED", `${HEADER}: ${why}`, { field: HEADER })
  )
}

/**
 * What a bulk create's `Signalman-Managed-By` (the project) and `managed_keys` say each new target is managed as,
 * in request order: both or neither, one key per target, no key twice. Keys were judged one by one by the body's
 * schema. A refusal is 400 `VALIDATION_FAILED` naming the header, `managed_keys` or the repeated `managed_keys[i]`.
 *
 * @since 0.2.0
 * @category rules
 */
export const assignKeys = (
  project: string | undefined,
  keys: ReadonlyArray<string> | undefined,
  count: number
): Either.Either<ReadonlyArray<ManagedBy | undefined>, ApiError.BadRequest> => {
  const refuse = (field: string, message: string) => Either.left(ApiError.make("VALIDATION_FAILED", message, { field }))
  if (project === undefined && keys === undefined) return Either.right(Array.from({ length: count }, () => undefined))
  if (project === undefined) {
    return refuse(HEADER, `managed_keys needs the ${HEADER} header naming their project`)
  }
  if (keys === undefined) {
    return refuse("managed_keys", `${HEADER} on a bulk create needs managed_keys, one key per target`)
  }
  if (keys.length !== count) {
    return refuse("managed_keys", `managed_keys has ${keys.length} keys for ${count} targets: one per target, in order`)
  }
  const seen = new Map<string, number>()
  for (const [i, key] of keys.entries()) {
    const first = seen.get(key)
    if (first !== undefined) return refuse(`managed_keys[${i}]`, `${key} is already the key of managed_keys[${first}]`)
    seen.set(key, i)
  }
  return Either.right(keys.map((key) => ({ project, key })))
}

/**
 * The refusal of a write that would take a (project, key) another live resource of the same kind holds in the org:
 * 409 `MANAGED_KEY_TAKEN`, naming the header (or the bulk create's `managed_keys[i]`) and, in `details`, the claim
 * and the holder's `id`. A write that lost a race for one of several keys knows the project only.
 *
 * @since 0.2.0
 * @category errors
 */
export const taken = (
  kind: string,
  claim: { readonly project: string; readonly key?: string | undefined },
  options: { readonly holder?: string | undefined; readonly field?: string | undefined } = {}
): ApiError.Conflict =>
  ApiError.make(
    "MANAGED_KEY_TAKEN",
    claim.key === undefined
      ? `Another ${kind} of this org took one of these keys of ${claim.project} meanwhile`
      : `Another ${kind} of this org is already managed as ${claim.project}/${claim.key}`,
    {
      field: options.field ?? HEADER,
      details: {
        project: claim.project,
        ...(claim.key === undefined ? {} : { key: claim.key }),
        ...(options.holder === undefined ? {} : { id: options.holder })
      }
    }
  )
