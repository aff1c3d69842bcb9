/**
 * Status pages (service-api.md, "Status page"): the page as answered, the bodies that create and change one, its
 * curated components, and the rules of its `access` object (who may open a private page) as pure functions.
 *
 * `access` is decoded here rather than by the body schema, because its rules answer with their own codes
 * (`ACCESS_INVALID` naming the part, `INVALID_PAGE_PASSWORD`, `PASSWORD_REQUIRED`) where a schema would answer
 * `VALIDATION_FAILED`; an unknown key inside it is still 422 `INVALID_JSON` naming its path.
 *
 * @since 0.2.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as ApiError from "./ApiError.js"
import * as ManagedBy from "./ManagedBy.js"
import type * as Plan from "./Plan.js"
import * as PlanLimits from "./PlanLimits.js"
import { PublicLocale } from "./PublicLocale.js"
import * as RequestBody from "./RequestBody.js"
import { TargetId, WriteSource } from "./Target.js"
import { characters } from "./TextLength.js"

/**
 * @since 0.2.0
 * @category ids
 */
export const StatusPageId = Schema.UUID.pipe(Schema.brand("StatusPageId"))

/**
 * @since 0.2.0
 * @category ids
 */
export type StatusPageId = typeof StatusPageId.Type

/**
 * @since 0.2.0
 * @category ids
 */
export const ViewerId = Schema.UUID.pipe(Schema.brand("ViewerId"))

/**
 * @since 0.2.0
 * @category ids
 */
export type ViewerId = typeof ViewerId.Type

/**
 * Slugs that would read as part of the service rather than an org's page.
 *
 * @since 0.2.0
 * @category constants
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  "admin",
  "api",
  "app",
  "assets",
  "auth",
  "docs",
  "help",
  "login",
  "new",
  "operator",
  "p",
  "settings",
  "sign-in",
  "signalman",
  "static",
  "status",
  "support",
  "www"
])

/**
 * A slug: 1 to 63 lower-case letters, digits and inner hyphens (a DNS label), not a reserved word.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Slug = Schema.String.pipe(
  Schema.filter(
    (s) =>
      /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(s) ||
      "must be 1 to 63 lower-case letters, digits and hyphens, starting and ending with a letter or digit",
    { jsonSchema: { pattern: "^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$" } }
  ),
  Schema.filter((s) => !RESERVED_SLUGS.has(s) || `"${s}" is reserved`)
).annotations({ identifier: "StatusPageSlug" })

const HOST_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Whether a string is a host name a page can be served on: lower-case labels, at least two, the last not numeric
 * (so no IP address), 253 characters at most.
 *
 * @since 0.2.0
 * @category predicates
 */
export const isHostname = (s: string): boolean => {
  if (s.length > 253) return false
  const labels = s.split(".")
  const last = labels[labels.length - 1] ?? ""
  return labels.length >= 2 && labels.every((l) => HOST_LABEL.test(l)) && !/^[0-9]+$/.test(last)
}

/**
 * A custom domain: a host name in lower case (`status.example.com`), no scheme, port or path.
 *
 * @since 0.2.0
 * @category schemas
 */
export const CustomDomain = Schema.String.pipe(
  Schema.filter((s) => isHostname(s) || "must be a host name in lower case, such as status.example.com")
).annotations({ identifier: "CustomDomain" })

// Characters as people count them: code points.

const text = (max: number) =>
  Schema.Trim.pipe(
    Schema.filter((s) => (characters(s) >= 1 && characters(s) <= max) || `must be 1 to ${max} characters`, {
      jsonSchema: { minLength: 1, maxLength: max }
    })
  )

/**
 * The most characters of a page name, and of a component's public name and group.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_NAME_LENGTH = 100

/**
 * The most characters of a component's public description.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_DESCRIPTION_LENGTH = 500

/**
 * @since 0.2.0
 * @category models
 */
export const Theme = Schema.Literal("light", "dark", "auto")

/**
 * `#rrggbb`, stored in lower case.
 *
 * @since 0.2.0
 * @category schemas
 */
