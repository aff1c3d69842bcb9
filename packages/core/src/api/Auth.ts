/**
 * Sign-in and sign-out (`/auth/*`): the magic-link request and code, the passkey ceremonies, logout. The emailed
 * verify link and the login page are HTML, served beside the contract.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as ApiError from "../ApiError.js"
import { MagicLinkCode, MagicLinkRequest, Sent, SignedIn } from "../Identity.js"
import * as Passkey from "../Passkey.js"
import { Authentication } from "./Authentication.js"
import { anyCaller, sessionOnly } from "./RequiredScope.js"

/**
 * @since 0.1.0
 * @category groups
 */
export class AuthApi extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("requestMagicLink", "/auth/magic-link/request")
      .setPayload(MagicLinkRequest)
      .addSuccess(Sent)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Summary, "Mail a sign-in link and code; the same answer for every address")
  )
  .add(
    HttpApiEndpoint.post("redeemMagicLinkCode", "/auth/magic-link/code")
      .setPayload(MagicLinkCode)
      .addSuccess(SignedIn)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Summary, "Sign in with the mailed code, in the browser that asked for it")
  )
  .add(
    HttpApiEndpoint.post("passkeyLoginStart", "/auth/passkey/login/start")
      .setPayload(Passkey.LoginStart)
      .addSuccess(Passkey.LoginCeremony)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Summary, "Begin a passkey sign-in (discoverable: no address asked)")
  )
  .add(
    HttpApiEndpoint.post("passkeyLoginFinish", "/auth/passkey/login/finish")
      .setPayload(Passkey.LoginFinish)
      .addSuccess(SignedIn)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.NotFound)
      .annotate(OpenApi.Summary, "Finish a passkey sign-in and open a session")
  )
  .add(
    HttpApiEndpoint.post("passkeyRegisterStart", "/auth/passkey/register/start")
      .annotateContext(sessionOnly)
      .setPayload(Passkey.RegisterStart)
      .addSuccess(Passkey.RegistrationCeremony)
      .addError(ApiError.Wire.NotFound)
      .addError(ApiError.Wire.UnprocessableEntity)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Begin adding a passkey to the signed-in account (session only)")
  )
  .add(
    HttpApiEndpoint.post("passkeyRegisterFinish", "/auth/passkey/register/finish")
      .annotateContext(sessionOnly)
      .setPayload(Passkey.RegisterFinish)
      .addSuccess(Passkey.Passkey, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.NotFound)
      .addError(ApiError.Wire.UnprocessableEntity)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "Store the new passkey (session only; the session that began it)")
  )
  .add(
    HttpApiEndpoint.post("logout", "/auth/logout")
      .annotateContext(anyCaller)
      .addSuccess(HttpApiSchema.NoContent)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "End this session")
  )
  .add(
    HttpApiEndpoint.post("logoutAll", "/auth/logout-all")
      .annotateContext(anyCaller)
      .addSuccess(HttpApiSchema.NoContent)
      .middleware(Authentication)
      .annotate(OpenApi.Summary, "End every session of the user")
  )
  .annotate(OpenApi.Title, "Authentication") {}
