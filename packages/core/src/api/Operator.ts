/**
 * The operator surface (`/operator/*`): regions, probe agents, and accounts' plans and overrides. Gated by the
 * static `operator.admin_token` bearer secret; every route answers 404 while that setting is unset. Kept out of the
 * public API document.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { AccountId } from "../Identity.js"
import * as Plan from "../Plan.js"
import * as RequestBody from "../RequestBody.js"

/**
 * @since 0.1.0
 * @category middleware
 */
export class OperatorAuthentication extends HttpApiMiddleware.Tag<OperatorAuthentication>()(
  "Signalman/OperatorAuthentication",
  {
    failure: Schema.Union(ApiError.Wire.NotFound, ApiError.Wire.Unauthorized)
  }
) {}

/**
 * @since 0.1.0
 * @category models
 */
export const RegionId = Schema.String.pipe(
  Schema.pattern(/^[a-z0-9][a-z0-9-]{0,31}$/),
  Schema.annotations({ identifier: "RegionId", description: "1-32 lower-case letters, digits and hyphens" })
)

const regionFields = {
  name: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100)),
  city: Schema.NullOr(Schema.String.pipe(Schema.maxLength(100))),
  country_code: Schema.NullOr(Schema.String.pipe(Schema.pattern(/^[A-Z]{2}$/))),
  continent: Schema.NullOr(Schema.Literal("AF", "AN", "AS", "EU", "NA", "OC", "SA")),
  latitude: Schema.NullOr(Schema.Number.pipe(Schema.between(-90, 90))),
  longitude: Schema.NullOr(Schema.Number.pipe(Schema.between(-180, 180))),
  enabled: Schema.Boolean
}

/**
 * A probe region as operators see it. `flow_capable` is computed, never set: whether a browser flow can run there
 * now (an agent of the region that is not revoked reported a browser and was seen in the last 5 minutes; for
 * `local`, a process of the service that runs its checks has a browser).
 *
 * @since 0.1.0
 * @category models
 */
export class OperatorRegion extends Schema.Class<OperatorRegion>("OperatorRegion")({
  id: RegionId,
  ...regionFields,
  flow_capable: Schema.Boolean,
  agents: Schema.Int
}) {}

const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * @since 0.1.0
 * @category requests
 */
export const CreateRegion = RequestBody.Struct({
  id: RegionId,
  name: regionFields.name,
  city: optional(regionFields.city),
  country_code: optional(regionFields.country_code),
  continent: optional(regionFields.continent),
  latitude: optional(regionFields.latitude),
  longitude: optional(regionFields.longitude),
  enabled: optional(regionFields.enabled)
}).annotations({ identifier: "CreateRegion" })

/**
 * @since 0.1.0
 * @category requests
 */
export const UpdateRegion = RequestBody.Struct({
  name: optional(regionFields.name),
  city: optional(regionFields.city),
  country_code: optional(regionFields.country_code),
  continent: optional(regionFields.continent),
  latitude: optional(regionFields.latitude),
  longitude: optional(regionFields.longitude),
  enabled: optional(regionFields.enabled)
}).annotations({ identifier: "UpdateRegion" })

/**
 * @since 0.1.0
 * @category models
 */
export class Agent extends Schema.Class<Agent>("Agent")({
  id: Schema.UUID,
  region_id: RegionId,
  name: Schema.String,
  prefix: Schema.String,
  created_at: Schema.DateTimeUtc,
  /** The agent's last sign of life: its hello, a delivery, or its open stream (refreshed every few seconds). */
  last_seen_at: Schema.NullOr(Schema.DateTimeUtc),
  /** What the agent reported in its last hello; null until its first. */
  version: Schema.NullOr(Schema.String),
  browser: Schema.NullOr(Schema.String),
  concurrency: Schema.NullOr(Schema.Int),
  /** Whether the agent has a stream open now. */
  connected: Schema.Boolean
}) {}

/**
 * The answer to an agent's creation: the only time its `sm_agent_` token is shown.
 *
 * @since 0.1.0
 * @category models
 */
export class CreatedAgent extends Schema.Class<CreatedAgent>("CreatedAgent")({
  ...Agent.fields,
  token: Schema.String
}) {}

/**
 * @since 0.1.0
 * @category requests
 */
export const CreateAgent = RequestBody.Struct({
  region_id: RegionId,
  name: Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100))
}).annotations({ identifier: "CreateAgent" })

/**
 * @since 0.1.0
 * @category models
 */
export class OperatorAccount extends Schema.Class<OperatorAccount>("OperatorAccount")({
  id: Schema.UUID,
  plan_id: Schema.String,
  created_at: Schema.DateTimeUtc,
  deleted_at: Schema.NullOr(Schema.DateTimeUtc),
  overrides: Plan.Overrides,
  users: Schema.Array(Schema.String),
  orgs: Schema.Array(Schema.String)
}) {}

const accountPath = Schema.Struct({ id: AccountId })
const agentPath = Schema.Struct({ id: Schema.UUID })
const regionPath = Schema.Struct({ id: RegionId })

/**
 * @since 0.1.0
 * @category groups
 */
export class OperatorApi extends HttpApiGroup.make("operator")
  .add(HttpApiEndpoint.get("listRegions", "/regions").addSuccess(Schema.Struct({ data: Schema.Array(OperatorRegion) })))
  .add(
    HttpApiEndpoint.post("createRegion", "/regions")
      .setPayload(CreateRegion)
      .addSuccess(OperatorRegion, { status: 201 })
      .addError(ApiError.Wire.Conflict)
  )
  .add(
    HttpApiEndpoint.patch("updateRegion", "/regions/:id")
      .setPath(regionPath)
      .setPayload(UpdateRegion)
      .addSuccess(OperatorRegion)
  )
  .add(
    HttpApiEndpoint.del("deleteRegion", "/regions/:id")
      .setPath(regionPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiError.Wire.Conflict)
  )
  .add(HttpApiEndpoint.get("listAgents", "/agents").addSuccess(Schema.Struct({ data: Schema.Array(Agent) })))
  .add(HttpApiEndpoint.post("createAgent", "/agents").setPayload(CreateAgent).addSuccess(CreatedAgent, { status: 201 }))
  .add(HttpApiEndpoint.del("deleteAgent", "/agents/:id").setPath(agentPath).addSuccess(HttpApiSchema.NoContent))
  .add(
    HttpApiEndpoint.get("findAccounts", "/accounts")
      .setUrlParams(Schema.Struct({ email: Schema.String }))
      .addSuccess(Schema.Struct({ data: Schema.Array(OperatorAccount) }))
  )
  .add(
    HttpApiEndpoint.put("setPlan", "/accounts/:id/plan")
      .setPath(accountPath)
      .setPayload(RequestBody.Struct({ plan_id: Plan.PlanId }))
      .addSuccess(OperatorAccount)
  )
  .add(
    HttpApiEndpoint.put("setOverrides", "/accounts/:id/overrides")
      .setPath(accountPath)
      .setPayload(Plan.Overrides.annotations(RequestBody.strict))
      .addSuccess(OperatorAccount)
  )
  .middleware(OperatorAuthentication)
  .prefix("/operator")
  .annotate(OpenApi.Exclude, true) {}
