/**
 * The Signalman HTTP API: every group, defined once. The server implements it, the SDK derives its client
 * from it and `/api/openapi.json` is generated from it.
 *
 * @since 0.1.0
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import * as ApiError from "../ApiError.js"
import { AgentApi } from "./Agent.js"
import { AuthApi } from "./Auth.js"
import { BillingApi } from "./Billing.js"
import { ChannelsApi } from "./Channels.js"
import { HeartbeatsApi } from "./Heartbeats.js"
import { HoldsApi } from "./Holds.js"
import { IncidentsApi } from "./Incidents.js"
import { MaintenanceApi } from "./Maintenance.js"
import { MeApi } from "./Me.js"
import { OnCallApi } from "./OnCall.js"
import { finalize } from "./OpenApiDocument.js"
import { OperationsApi } from "./Operations.js"
import { OperatorApi } from "./Operator.js"
import { InvitationsPublicApi, OrgsApi } from "./Orgs.js"
import { PublicApi } from "./Public.js"
import { ResultsApi } from "./Results.js"
import { SharesApi } from "./Shares.js"
import { SignInMethodsApi } from "./SignInMethods.js"
import { StatusPagesApi } from "./StatusPages.js"
import { SubscriptionsApi } from "./Subscriptions.js"
import { TargetsApi } from "./Targets.js"
import { VariablesApi } from "./Variables.js"

/**
 * @since 0.1.0
 * @category api
 */
export class SignalmanApi extends HttpApi.make("signalman")
  .add(OperationsApi)
  .add(AuthApi)
  .add(MeApi)
  .add(SignInMethodsApi)
  .add(OrgsApi)
  .add(BillingApi)
  .add(InvitationsPublicApi)
  .add(TargetsApi)
  .add(HeartbeatsApi)
  .add(ResultsApi)
  .add(SharesApi)
  .add(SubscriptionsApi)
  .add(VariablesApi)
  .add(ChannelsApi)
  .add(MaintenanceApi)
  .add(IncidentsApi)
  .add(OnCallApi)
  .add(StatusPagesApi)
  .add(HoldsApi)
  .add(OperatorApi)
  .add(AgentApi)
  .add(PublicApi)
  // Errors any route can answer with, whatever its own errors: malformed bodies, unknown routes, server faults.
  .addError(ApiError.Wire.BadRequest)
  .addError(ApiError.Wire.Unauthorized)
  .addError(ApiError.Wire.Forbidden)
  .addError(ApiError.Wire.NotFound)
  .addError(ApiError.Wire.MethodNotAllowed)
  .addError(ApiError.Wire.PayloadTooLarge)
  .addError(ApiError.Wire.UnsupportedMediaType)
  .addError(ApiError.Wire.UnprocessableEntity)
  .addError(ApiError.Wire.TooManyRequests)
  .addError(ApiError.Wire.InternalServerError)
  .annotate(OpenApi.Title, "Signalman API")
  .annotate(OpenApi.Version, "1.0.0")
  .annotate(OpenApi.Transform, finalize)
  .annotate(
    OpenApi.Description,
    "Uptime monitoring, incidents and status pages. Every error answers with the envelope " +
      "{ error: { code, message, field, details, trace_id } }."
  ) {}
