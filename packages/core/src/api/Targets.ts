/**
 * Monitors (`/api/v1/targets*`): the resource, and the one-shot test of a check.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { BulkAction, BulkActionResult } from "../BulkAction.js"
import { CheckResult } from "../CheckResult.js"
import { CheckSpec } from "../CheckSpec.js"
import * as ManagedBy from "../ManagedBy.js"
import * as Pagination from "../Pagination.js"
import * as RequestBody from "../RequestBody.js"
import { CreateTarget, PatchTarget, Target, TargetId } from "../Target.js"
import { DuplicateTarget } from "../TargetCopy.js"
import { Authentication } from "./Authentication.js"
import { IncidentPeriodPage, ListIncidentPeriods } from "./Incidents.js"
import { anyCaller, requires, requiresByPayload } from "./RequiredScope.js"

/**
 * `POST /api/v1/targets/test` (decisions.md: `{ "check": <CheckSpec>, "region"?: <region id> }`): `region` is where
 * the check runs, `local` (the service itself) when absent.
 *
 * @since 0.1.0
 * @category requests
 */
export const TestCheck = RequestBody.Struct({
  check: CheckSpec,
  region: Schema.optional(
    Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64)).annotations({
      description: "Where the check runs: a region id (GET /regions); local, the service itself, when absent"
    })
  )
}).annotations({ identifier: "TestCheck" })

/**
 * The most targets one bulk create may carry; more is 413 `BULK_TOO_LARGE`.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_BULK_TARGETS = 10_000

/**
 * `POST /api/v1/targets/bulk` (decisions.md: `{ "targets": [ <Target body>, ... ] }`). The count is judged by the
 * handler, so too many is 413 `BULK_TOO_LARGE`, not a validation error. `managed_keys`, with the
 * `Signalman-Managed-By` header naming their project, gives each target its key, in the same order.
 *
 * @since 0.1.0
 * @category requests
 */
export const BulkCreate = RequestBody.Struct({
  targets: Schema.Array(CreateTarget).pipe(Schema.minItems(1)),
  managed_keys: Schema.optionalWith(
    Schema.Array(ManagedBy.Key).annotations({
      description:
        "One key per target, in the order of targets, unique: with the Signalman-Managed-By header (the project), " +
        "each target is managed as <project>/<key>"
    }),
    { exact: true }
  )
}).annotations({ identifier: "BulkCreate" })

/**
 * The answer of a bulk create or a duplicate: the new targets in request order, redacted.
 *
 * @since 0.1.0
 * @category models
 */
export const TargetBatch = Schema.Struct({ data: Schema.Array(Target) }).annotations({ identifier: "TargetBatch" })

/**
 * The query of `GET /api/v1/targets`.
 *
 * @since 0.1.0
 * @category requests
 */
export const ListTargets = Schema.Struct({
  ...Pagination.query,
  tag: Schema.optionalWith(Schema.String, { exact: true }),
  enabled: Schema.optionalWith(Schema.BooleanFromString, { exact: true }),
  q: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(200)), { exact: true }),
  managed_by: Schema.optionalWith(ManagedBy.Project, { exact: true })
})

/**
 * A page of targets.
 *
 * @since 0.1.0
 * @category models
 */
export const TargetPage = Pagination.page(Target, "TargetPage")

const targetPath = Schema.Struct({ id: TargetId })

/**
 * A probe region.
 *
 * @since 0.1.0
 * @category models
 */
export class Region extends Schema.Class<Region>("Region")({
  id: Schema.String,
  name: Schema.String,
  city: Schema.NullOr(Schema.String),
  country_code: Schema.NullOr(Schema.String),
  continent: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number)
}) {}

/**
 * `PUT /api/v1/targets/{id}/regions`.
 *
 * @since 0.1.0
 * @category requests
 */
export const SetRegions = RequestBody.Struct({
  regions: Schema.Array(Schema.String.pipe(Schema.maxLength(32))).pipe(Schema.minItems(1), Schema.maxItems(64))
}).annotations({ identifier: "SetRegions" })

/**
 * The tag inventory: each tag with how many of the org's targets carry it.
 *
 * @since 0.1.0
 * @category models
 */
export const TagPage = Pagination.page(Schema.Struct({ tag: Schema.String, targets: Schema.Int }), "TagPage")

/**
 * @since 0.1.0
 * @category groups
 */
