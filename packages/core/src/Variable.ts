/**
 * Org variables (service-api.md "Variable"): values a check names as `{{key}}`, optionally secret. A secret's
 * value is written once and never read back through the API.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ManagedBy from "./ManagedBy.js"
import * as RequestBody from "./RequestBody.js"

/**
 * @since 0.1.0
 * @category ids
 */
export const VariableId = Schema.UUID.pipe(Schema.brand("VariableId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type VariableId = typeof VariableId.Type

/**
 * The most characters a value may hold.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_VALUE_LENGTH = 4096

const value = Schema.String.pipe(Schema.maxLength(MAX_VALUE_LENGTH))

/**
 * `POST /api/v1/variables`. The key is any string here: the handler checks it against `Variables.KEY_PATTERN`
 * so a bad key answers 400 INVALID_VARIABLE_KEY rather than a generic decode failure.
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateVariable = RequestBody.Struct({
  key: Schema.String,
  is_secret: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  value
}).annotations({ identifier: "CreateVariable" })

/**
 * @since 0.1.0
 * @category requests
 */
export type CreateVariable = typeof CreateVariable.Type

/**
 * `PATCH /api/v1/variables/{id}`: a new value (a rotation); the key and `is_secret` are fixed at create. Without
 * `value` the stored one stays: `{}` with the `Signalman-Managed-By` header only adopts the variable.
 *
 * @since 0.1.0
 * @category requests
 */
export const RotateVariable = RequestBody.Struct({ value: Schema.optionalWith(value, { exact: true }) }).annotations({
  identifier: "RotateVariable"
})

/**
 * @since 0.1.0
 * @category requests
 */
export type RotateVariable = typeof RotateVariable.Type

/**
 * A variable as the service answers it: `value` is null for a secret, `used_by` counts the org's monitors that
 * reference the key, and `managed_by` names the config project and key that manage it (null when nobody does).
 *
 * @since 0.1.0
 * @category models
 */
export class Variable extends Schema.Class<Variable>("Variable")({
  id: VariableId,
  key: Schema.String,
  is_secret: Schema.Boolean,
  value: Schema.NullOr(Schema.String),
  used_by: Schema.Int,
  managed_by: ManagedBy.Field
}) {}
