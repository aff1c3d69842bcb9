/**
 * Operational endpoints: liveness and readiness, for load balancers and orchestrators.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"

/**
 * @since 0.1.0
 * @category models
 */
export class Health extends Schema.Class<Health>("Health")({
  status: Schema.Literal("ok")
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export class Readiness extends Schema.Class<Readiness>("Readiness")({
  status: Schema.Literal("ready"),
  checks: Schema.Struct({ database: Schema.Literal("ok") })
}) {}

/**
 * @since 0.1.0
 * @category groups
 */
export class OperationsApi extends HttpApiGroup.make("operations", { topLevel: true })
  .add(
    HttpApiEndpoint.get("healthz", "/healthz")
      .addSuccess(Health)
      .annotate(OpenApi.Summary, "Liveness: always 200 once the process is up")
  )
  .add(
    HttpApiEndpoint.get("readyz", "/readyz")
      .addSuccess(Readiness)
      .addError(ApiError.Wire.ServiceUnavailable)
      .annotate(OpenApi.Summary, "Readiness: 503 NOT_READY while the database is unreachable or the process stops")
  )
  .annotate(OpenApi.Title, "Operations") {}
