/**
 * Linked sign-in providers: starting a link from a signed-in session (`POST /auth/{provider}/link`), listing and
 * removing the account's linked identities (`/api/v1/me/sign-in-methods`). The OAuth dance itself
 * (`GET /auth/{provider}/login` and `/callback`) is browser redirects, served beside the contract.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { LinkStarted, SignInMethod } from "../OAuth.js"
import { Authentication } from "./Authentication.js"
import { sessionOnly } from "./RequiredScope.js"

// A string, not the providers' literal: an unknown or disabled provider answers the same 404
// AUTH_METHOD_UNAVAILABLE as the login route does.
const provider = Schema.Struct({ provider: Schema.String })

/**
 * The query of `DELETE /api/v1/me/sign-in-methods/{provider}`: which identity, when the vendor is linked twice.
 *
 * @since 0.1.0
 * @category models
 */
export const RemoveSignInMethodQuery = Schema.Struct({ provider_user_id: Schema.optional(Schema.String) })

/**
 * @since 0.1.0
 * @category groups
 */
export class SignInMethodsApi extends HttpApiGroup.make("signInMethods")
  .add(
    HttpApiEndpoint.post("link", "/auth/:provider/link")
      .annotateContext(sessionOnly)
      .setPath(provider)
      .addSuccess(LinkStarted)
      .addError(ApiError.Wire.NotFound)
      .annotate(
        OpenApi.Summary,
        "Start linking a provider to the signed-in account; the answer names the provider's consent page"
      )
  )
  .add(
    HttpApiEndpoint.get("list", "/api/v1/me/sign-in-methods")
      .annotateContext(sessionOnly)
      .addSuccess(Schema.Struct({ data: Schema.Array(SignInMethod) }))
      .annotate(OpenApi.Summary, "The providers linked to the account, with when added and last used (session only)")
  )
  .add(
    HttpApiEndpoint.del("remove", "/api/v1/me/sign-in-methods/:provider")
      .annotateContext(sessionOnly)
      .setPath(provider)
      .setUrlParams(RemoveSignInMethodQuery)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiError.Wire.NotFound)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Summary,
        "Remove a linked provider (409 LAST_SIGN_IN_METHOD when it is the only way in); other sessions end"
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Title, "Sign-in methods") {}
