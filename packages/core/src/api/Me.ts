/**
 * The signed-in person: profile, sessions, API tokens, usage, account deletion (`/api/v1/me*`).
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
  ApiToken,
  ApiTokenId,
  CreateApiToken,
  CreatedApiToken,
  Me,
  MeUsage,
  RenameApiToken,
  SessionId,
  SessionInfo
} from "../Identity.js"
import { PasskeyId } from "../Passkey.js"
import { AccountExport } from "./AccountExport.js"
import { Authentication } from "./Authentication.js"
import { anyCaller, sessionOnly } from "./RequiredScope.js"

const tokenId = Schema.Struct({ id: ApiTokenId })
const sessionId = Schema.Struct({ id: SessionId })
const passkeyId = Schema.Struct({ id: PasskeyId })

/**
 * @since 0.1.0
 * @category groups
 */
export class MeApi extends HttpApiGroup.make("me")
  .add(
    HttpApiEndpoint.get("get", "/me").annotateContext(anyCaller).addSuccess(Me).annotate(OpenApi.Summary, "The caller")
  )
  .add(
    HttpApiEndpoint.del("delete", "/me")
      .annotateContext(sessionOnly)
      .addSuccess(Me)
      .addError(ApiError.Wire.Conflict)
      .annotate(OpenApi.Summary, "Schedule the account's deletion (30-day grace; session only)")
      .annotate(
        OpenApi.Description,
        "A paid subscription is ended at the payment provider first; when the provider refuses or cannot be " +
          "reached, 409 SUBSCRIPTION_STATE (details.reason provider_refused or provider_unavailable) and nothing " +
          "is deleted."
      )
  )
  .add(
    HttpApiEndpoint.post("restore", "/me/restore")
      .annotateContext(sessionOnly)
      .addSuccess(Me)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(OpenApi.Summary, "Cancel a scheduled deletion (session only)")
  )
  .add(
    HttpApiEndpoint.get("export", "/me/export")
      .annotateContext(sessionOnly)
      .addSuccess(AccountExport)
      .annotate(OpenApi.Summary, "The account's data as one JSON document, offered as a file (session only)")
  )
  .add(
    HttpApiEndpoint.get("usage", "/me/usage")
      .annotateContext(anyCaller)
      .addSuccess(MeUsage)
      .annotate(OpenApi.Summary, "Tokens and owned orgs against their limits")
  )
  .add(
    HttpApiEndpoint.get("listSessions", "/me/sessions")
      .annotateContext(sessionOnly)
      .addSuccess(Schema.Struct({ data: Schema.Array(SessionInfo) }))
      .annotate(OpenApi.Summary, "Signed-in devices (session only)")
  )
  .add(
    HttpApiEndpoint.del("revokeSession", "/me/sessions/:id")
      .annotateContext(sessionOnly)
      .setPath(sessionId)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Sign a device out (session only)")
  )
  .add(
    HttpApiEndpoint.del("removePasskey", "/me/passkeys/:id")
      .annotateContext(sessionOnly)
      .setPath(passkeyId)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Summary,
        "Remove a passkey (409 LAST_SIGN_IN_METHOD when it is the only way in); the account's other sessions end (session only)"
      )
  )
  .add(
    HttpApiEndpoint.get("listTokens", "/me/api-tokens")
      .annotateContext(sessionOnly)
      .addSuccess(Schema.Struct({ data: Schema.Array(ApiToken) }))
      .annotate(OpenApi.Summary, "API tokens, prefix only (session only)")
  )
  .add(
    HttpApiEndpoint.post("createToken", "/me/api-tokens")
      .annotateContext(sessionOnly)
      .setPayload(CreateApiToken)
      .addSuccess(CreatedApiToken, { status: 201 })
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(OpenApi.Summary, "Create a token; the secret is in this answer only (session only)")
  )
  .add(
    HttpApiEndpoint.patch("renameToken", "/me/api-tokens/:id")
      .annotateContext(sessionOnly)
      .setPath(tokenId)
      .setPayload(RenameApiToken)
      .addSuccess(ApiToken)
      .annotate(OpenApi.Summary, "Rename a token (session only)")
  )
  .add(
    HttpApiEndpoint.del("revokeToken", "/me/api-tokens/:id")
      .annotateContext(sessionOnly)
      .setPath(tokenId)
      .addSuccess(HttpApiSchema.NoContent)
      .annotate(OpenApi.Summary, "Revoke a token at once (session only)")
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "Me") {}
