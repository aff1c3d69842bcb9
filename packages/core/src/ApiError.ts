/**
 * The error catalogue: every error code of the specification with its HTTP status, and one error class per
 * status whose wire form is the envelope `{ error: { code, message, field, details, trace_id } }`.
 *
 * Handlers fail with these; the server renders the envelope in one place and fills `trace_id` with the
 * request id. The SDK decodes the same envelope back into these classes.
 *
 * @since 0.1.0
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"

/**
 * The envelope's inner object.
 *
 * @since 0.1.0
 * @category models
 */
export const ErrorObject = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  field: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  trace_id: Schema.NullOr(Schema.String)
}).annotations({ identifier: "ErrorObject" })

/**
 * Every error response body.
 *
 * @since 0.1.0
 * @category models
 */
export const ErrorEnvelope = Schema.Struct({ error: ErrorObject }).annotations({
  identifier: "ErrorEnvelope",
  description: "Every error answers with this envelope; trace_id equals the X-Request-Id response header."
})

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorEnvelope = typeof ErrorEnvelope.Type

const fields = {
  code: Schema.String,
  message: Schema.String,
  field: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  trace_id: Schema.NullOr(Schema.String)
}

/** @since 0.1.0 @category errors */
export class BadRequest extends Schema.TaggedError<BadRequest>()("BadRequest", fields) {
  readonly status = 400
}
/** @since 0.1.0 @category errors */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields) {
  readonly status = 401
}
/** @since 0.1.0 @category errors */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields) {
  readonly status = 403
}
/** @since 0.1.0 @category errors */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields) {
  readonly status = 404
}
/** @since 0.1.0 @category errors */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", fields) {
  readonly status = 405
}
/** @since 0.1.0 @category errors */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields) {
  readonly status = 409
}
/** @since 0.1.0 @category errors */
export class Gone extends Schema.TaggedError<Gone>()("Gone", fields) {
  readonly status = 410
}
/** @since 0.1.0 @category errors */
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields) {
  readonly status = 413
}
/** @since 0.1.0 @category errors */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", fields) {
  readonly status = 415
}
/** @since 0.1.0 @category errors */
export class UnprocessableEntity extends Schema.TaggedError<UnprocessableEntity>()("UnprocessableEntity", fields) {
  readonly status = 422
}
/** @since 0.1.0 @category errors */
export class TooManyRequests extends Schema.TaggedError<TooManyRequests>()("TooManyRequests", fields) {
  readonly status = 429
}
/** @since 0.1.0 @category errors */
export class InternalServerError extends Schema.TaggedError<InternalServerError>()("InternalServerError", fields) {
  readonly status = 500
}
/** @since 0.1.0 @category errors */
export class ServiceUnavailable extends Schema.TaggedError<ServiceUnavailable>()("ServiceUnavailable", fields) {
  readonly status = 503
}

/**
 * Any error of the catalogue.
 *
 * @since 0.1.0
 * @category models
 */
export type ApiError =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | MethodNotAllowed
  | Conflict
  | Gone
  | PayloadTooLarge
  | UnsupportedMediaType
  | UnprocessableEntity
  | TooManyRequests
  | InternalServerError
  | ServiceUnavailable

const classes = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  405: MethodNotAllowed,
  409: Conflict,
  410: Gone,
  413: PayloadTooLarge,
  415: UnsupportedMediaType,
  422: UnprocessableEntity,
  429: TooManyRequests,
  500: InternalServerError,
  503: ServiceUnavailable
} as const

/**
 * The statuses an error can carry.
 *
 * @since 0.1.0
 * @category models
 */
export type Status = keyof typeof classes

/**
 * The error class for a status.
 *
 * @since 0.1.0
 * @category models
 */
export type ErrorOf<S extends Status> = InstanceType<(typeof classes)[S]>

/**
 * Every error code with its status. The specification's codes first, then the ones `decisions.md` adds.
 * `INVALID_JSON` is 400 for a body that is not JSON; an unknown key is 422 (see {@link unknownKey}).
 *
 * @since 0.1.0
 * @category models
 */
