/**
 * Org variables (`/api/v1/variables*`): values that checks reference as `{{key}}`.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import * as ManagedBy from "../ManagedBy.js"
import * as Pagination from "../Pagination.js"
import { CreateVariable, RotateVariable, Variable, VariableId } from "../Variable.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

/**
 * The query of `GET /api/v1/variables`: the same paging as the targets list, and an optional config project
 * (`managed_by`).
 *
 * @since 0.1.0
 * @category requests
 */
export const ListVariables = Schema.Struct({
  ...Pagination.query,
  managed_by: Schema.optionalWith(ManagedBy.Project, { exact: true })
})

/**
 * A page of variables.
 *
 * @since 0.1.0
 * @category models
 */
export const VariablePage = Pagination.page(Variable, "VariablePage")

const variablePath = Schema.Struct({ id: VariableId })

/**
 * @since 0.1.0
 * @category groups
 */
export class VariablesApi extends HttpApiGroup.make("variables")
  .add(
    HttpApiEndpoint.get("list", "/variables")
      .annotateContext(requires("variables:read"))
      .setUrlParams(ListVariables)
      .addSuccess(VariablePage)
      .annotate(
        OpenApi.Description,
        "The org's variables by key, each with used_by; managed_by (a config project) keeps that project's. Scope " +
          "variables:read."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/variables/:id")
      .annotateContext(requires("variables:read"))
      .setPath(variablePath)
      .addSuccess(Variable)
      .annotate(OpenApi.Description, "One variable; a secret's value is null. Scope variables:read.")
  )
  .add(
    HttpApiEndpoint.post("create", "/variables")
      .annotateContext(requires("variables:write"))
      .setPayload(CreateVariable)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(Variable, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Description,
        "Create a variable; a key not matching ^[a-z][a-z0-9_]{0,62}$ is 400 INVALID_VARIABLE_KEY, a key the org " +
          `already has is 409 VARIABLE_KEY_EXISTS. ${ManagedBy.WRITE_NOTE} Scope variables:write.`
      )
  )
  .add(
    HttpApiEndpoint.patch("rotate", "/variables/:id")
      .annotateContext(requires("variables:write"))
      .setPath(variablePath)
      .setPayload(RotateVariable)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(Variable)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Description,
        `Replace the value (a rotation); without value the stored one stays. ${ManagedBy.WRITE_NOTE} Scope ` +
          "variables:write."
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/variables/:id")
      .annotateContext(requires("variables:delete"))
      .setPath(variablePath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Description,
        "Delete a variable; 409 VARIABLE_IN_USE while a monitor references it. Scope variables:delete."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Variables") {}
