/**
 * Orgs, their usage and invitations (`/api/v1/orgs*`, `/api/v1/invitations/*`), and the in-app support form.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import {
  CreateInvitation,
  CreateOrg,
  Invitation,
  InvitationId,
  InvitationToken,
  Org,
  OrgId,
  OrgUsage,
  SupportRequest
} from "../Identity.js"
import { Authentication } from "./Authentication.js"
import { anyCaller, sessionOnly } from "./RequiredScope.js"

const orgPath = Schema.Struct({ id: OrgId })
const invitationPath = Schema.Struct({ id: OrgId, invitation_id: InvitationId })

/**
 * @since 0.1.0
 * @category groups
 */
export class OrgsApi extends HttpApiGroup.make("orgs")
  .add(
    HttpApiEndpoint.get("list", "/orgs")
      .annotateContext(anyCaller)
      .addSuccess(Schema.Struct({ data: Schema.Array(Org) }))
  )
  .add(
    HttpApiEndpoint.post("create", "/orgs")
      .annotateContext(sessionOnly)
      .setPayload(CreateOrg)
      .addSuccess(Org, { status: 201 })
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(OpenApi.Summary, "Create an org owned by the caller's account (session only)")
  )
  .add(HttpApiEndpoint.get("get", "/orgs/:id").annotateContext(anyCaller).setPath(orgPath).addSuccess(Org))
  .add(
    HttpApiEndpoint.get("usage", "/orgs/:id/usage")
      .annotateContext(anyCaller)
      .setPath(orgPath)
      .addSuccess(OrgUsage)
      .annotate(OpenApi.Summary, "Plan, pooled quotas against limits, rate budgets and flags of the org's account")
  )
  .add(
    HttpApiEndpoint.post("invite", "/orgs/:id/invitations")
      .annotateContext(sessionOnly)
      .setPath(orgPath)
      .setPayload(CreateInvitation)
      .addSuccess(Invitation, { status: 201 })
      .addError(ApiError.Wire.Conflict)
      .annotate(OpenApi.Summary, "Invite an address (owner, session only)")
  )
  .add(
    HttpApiEndpoint.get("listInvitations", "/orgs/:id/invitations")
      .annotateContext(sessionOnly)
      .setPath(orgPath)
      .addSuccess(Schema.Struct({ data: Schema.Array(Invitation) }))
      .annotate(OpenApi.Summary, "Pending invitations (owner, session only)")
  )
  .add(
    HttpApiEndpoint.del("revokeInvitation", "/orgs/:id/invitations/:invitation_id")
      .annotateContext(sessionOnly)
      .setPath(invitationPath)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Revoke a pending invitation (owner, session only)")
  )
  .add(
    HttpApiEndpoint.post("acceptInvitation", "/invitations/accept")
      .annotateContext(sessionOnly)
      .setPayload(InvitationToken)
      .addSuccess(Org)
      .addError(ApiError.Wire.Conflict)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(OpenApi.Summary, "Accept an invitation addressed to the caller (session only)")
  )
  .add(
    HttpApiEndpoint.post("support", "/support")
      .annotateContext(anyCaller)
      .setPayload(SupportRequest)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "The in-app help form")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Orgs") {}

/**
 * Declining needs no account: the emailed link's button posts here.
 *
 * @since 0.1.0
 * @category groups
 */
export class InvitationsPublicApi extends HttpApiGroup.make("invitationsPublic")
  .add(
    HttpApiEndpoint.post("decline", "/invitations/decline")
      .setPayload(InvitationToken)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Decline an invitation; the same answer whether or not it exists")
  )
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Invitations") {}