export const codes = {
  INVALID_JSON: 400,
  INVALID_CONTENT_TYPE: 415,
  REDACTION_SENTINEL: 400,
  CHECK_KIND_IMMUTABLE: 400,
  INVALID_IP_VERSION: 400,
  INVALID_DNS_PARAMS: 400,
  INVALID_ADDRESS: 400,
  INVALID_FLOW_PARAMS: 400,
  INVALID_ALERT_CONFIG: 400,
  INVALID_INTERVAL: 400,
  INVALID_MANUAL_STATE: 400,
  MANUAL_NOT_CONFIGURED: 404,
  HEARTBEAT_NOT_PROBEABLE: 422,
  FLOW_CHECKS_DISABLED: 403,
  REGION_INVALID: 422,
  QUOTA_EXCEEDED: 422,
  NO_FLOW_CAPABLE_AGENT: 422,
  BULK_TOO_LARGE: 413,
  UNRESOLVED_VARIABLE: 422,
  INVALID_VARIABLE_KEY: 400,
  VARIABLE_KEY_EXISTS: 409,
  VARIABLE_IN_USE: 409,
  SHARE_LABEL_INVALID: 400,
  INVALID_EXPIRY: 400,
  COMPONENT_ALREADY_ON_PAGE: 409,
  PRIVATE_PAGES_DISABLED: 403,
  ACCESS_INVALID: 400,
  INVALID_PAGE_PASSWORD: 400,
  PASSWORD_REQUIRED: 400,
  PAGE_SIGN_IN_REQUIRED: 401,
  MAINTENANCE_CANCELLED: 422,
  MAINTENANCE_UPDATE_LIMIT: 422,
  BILLING_UNAVAILABLE: 404,
  ACCOUNT_OWNER_REQUIRED: 403,
  PLAN_NOT_FOR_SALE: 409,
  SUBSCRIPTION_STATE: 409,
  INVALID_STATE: 400,
  AUTH_METHOD_UNAVAILABLE: 404,
  PASSKEY_NOT_DISCOVERABLE: 400,
  INSUFFICIENT_SCOPE: 403,
  ORG_HEADER_MISMATCH: 403,
  ORG_REQUIRED: 400,
  ORG_HEADER_INVALID: 400,
  OWNER_ORG_LIMIT: 422,
  INVITATIONS_LIMIT: 409,
  MIN_CHECK_INTERVAL: 422,
  RATE_LIMITED: 429,
  URL_PATTERN_BLOCKED: 400,
  ABUSE_BLOCKED: 400,
  DOMAIN_DENYLISTED: 400,
  TARGET_ADDRESS_BLOCKED: 400,
  UNAUTHENTICATED: 401,
  CSRF_REQUIRED: 403,
  SESSION_REQUIRED: 403,
  OWNER_REQUIRED: 403,
  VALIDATION_FAILED: 400,
  INVALID_CODE: 400,
  ALREADY_MEMBER: 409,
  REGION_IN_USE: 409,
  EMAIL_NOT_VERIFIED: 403,
  ACCOUNT_PENDING_DELETION: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  SLUG_TAKEN: 409,
  INCIDENT_NOT_DECLARED: 422,
  MAINTENANCE_ENDED: 422,
  PAYLOAD_TOO_LARGE: 413,
  SMS_ALERTS_DISABLED: 403,
  // Ours (docs/decisions.md, "Bulk writes"): an Idempotency-Key sent again with another body.
  IDEMPOTENCY_KEY_REUSED: 422,
  // Ours (docs/decisions.md, "Incidents on the server"): public narration without the plan's flag.
  INCIDENT_NARRATION_DISABLED: 403,
  // Ours (docs/status-pages.md, "Management and private access"): plan flags, a taken domain, a logo's type.
  CUSTOM_DOMAIN_DISABLED: 403,
  WHITE_LABEL_DISABLED: 403,
  CUSTOM_DOMAIN_TAKEN: 409,
  LOGO_TYPE_UNSUPPORTED: 415,
  // Ours (docs/decisions.md, "Monitoring as code: managed_by"): a (project, key) another resource of the kind holds.
  MANAGED_KEY_TAKEN: 409,
  // Ours (docs/decisions.md, "Sign-in (issue 16)"): a passkey response that does not verify (unknown or retired
  // credential, bad signature, wrong origin or challenge); one code for all, so a guess learns nothing.
  PASSKEY_INVALID: 400,
  // Ours (docs/decisions.md, "Sign-in (issue 16)"): the provider vouches for no address (403, as
  // EMAIL_NOT_VERIFIED: who the person is was understood, the proof is not enough), and removing the last way in.
  NO_VERIFIED_EMAIL: 403,
  LAST_SIGN_IN_METHOD: 409,
  // Ours (docs/decisions.md, "Billing (issue 17)"): the payment provider did not answer (5xx, 429 or a timeout,
  // after the adapter's retries), or refused the call (its 4xx); nothing changed on our side either way.
  PAYMENT_PROVIDER_UNAVAILABLE: 503,
  PAYMENT_PROVIDER_REFUSED: 409,
  // Ours (docs/on-call.md, "The API"): the plan's on_call_enabled, and deleting a schedule a policy names or a
  // policy a monitor binds (or the org's default).
  ON_CALL_DISABLED: 403,
  SCHEDULE_IN_USE: 409,
  ESCALATION_POLICY_IN_USE: 409,
  // Ours (docs/decisions.md, "MCP server (issue 19)"): a browser page of another origin calling /mcp (the MCP
  // transport's DNS-rebinding protection).
  ORIGIN_NOT_ALLOWED: 403,
  INTERNAL_ERROR: 500,
  NOT_READY: 503
} as const satisfies Record<string, Status>