export const Color = Schema.Lowercase.pipe(
  Schema.filter((s) => /^#[0-9a-f]{6}$/.test(s) || "must be a colour as #rrggbb", {
    jsonSchema: { pattern: "^#[0-9a-fA-F]{6}$" }
  })
)

/**
 * The page's look. `hide_powered_by` needs a plan with `white_label_enabled`.
 *
 * @since 0.2.0
 * @category models
 */
export const Branding = Schema.Struct({
  primary_color: Schema.NullOr(Schema.String),
  theme: Theme,
  hide_powered_by: Schema.Boolean
}).annotations({ identifier: "Branding" })

/**
 * @since 0.2.0
 * @category models
 */
export type Branding = typeof Branding.Type

/**
 * The branding of a new page.
 *
 * @since 0.2.0
 * @category constants
 */
export const defaultBranding: Branding = { primary_color: null, theme: "auto", hide_powered_by: false }

/**
 * Branding in a body: any of its keys; those given replace the stored ones, `primary_color: null` clears.
 *
 * @since 0.2.0
 * @category requests
 */
export const BrandingPatch = RequestBody.Struct({
  primary_color: Schema.optionalWith(Schema.NullOr(Color), { exact: true }),
  theme: Schema.optionalWith(Theme, { exact: true }),
  hide_powered_by: Schema.optionalWith(Schema.Boolean, { exact: true })
}).annotations({ identifier: "BrandingPatch" })

/**
 * @since 0.2.0
 * @category requests
 */
export type BrandingPatch = typeof BrandingPatch.Type

/**
 * The branding after a patch.
 *
 * @since 0.2.0
 * @category combinators
 */
export const patchBranding = (stored: Branding, patch: BrandingPatch): Branding => ({
  primary_color: patch.primary_color !== undefined ? patch.primary_color : stored.primary_color,
  theme: patch.theme ?? stored.theme,
  hide_powered_by: patch.hide_powered_by ?? stored.hide_powered_by
})

// ---------------------------------------------------------------------------------------------------------------
// Access

/**
 * Session lengths a private page may set (`null`: a browser session, capped by the server).
 *
 * @since 0.2.0
 * @category constants
 */
export const SESSION_DAYS = [7, 30, 90] as const

/**
 * How often an email viewer must prove the address again (`null`: never).
 *
 * @since 0.2.0
 * @category constants
 */
export const RECHECK_DAYS = [30, 90, 365] as const

/**
 * The most email-code rules after normalising and removing duplicates.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_ALLOW_RULES = 500

/**
 * The longest page password, in characters.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_PASSWORD_LENGTH = 128

/**
 * The access object as stored and answered: the password as `{ enabled }` only, never its value.
 *
 * @since 0.2.0
 * @category models
 */
export const Access = Schema.Struct({
  protected: Schema.Boolean,
  email_code: Schema.Struct({ enabled: Schema.Boolean, allow: Schema.Array(Schema.String) }),
  session_days: Schema.NullOr(Schema.Literal(...SESSION_DAYS)),
  recheck_days: Schema.NullOr(Schema.Literal(...RECHECK_DAYS)),
  password: Schema.Struct({ enabled: Schema.Boolean })
}).annotations({ identifier: "Access" })

/**
 * @since 0.2.0
 * @category models
 */
export type Access = typeof Access.Type

/**
 * The access object in a body, as documented (the service decodes it with {@link decodeAccess}).
 *
 * @since 0.2.0
 * @category requests
 */
export const AccessWrite = Schema.Unknown.annotations({
  identifier: "AccessWrite",
  description:
    "Who may open the page; replaces what is stored, whole. password.value is write only (1 to 128 characters); " +
    "without it the stored password stays.",
  jsonSchema: {
    type: ["object", "null"],
    additionalProperties: false,
    required: ["protected"],
    properties: {
      protected: { type: "boolean" },
      email_code: {
        type: "object",
        additionalProperties: false,
        properties: {
          enabled: { type: "boolean" },
          allow: { type: "array", maxItems: MAX_ALLOW_RULES, items: { type: "string" } }
        }
      },
      session_days: { enum: [...SESSION_DAYS, null] },
      recheck_days: { enum: [...RECHECK_DAYS, null] },
      password: {
        type: "object",
        additionalProperties: false,
        properties: {
          enabled: { type: "boolean" },
          value: { type: "string", minLength: 1, maxLength: MAX_PASSWORD_LENGTH }
        }
      }
    }
  }
})

