/**
 * Heartbeat and manual monitors (`/api/v1/targets/{id}/heartbeat*` and `/api/v1/targets/{id}/state`): the heartbeat
 * record, the rotation of its ping URL, and the state an operator sets on a manual monitor. The ping URLs themselves
 * (`<public base>/ping/<token>`) are outside this contract: no auth, any body, GET or POST.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { HeartbeatRecord } from "../heartbeat/HeartbeatRecord.js"
import { RotateRequest } from "../heartbeat/Rotation.js"
import { ManualState, SetStateRequest } from "../ManualState.js"
import { TargetId } from "../Target.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

const targetPath = Schema.Struct({ id: TargetId })

/**
 * @since 0.1.0
 * @category groups
 */
export class HeartbeatsApi extends HttpApiGroup.make("heartbeats")
  .add(
    HttpApiEndpoint.get("record", "/targets/:id/heartbeat")
      // targets:write although a read: the record holds the ping URL, a capability to report on the monitor.
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .addSuccess(HeartbeatRecord)
      .annotate(
        OpenApi.Description,
        "The heartbeat record: ping URL, timestamps, last failure, observed period and cadence advice, rotation " +
          "overlap. A monitor of another kind is 404. Scope targets:write (the record holds the ping URL)."
      )
  )
  .add(
    HttpApiEndpoint.post("rotate", "/targets/:id/heartbeat/rotate")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .setPayload(RotateRequest)
      .addSuccess(HeartbeatRecord)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "A new ping URL. With {} the previous URL keeps working for 24 hours (previous_url_expires_at); with " +
          "revoke_previous_immediately true it 404s from this commit. Scope targets:write."
      )
  )
  .add(
    HttpApiEndpoint.del("endPrevious", "/targets/:id/heartbeat/previous")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Description, "End the rotation overlap now; 204 whether or not there was one.")
  )
  .add(
    HttpApiEndpoint.get("state", "/targets/:id/state")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .addSuccess(ManualState)
      .annotate(
        OpenApi.Description,
        "A manual monitor's state; another kind is 404 MANUAL_NOT_CONFIGURED. Scope targets:read."
      )
  )
  .add(
    HttpApiEndpoint.put("setState", "/targets/:id/state")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .setPayload(SetStateRequest)
      .addSuccess(ManualState)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Set status (up, degraded, down) and an optional one-line note; a bad one is 400 INVALID_MANUAL_STATE. " +
          "The same status and note again changes nothing. Scope targets:write."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Heartbeat and manual monitors") {}