export class TargetsApi extends HttpApiGroup.make("targets")
  .add(
    HttpApiEndpoint.post("create", "/targets")
      .annotateContext(requires("targets:write"))
      .setPayload(CreateTarget)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(Target, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        `Create a monitor; 201 with a Location header. ${ManagedBy.WRITE_NOTE} Scope targets:write.`
      )
  )
  .add(
    HttpApiEndpoint.post("bulk", "/targets/bulk")
      .annotateContext(requires("targets:write"))
      .setPayload(BulkCreate)
      .setHeaders(ManagedBy.BulkHeaders)
      .addSuccess(TargetBatch, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.PayloadTooLarge)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Create up to 10,000 monitors, all or none; a refused item is 400 naming targets[i]. The quota is counted " +
          "for all of them at once. Accepts an Idempotency-Key header. Signalman-Managed-By: <project> with " +
          "managed_keys (one key per target, in order) makes each target managed as <project>/<key>; a key another " +
          "monitor holds is 409 MANAGED_KEY_TAKEN naming managed_keys[i]. Scope targets:write."
      )
  )
  .add(
    HttpApiEndpoint.post("duplicate", "/targets/:id/duplicate")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .setPayload(DuplicateTarget)
      .addSuccess(TargetBatch, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.PayloadTooLarge)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Up to 100 copies of a monitor, each with a name and an optional address, all or none; answers the new " +
          "targets in request order. Accepts an Idempotency-Key header. Scope targets:write."
      )
  )
  .add(
    HttpApiEndpoint.post("bulkAction", "/targets/bulk-action")
      .annotateContext(requiresByPayload(["targets:write", "targets:delete"]))
      .setPayload(BulkAction)
      .addSuccess(BulkActionResult)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.PayloadTooLarge)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "One change to many monitors, all or none: enable, disable, delete (scope targets:delete), tag-add, " +
          "tag-remove, set-group, set-interval, set-channels (scope targets:write), set-escalation-policy (also " +
          "oncall:write, the owner role and on_call_enabled; null unbinds). An id not in the org is 404."
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/targets")
      .annotateContext(requires("targets:read"))
      .setUrlParams(ListTargets)
      .addSuccess(TargetPage)
      .annotate(
        OpenApi.Description,
        "The org's monitors, newest first; filter by tag, enabled, a name prefix q, or managed_by (a config project)."
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/targets/:id")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .addSuccess(Target)
      .annotate(
        OpenApi.Description,
        "One monitor. advisories lists [{ region, status, since }] for each region confirmed down while the " +
          "region_policy is not met and no incident is open; empty otherwise. Scope targets:read."
      )
  )
  .add(
    HttpApiEndpoint.patch("update", "/targets/:id")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .setPayload(PatchTarget)
      .setHeaders(ManagedBy.Headers)
      .addSuccess(Target)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        `Change fields; omit check to leave it (and its credentials) as stored. ${ManagedBy.WRITE_NOTE}`
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/targets/:id")
      .annotateContext(requires("targets:delete"))
      .setPath(targetPath)
      .addSuccess(HttpApiSchema.NoContent)
  )
  .add(
    HttpApiEndpoint.get("regions", "/targets/:id/regions")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .addSuccess(Schema.Struct({ regions: Schema.Array(Region) }))
  )
  .add(
    HttpApiEndpoint.put("setRegions", "/targets/:id/regions")
      .annotateContext(requires("targets:write"))
      .setPath(targetPath)
      .setPayload(SetRegions)
      .addSuccess(Schema.Struct({ regions: Schema.Array(Region) }))
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Unknown or disabled ids, or any id on a heartbeat or manual monitor, are 422 REGION_INVALID; more than the plan allows is 422 QUOTA_EXCEEDED."
      )
  )
  .add(
    HttpApiEndpoint.get("listRegions", "/regions")
      .annotateContext(anyCaller)
      .addSuccess(Schema.Struct({ regions: Schema.Array(Region) }))
  )
  .add(
    HttpApiEndpoint.get("tags", "/tags")
      .annotateContext(requires("targets:read"))
      .setUrlParams(
        Schema.Struct({
          ...Pagination.query,
          q: ListTargets.fields.q
        })
      )
      .addSuccess(TagPage)
      .annotate(OpenApi.Description, "The org's tags with target counts; q filters by prefix.")
  )
  .add(
    HttpApiEndpoint.post("test", "/targets/test")
      .annotateContext(requires("targets:execute"))
      .setPayload(TestCheck)
      .addSuccess(CheckResult)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.UnprocessableEntity)
      .addError(ApiError.Wire.ServiceUnavailable)
      .annotate(
        OpenApi.Description,
        "Runs a check once from `region` (default local) and answers its result; nothing is stored. A region that is " +
          "unknown, disabled or has no agent connected is 422 REGION_INVALID; a flow where that region has no " +
          "connected agent with a browser, 422 NO_FLOW_CAPABLE_AGENT; an agent that does not answer within the " +
          "check's timeout and a margin, 503 NOT_READY. Scope targets:execute, rate budget test_now. Heartbeat and " +
          "manual checks have no probe: 422 HEARTBEAT_NOT_PROBEABLE."
      )
  )
  .add(
    HttpApiEndpoint.get("incidents", "/targets/:id/incidents")
      .annotateContext(requires("targets:read"))
      .setPath(targetPath)
      .setUrlParams(ListIncidentPeriods)
      .addSuccess(IncidentPeriodPage)
      .annotate(
        OpenApi.Description,
        "The monitor's incident history as coalesced periods overlapping [from, to), newest first; ongoing_only " +
          "keeps the open one; region keeps the monitor's own incidents whose regions_down include it. Scope " +
          "targets:read."
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Targets") {}