/**
 * A decoded access write: the object to store and, when one was sent, the new password value.
 *
 * @since 0.2.0
 * @category models
 */
export interface AccessInput {
  readonly access: Access
  readonly passwordValue: string | undefined
}

const invalid = (field: string, message: string) => ApiError.make("ACCESS_INVALID", message, { field })

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const unknownKeyIn = (
  value: Record<string, unknown>,
  path: string,
  accepted: ReadonlyArray<string>
): ApiError.ApiError | undefined => {
  const extra = Object.keys(value).find((key) => !accepted.includes(key))
  return extra === undefined
    ? undefined
    : ApiError.unknownKey(
        `${path}.${extra}`,
        `Unknown key "${path}.${extra}": ${path} accepts ${accepted.join(", ")}`,
        [...accepted]
      )
}

/**
 * One email-code rule in canonical form (`alice@example.com` or `@example.com`): lower case, the domain in its
 * ASCII (punycode) form by the WHATWG URL parser; undefined when it is neither an address nor a domain rule.
 *
 * @since 0.2.0
 * @category parsing
 */
export const normalizeRule = (input: string): string | undefined => {
  const rule = input.trim().toLowerCase()
  const at = rule.lastIndexOf("@")
  if (at === -1) return undefined
  const local = rule.slice(0, at)
  const domain = rule.slice(at + 1)
  if (local !== "" && !/^[^\s@<>()[\]\\,;:"]+$/.test(local)) return undefined
  if (local.length > 64 || domain === "" || /[\s/?#\\:@%[\]]/.test(domain)) return undefined
  let ascii: string
  try {
    ascii = new URL(`http://${domain}/`).hostname
  } catch {
    return undefined
  }
  return isHostname(ascii) ? `${local}@${ascii}` : undefined
}

/**
 * Whether an address (already normalised) is let in by one of the rules: the exact address or its `@domain`.
 *
 * @since 0.2.0
 * @category predicates
 */
export const allows = (rules: ReadonlyArray<string>, email: string): boolean => {
  const address = normalizeRule(email)
  if (address === undefined || address.startsWith("@")) return false
  const domain = address.slice(address.lastIndexOf("@"))
  return rules.includes(address) || rules.includes(domain)
}

const choice = <A extends number>(
  value: unknown,
  allowed: ReadonlyArray<A>,
  field: string
): Either.Either<A | null, ApiError.ApiError> => {
  if (value === undefined || value === null) return Either.right(null)
  const found = allowed.find((a) => a === value)
  return found === undefined
    ? Either.left(invalid(field, `${field} must be ${allowed.join(", ")} or null`))
    : Either.right(found)
}

/**
 * Decodes the `access` of a body: shape and values, each bad part answered with its own code and field. The
 * rules that need the stored page (a password on file, the plan) are {@link resolveAccess}.
 *
 * @since 0.2.0
 * @category parsing
 */
export const decodeAccess = (u: unknown): Either.Either<AccessInput, ApiError.ApiError> =>
  Either.gen(function* () {
    if (!isRecord(u)) return yield* Either.left(invalid("access", "access must be an object"))
    const extra = unknownKeyIn(u, "access", ["protected", "email_code", "session_days", "recheck_days", "password"])
    if (extra !== undefined) return yield* Either.left(extra)
    if (typeof u["protected"] !== "boolean") {
      return yield* Either.left(invalid("access.protected", "access.protected must be true or false"))
    }

    let emailCode: Access["email_code"] = { enabled: false, allow: [] }
    const rawEmail = u["email_code"]
    if (rawEmail !== undefined && rawEmail !== null) {
      if (!isRecord(rawEmail))
        return yield* Either.left(invalid("access.email_code", "access.email_code must be an object"))
      const extraEmail = unknownKeyIn(rawEmail, "access.email_code", ["enabled", "allow"])
      if (extraEmail !== undefined) return yield* Either.left(extraEmail)
      const enabled = rawEmail["enabled"] ?? false
      if (typeof enabled !== "boolean") {
        return yield* Either.left(
          invalid("access.email_code.enabled", "access.email_code.enabled must be true or false")
        )
      }
      const rawAllow = rawEmail["allow"] ?? []
      if (!Array.isArray(rawAllow)) {
        return yield* Either.left(invalid("access.email_code.allow", "access.email_code.allow must be a list"))
      }
      const allow: Array<string> = []
      const seen = new Set<string>()
      for (const [i, entry] of rawAllow.entries()) {
        const rule = typeof entry === "string" ? normalizeRule(entry) : undefined
        if (rule === undefined) {
          return yield* Either.left(
            invalid(
              `access.email_code.allow[${i}]`,
              "each rule is an email address (alice@example.com) or a domain (@example.com)"
            )
          )
        }
        if (!seen.has(rule)) {
          seen.add(rule)
          allow.push(rule)
        }
      }
      if (allow.length > MAX_ALLOW_RULES) {
        return yield* Either.left(
          invalid("access.email_code.allow", `access.email_code.allow holds at most ${MAX_ALLOW_RULES} rules`)
        )
      }
      if (enabled && allow.length === 0) {
        return yield* Either.left(
          invalid("access.email_code.allow", "the email code needs at least one address or domain it lets in")
        )
      }
      emailCode = { enabled, allow }
    }

    const sessionDays = yield* choice(u["session_days"], SESSION_DAYS, "access.session_days")
    const recheckDays = yield* choice(u["recheck_days"], RECHECK_DAYS, "access.recheck_days")

    let passwordEnabled = false
    let passwordValue: string | undefined
    const rawPassword = u["password"]
    if (rawPassword !== undefined && rawPassword !== null) {
      if (!isRecord(rawPassword))
        return yield* Either.left(invalid("access.password", "access.password must be an object"))
      const extraPassword = unknownKeyIn(rawPassword, "access.password", ["enabled", "value"])
      if (extraPassword !== undefined) return yield* Either.left(extraPassword)
      const enabled = rawPassword["enabled"] ?? false
      if (typeof enabled !== "boolean") {
        return yield* Either.left(invalid("access.password.enabled", "access.password.enabled must be true or false"))
      }
      const value = rawPassword["value"]
      if (value !== undefined) {
        if (typeof value !== "string" || characters(value) < 1 || characters(value) > MAX_PASSWORD_LENGTH) {
          return yield* Either.left(
            ApiError.make("INVALID_PAGE_PASSWORD", `The page password must be 1 to ${MAX_PASSWORD_LENGTH} characters`, {
              field: "access.password.value"
            })
          )
        }
        passwordValue = value
      }
      passwordEnabled = enabled
    }

    return {
      access: {
        protected: u["protected"],
        email_code: emailCode,
        session_days: sessionDays,
        recheck_days: recheckDays,
        password: { enabled: passwordEnabled }
      },
      passwordValue
    }
  })

/**
 * What the stored page contributes to judging an access write.
 *
 * @since 0.2.0
 * @category models
 */
export interface AccessContext {
  /** A password hash is on file. */
  readonly passwordStored: boolean
  /** The stored access has `protected: true` (such a page stays editable after its plan loses private pages). */
  readonly wasProtected: boolean
  /** The account's plan in force: private pages are one of its features. */
  readonly plan: Plan.Plan
}

/**
 * The rules of an access write against the stored page: a password turned on needs one on file or in the body
 * (400 `PASSWORD_REQUIRED`), a protected page needs a way in (400 `ACCESS_INVALID` on `access.protected`) and a
 * plan with private pages unless it was already protected (403 `PRIVATE_PAGES_DISABLED`).
 *
 * @since 0.2.0
 * @category rules
 */
export const resolveAccess = (
  input: AccessInput,
  context: AccessContext
): Either.Either<AccessInput, ApiError.ApiError> => {
  const { access } = input
  if (access.password.enabled && input.passwordValue === undefined && !context.passwordStored) {
    return Either.left(
      ApiError.make("PASSWORD_REQUIRED", "Turning the password on needs a password: send access.password.value", {
        field: "access.password.value"
      })
    )
  }
  if (access.protected) {
    const wayIn = (access.email_code.enabled && access.email_code.allow.length > 0) || access.password.enabled
    if (!wayIn) {
      return Either.left(
        invalid("access.protected", "A protected page needs a way in: the email code with a rule, or the password")
      )
    }
    if (!context.wasProtected) {
      const gated = PlanLimits.gate(context.plan, "private_pages")
      if (Option.isSome(gated)) return Either.left(gated.value)
    }
  }
  return Either.right(input)
}

// ---------------------------------------------------------------------------------------------------------------
// Pages

/**
 * A status page as answered. `live_url` is the custom domain when set, else `<base>/p/<slug>`; `logo_url` is null
 * without a logo.
 *
 * @since 0.2.0
 * @category models
 */
export class StatusPage extends Schema.Class<StatusPage>("StatusPage")({
  id: StatusPageId,
  slug: Schema.String,
  name: Schema.String,
  published: Schema.Boolean,
  public_locale: PublicLocale,
  custom_domain: Schema.NullOr(Schema.String),
  branding: Branding,
  access: Schema.NullOr(Access),
  live_url: Schema.String,
  logo_url: Schema.NullOr(Schema.String),
  write_source: WriteSource,
  managed_by: ManagedBy.Field,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const name = text(MAX_NAME_LENGTH)
const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * `POST /api/v1/status-pages`.
 *
 * @since 0.2.0
 * @category requests
 */
export const CreateStatusPage = RequestBody.Struct({
  slug: Slug,
  name,
  published: optional(Schema.Boolean),
  public_locale: optional(PublicLocale),
  custom_domain: optional(Schema.NullOr(CustomDomain)),
  branding: optional(BrandingPatch),
  access: optional(AccessWrite)
}).annotations({ identifier: "CreateStatusPage" })

/**
 * @since 0.2.0
 * @category requests
 */
export type CreateStatusPage = typeof CreateStatusPage.Type

/**
 * `PATCH /api/v1/status-pages/{id}`: any of the create fields; `custom_domain: null` removes the domain.
 *
 * @since 0.2.0
 * @category requests
 */
export const PatchStatusPage = RequestBody.Struct({
  slug: optional(Slug),
  name: optional(name),
  published: optional(Schema.Boolean),
  public_locale: optional(PublicLocale),
  custom_domain: optional(Schema.NullOr(CustomDomain)),
  branding: optional(BrandingPatch),
  access: optional(AccessWrite)
}).annotations({ identifier: "PatchStatusPage" })

/**
 * @since 0.2.0
 * @category requests
 */
export type PatchStatusPage = typeof PatchStatusPage.Type

// ---------------------------------------------------------------------------------------------------------------
// Components

/**
 * A monitor curated onto a page, with the public fields it shows there (null: the monitor's own name, no
 * description, no group).
 *
 * @since 0.2.0
 * @category models
 */
export class Component extends Schema.Class<Component>("StatusPageComponent")({
  target_id: TargetId,
  public_name: Schema.NullOr(Schema.String),
  public_description: Schema.NullOr(Schema.String),
  public_group: Schema.NullOr(Schema.String),
  sort_order: Schema.Int
}) {}

const publicFields = {
  public_name: optional(Schema.NullOr(text(MAX_NAME_LENGTH))),
  public_description: optional(Schema.NullOr(text(MAX_DESCRIPTION_LENGTH))),
  public_group: optional(Schema.NullOr(text(MAX_NAME_LENGTH)))
}

/**
 * `POST /api/v1/status-pages/{id}/components`: a monitor of the org, placed last.
 *
 * @since 0.2.0
 * @category requests
 */
export const AddComponent = RequestBody.Struct({ target_id: TargetId, ...publicFields }).annotations({
  identifier: "AddComponent"
})

/**
 * @since 0.2.0
 * @category requests
 */
export type AddComponent = typeof AddComponent.Type

/**
 * `PATCH /api/v1/status-pages/{id}/components/{target_id}`: JSON null clears a field, omitting leaves it.
 *
 * @since 0.2.0
 * @category requests
 */
export const PatchComponent = RequestBody.Struct(publicFields).annotations({ identifier: "PatchComponent" })

/**
 * @since 0.2.0
 * @category requests
 */
export type PatchComponent = typeof PatchComponent.Type

/**
 * `POST /api/v1/status-pages/{id}/components/reorder`: every component of the page, once, in the new order.
 *
 * @since 0.2.0
 * @category requests
 */
export const ReorderComponents = RequestBody.Struct({ target_ids: Schema.Array(TargetId) }).annotations({
  identifier: "ReorderComponents"
})

/**
 * @since 0.2.0
 * @category requests
 */
export type ReorderComponents = typeof ReorderComponents.Type

/**
 * Checks a reorder against the page's components: each exactly once, nothing else (400 `VALIDATION_FAILED` on
 * `target_ids`, details naming the missing, unknown and repeated ids). Ids compare case-insensitively; the answer
 * is the new order in lower case.
 *
 * @since 0.2.0
 * @category rules
 */
export const checkReorder = (
  current: ReadonlyArray<string>,
  requested: ReadonlyArray<string>
): Either.Either<ReadonlyArray<string>, ApiError.ApiError> => {
  const have = new Set(current.map((id) => id.toLowerCase()))
  const order = requested.map((id) => id.toLowerCase())
  const seen = new Set<string>()
  const repeated: Array<string> = []
  for (const id of order) {
    if (seen.has(id)) repeated.push(id)
    seen.add(id)
  }
  const unknown = order.filter((id) => !have.has(id))
  const missing = [...have].filter((id) => !seen.has(id))
  if (repeated.length === 0 && unknown.length === 0 && missing.length === 0) return Either.right(order)
  return Either.left(
    ApiError.make("VALIDATION_FAILED", "target_ids must list every component of the page exactly once", {
      field: "target_ids",
      details: { missing, unknown, repeated }
    })
  )
}

// ---------------------------------------------------------------------------------------------------------------
// Private access records

/**
 * A person who signed in to a private page with the email code.
 *
 * @since 0.2.0
 * @category models
 */
export class Viewer extends Schema.Class<Viewer>("StatusPageViewer")({
  id: ViewerId,
  email: Schema.String,
  blocked: Schema.Boolean,
  blocked_at: Schema.NullOr(Schema.DateTimeUtc),
  first_sign_in_at: Schema.DateTimeUtc,
  last_sign_in_at: Schema.NullOr(Schema.DateTimeUtc),
  last_visit_on: Schema.NullOr(Schema.String),
  sessions: Schema.Int
}) {}

/**
 * A viewer's history over the last year: the days they opened the page and their sign-ins, newest first.
 *
 * @since 0.2.0
 * @category models
 */
export const ViewerHistory = Schema.Struct({
  visit_days: Schema.Array(Schema.String),
  sign_ins: Schema.Array(Schema.Struct({ at: Schema.DateTimeUtc, method: Schema.Literal("email_code") }))
}).annotations({ identifier: "StatusPageViewerHistory" })

/**
 * The page password's use record.
 *
 * @since 0.2.0
 * @category models
 */
export const PasswordRecord = Schema.Struct({
  enabled: Schema.Boolean,
  set_at: Schema.NullOr(Schema.DateTimeUtc),
  set_by: Schema.NullOr(Schema.String),
  sessions: Schema.Int,
  last_sign_in_at: Schema.NullOr(Schema.DateTimeUtc),
  failed_last_24h: Schema.Int,
  subscriptions: Schema.Int
}).annotations({ identifier: "StatusPagePasswordRecord" })

/**
 * @since 0.2.0
 * @category models
 */
export type PasswordRecord = typeof PasswordRecord.Type
