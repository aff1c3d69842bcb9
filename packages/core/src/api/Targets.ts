/**
 * Monitors (`/api/v1/targets*`). This release has the one-shot test of a check; the stored resource comes next.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as ApiError from "../ApiError.js"
import { CheckResult } from "../CheckResult.js"
import { CheckSpec } from "../CheckSpec.js"
import * as RequestBody from "../RequestBody.js"
import { Authentication } from "./Authentication.js"

/**
 * `POST /api/v1/targets/test` (decisions.md: `{ "check": <CheckSpec> }`).
 *
 * @since 0.1.0
 * @category requests
 */
export const TestCheck = RequestBody.Struct({ check: CheckSpec }).annotations({ identifier: "TestCheck" })

/**
 * @since 0.1.0
 * @category groups
 */
export class TargetsApi extends HttpApiGroup.make("targets")
  .add(
    HttpApiEndpoint.post("test", "/targets/test")
      .setPayload(TestCheck)
      .addSuccess(CheckResult)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Runs a check once from the local region and answers its result; nothing is stored. Scope targets:execute, " +
          "rate budget test_now. Heartbeat and manual checks have no probe: 422 HEARTBEAT_NOT_PROBEABLE."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Targets") {}