/**
 * @since 0.1.0
 * @category models
 */
export type Code = keyof typeof codes

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly field?: string | null | undefined
  readonly details?: Record<string, unknown> | undefined
}

const construct = <S extends Status>(status: S, code: string, message: string, options?: Options): ErrorOf<S> => {
  const Class = classes[status]
  return new Class({
    code,
    message,
    field: options?.field ?? null,
    details: options?.details ?? {},
    trace_id: null
  }) as ErrorOf<S>
}

/**
 * The error for a code, with the status the catalogue gives it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <C extends Code>(code: C, message: string, options?: Options): ErrorOf<(typeof codes)[C]> =>
  construct(codes[code], code, message, options)

/**
 * The same error for an item of a many-item request: its field placed under the item's path (`targets[3].` +
 * `check.url`). An error about the whole request (no field) is left as it is.
 *
 * @since 0.1.0
 * @category constructors
 */
export const underField = <E extends ApiError>(error: E, prefix: string): E =>
  error.field === null
    ? error
    : (construct(error.status, error.code, error.message, {
        field: `${prefix}${error.field}`,
        details: error.details
      }) as E)

/**
 * The same error naming another field: a rule shared by two request shapes reports the field of the one sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const atField = <E extends ApiError>(error: E, field: string): E =>
  construct(error.status, error.code, error.message, { field, details: error.details }) as E

/**
 * An unknown key in a request body: 422 `INVALID_JSON` naming the key by its path.
 *
 * @since 0.1.0
 * @category constructors
 */
export const unknownKey = (field: string, message: string, accepted: ReadonlyArray<string>): UnprocessableEntity =>
  construct(422, "INVALID_JSON", message, { field, details: { accepted } })

const tags = new Set<string>(Object.values(classes).map((Class) => Class._tag))

/**
 * @since 0.1.0
 * @category refinements
 */
export const isApiError = (u: unknown): u is ApiError =>
  typeof u === "object" &&
  u !== null &&
  "_tag" in u &&
  typeof u._tag === "string" &&
  tags.has(u._tag) &&
  "code" in u &&
  "status" in u

/**
 * The envelope for an error, stamped with the request's trace id.
 *
 * @since 0.1.0
 * @category encoding
 */
export const toEnvelope = (error: ApiError, traceId: string | null): ErrorEnvelope => ({
  error: { code: error.code, message: error.message, field: error.field, details: error.details, trace_id: traceId }
})

type AnyClass = (typeof classes)[Status]

const wire = <C extends AnyClass>(Class: C, status: Status) =>
  Schema.transform(ErrorEnvelope, Schema.instanceOf(Class as unknown as new (...args: never) => InstanceType<C>), {
    strict: false,
    decode: ({ error }) => new Class(error),
    encode: (e: ApiError) => toEnvelope(e, e.trace_id)
  }).annotations({
    ...HttpApiSchema.annotations({ status }),
    identifier: Class._tag,
    title: Class._tag,
    description: `Error envelope with status ${status}`
  })

/**
 * The wire schemas to declare on endpoints: each decodes the envelope of its status into its error class.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Wire = {
  BadRequest: wire(BadRequest, 400),
  Unauthorized: wire(Unauthorized, 401),
  Forbidden: wire(Forbidden, 403),
  NotFound: wire(NotFound, 404),
  MethodNotAllowed: wire(MethodNotAllowed, 405),
  Conflict: wire(Conflict, 409),
  Gone: wire(Gone, 410),
  PayloadTooLarge: wire(PayloadTooLarge, 413),
  UnsupportedMediaType: wire(UnsupportedMediaType, 415),
  UnprocessableEntity: wire(UnprocessableEntity, 422),
  TooManyRequests: wire(TooManyRequests, 429),
  InternalServerError: wire(InternalServerError, 500),
  ServiceUnavailable: wire(ServiceUnavailable, 503)
} as const
