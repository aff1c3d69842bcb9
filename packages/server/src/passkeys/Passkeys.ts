/**
 * Passkeys (auth-and-limits.md, "Passkeys"; WebAuthn through `@simplewebauthn/server`).
 *
 * - The relying-party id is the host of `auth.public_base_url` (never an IP address: the process refuses to start
 *   with passkeys on and such a host); each passkey keeps the rp_id it was made for, and one made for another host
 *   is retired: listed, removable, never accepted. Startup warns with their count.
 * - Sign-in is discoverable (no address first) and requires user verification. The account is the one holding the
 *   credential the authenticator names; the user handle must be that account's id, checked only after the
 *   signature verified. A passkey never opens an account.
 * - Adding one is bound to the session that began it, with attestation off and a resident key required; a browser
 *   that says the credential is not discoverable is refused. At most ten per account, counted under the person's
 *   lock.
 * - Ceremonies live 5 minutes and are deleted as they are read.
 * - The signature counter is checked, not enforced (core's `judgeCounter`).
 */

import * as ApiError from "@signalman/core/ApiError"
import type { AccountId } from "@signalman/core/Identity"
import * as Core from "@signalman/core/Passkey"
import {
  type AuthenticationResponseJSON,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse
} from "@simplewebauthn/server"
import { isoBase64URL, isoUint8Array } from "@simplewebauthn/server/helpers"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Metric from "effect/Metric"
import * as Schema from "effect/Schema"
import { Accounts } from "../accounts/Accounts.js"
import { Attempts, type FailureReason } from "../auth/Attempts.js"
import type { Device } from "../auth/Sessions.js"
import { type Carried, SignIn } from "../auth/SignIn.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { CredentialEvents } from "../credentials/CredentialEvents.js"
import { uuidv7 } from "../infra/Ids.js"
import { Plans } from "../limits/Plans.js"
import * as Series from "../metrics/Series.js"
import { WaysIn } from "../oauth/WaysIn.js"
import { type PasskeyRow, PasskeysRepo } from "./Repo.js"

/** Raised when an authenticator's signature counter, once counting, stands still or goes back. */
export const counterStalled = Series.counter(
  "signalman_passkey_counter_stalled_total",
  "Passkey sign-ins whose signature counter stood still or went back (checked, not enforced)"
)

const RP_NAME = "Signalman"
const TIMEOUT_MS = Core.CEREMONY_MINUTES * 60_000

type Transport = NonNullable<RegistrationResponseJSON["response"]["transports"]>[number]

const KNOWN_TRANSPORTS: ReadonlyArray<Transport> = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"]
const transportsOf = (values: ReadonlyArray<string> | undefined): Array<Transport> =>
  KNOWN_TRANSPORTS.filter((t) => values?.includes(t) === true)

const attachmentOf = (value: string | null | undefined) =>
  value === "platform" || value === "cross-platform" ? value : undefined

/** The library's options as they go on the wire: keys it set to undefined are left out, as JSON leaves them. */
const asJson = (options: object): unknown => JSON.parse(JSON.stringify(options))

const invalidState = () =>
  ApiError.make("INVALID_STATE", "This passkey ceremony is unknown, used or expired; start again", {
    field: "ceremony_id"
  })

const invalidPasskey = (message = "The passkey could not be verified") =>
  ApiError.make("PASSKEY_INVALID", message, { field: "credential" })

/** The passkey as its owner sees it. */
export const toPasskey = (row: PasskeyRow, rpId: string) =>
  new Core.Passkey({
    id: row.id,
    name: row.name,
    rp_id: row.rp_id,
    retired: row.rp_id !== rpId,
    created_at: DateTime.unsafeFromDate(row.created_at),
    last_used_at: row.last_used_at === null ? null : DateTime.unsafeFromDate(row.last_used_at)
  })

export class Passkeys extends Effect.Service<Passkeys>()("Signalman/Passkeys", {
  effect: Effect.gen(function* () {
    const repo = yield* PasskeysRepo
    const config = yield* AppConfig
    const attempts = yield* Attempts
    const signIn = yield* SignIn
    const accounts = yield* Accounts
    const plans = yield* Plans
    const credentialEvents = yield* CredentialEvents
    const waysIn = yield* WaysIn
    const base = yield* publicBaseUrl
    const enabled = config["auth.enabled_methods"].includes("passkey")
    const origin = new URL(base).origin
    // WebAuthn runs only in a secure context: https, or a localhost name (browsers treat it as secure).
    const { protocol, hostname } = new URL(base)
    const secureOrigin = protocol === "https:" || hostname === "localhost" || hostname.endsWith(".localhost")
    const derived = Core.rpIdOf(base)
    if (enabled && Either.isLeft(derived)) return yield* Effect.fail(new Error(derived.left))
    // With passkeys off the id is still needed to label stored ones on the account page.
    const rpId = Either.getOrElse(derived, () => new URL(base).hostname)

    const retired = yield* repo.retiredCount(rpId)
    if (retired > 0) {
      yield* Effect.logWarning(
        `${retired} passkey(s) were made for another host than ${rpId} and are retired: they no longer sign in`
      ).pipe(Effect.annotateLogs({ rp_id: rpId, retired }))
    }

    /** 404 AUTH_METHOD_UNAVAILABLE unless passkeys are among `auth.enabled_methods`. */
    const gate = enabled
      ? Effect.void
      : Effect.fail(ApiError.make("AUTH_METHOD_UNAVAILABLE", "Sign-in with a passkey is not offered here"))

    const fail = (reason: FailureReason, device: Device, userId: string | null = null) =>
      attempts.record({ method: "passkey", success: false, failureReason: reason, userId, ...device })

    const startLogin = (input: { readonly invitation: string | null; readonly redirectAfter: string | null }) =>
      Effect.gen(function* () {
        yield* gate
        const options = yield* Effect.promise(() =>
          generateAuthenticationOptions({ rpID: rpId, userVerification: "required", timeout: TIMEOUT_MS })
        )
        const id = uuidv7()
        yield* repo.insertCeremony({
          id,
          kind: "login",
          challenge: options.challenge,
          session_id: null,
          user_id: null,
          name: null,
          invitation_token: input.invitation,
          redirect_after: input.redirectAfter,
          minutes: Core.CEREMONY_MINUTES
        })
        return new Core.LoginCeremony({
          ceremony_id: Core.CeremonyId.make(id),
          options: yield* Schema.decodeUnknown(Core.RequestOptions)(asJson(options)).pipe(Effect.orDie)
        })
      })

    const verifyAssertion = (
      row: PasskeyRow,
      challenge: string,
      credential: typeof Core.AuthenticationResponse.Type
    ) => {
      const response: AuthenticationResponseJSON = {
        id: credential.id,
        rawId: credential.rawId,
        type: credential.type,
        response: {
          clientDataJSON: credential.response.clientDataJSON,
          authenticatorData: credential.response.authenticatorData,
          signature: credential.response.signature,
          ...(credential.response.userHandle == null ? {} : { userHandle: credential.response.userHandle })
        },
        authenticatorAttachment: attachmentOf(credential.authenticatorAttachment),
        clientExtensionResults: {}
      }
      return Effect.tryPromise(() =>
        verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpId,
          // The stored counter is judged here (judgeCounter), not by the library, which would refuse a stall.
          credential: {
            id: row.credential_id,
            publicKey: new Uint8Array(row.public_key),
            counter: 0,
            transports: transportsOf(row.transports)
          },
          requireUserVerification: true
        })
      ).pipe(
        Effect.map((result) => (result.verified ? result.authenticationInfo : undefined)),
        Effect.orElseSucceed(() => undefined)
      )
    }

    /** Finishes a sign-in; the outcome is SignIn's (a session and where to go). */
    const finishLogin = (input: {
      readonly ceremonyId: string
      readonly credential: typeof Core.AuthenticationResponse.Type
      readonly previousSession: string | undefined
      readonly device: Device
    }) =>
      Effect.gen(function* () {
        yield* gate
        const { device, credential } = input
        const ceremony = yield* repo.takeCeremony(input.ceremonyId, "login", null)
        if (ceremony === undefined || !ceremony.live) {
          yield* fail(ceremony === undefined ? "invalid_state" : "state_expired", device)
          return yield* Effect.fail(invalidState())
        }
        const row = yield* repo.byCredentialId(credential.id)
        if (row === undefined) {
          yield* fail("unknown_credential", device)
          return yield* Effect.fail(invalidPasskey())
        }
        // Failures before the signature verifies name no account: a credential id is no secret, and anyone holding
        // one could otherwise fill its owner's activity with failures. The answer is the generic one for the same
        // reason (a retired passkey's old host is the owner's business).
        if (row.rp_id !== rpId) {
          yield* fail("credential_retired", device)
          return yield* Effect.fail(invalidPasskey())
        }
        const verified = yield* verifyAssertion(row, ceremony.challenge, credential)
        // The user handle is trusted only now, and must name the account that holds the credential.
        const handle = credential.response.userHandle
        const handleMatches =
          handle != null && isoUint8Array.toUTF8String(isoBase64URL.toBuffer(handle)) === row.user_id
        if (verified === undefined || !handleMatches) {
          yield* fail("invalid_assertion", device, verified === undefined ? undefined : row.user_id)
          return yield* Effect.fail(invalidPasskey())
        }
        const judgement = Core.judgeCounter(row.counter, verified.newCounter)
        if (judgement === "stalled") {
          yield* Metric.increment(counterStalled)
          yield* Effect.logWarning("A passkey's signature counter stood still or went back; the sign-in goes on").pipe(
            Effect.annotateLogs({
              passkey_id: row.id,
              user_id: row.user_id,
              stored: row.counter,
              received: verified.newCounter
            })
          )
        }
        yield* repo.recordUse(row.id, Core.nextCounter(row.counter, verified.newCounter))
        const user = yield* accounts.byId(row.user_id)
        if (user === undefined) {
          yield* fail("unknown_credential", device)
          return yield* Effect.fail(invalidPasskey())
        }
        const carried: Carried = {
          method: "passkey",
          invitation: ceremony.invitation_token,
          redirectAfter: ceremony.redirect_after,
          previousSession: input.previousSession,
          device
        }
        return yield* signIn.completeExisting(user, carried)
      })

    const quotaRefusal = (user: { readonly accountId: AccountId }, current: number) =>
      Effect.flatMap(plans.forAccount(user.accountId), (plan) =>
        Effect.fail(
          ApiError.make(
            "QUOTA_EXCEEDED",
            `An account holds at most ${Core.MAX_PER_USER} passkeys (${current} of ${Core.MAX_PER_USER}); remove one first`,
            { details: { quota: "passkeys_per_user", current, limit: Core.MAX_PER_USER, plan: plan.id } }
          )
        )
      )

    const startRegistration = (input: {
      readonly user: { readonly id: string; readonly email: string; readonly accountId: AccountId }
      readonly sessionId: string
      readonly name: string
    }) =>
      Effect.gen(function* () {
        yield* gate
        const existing = yield* repo.ofUser(input.user.id)
        // Said early so nobody is asked to touch their authenticator for nothing; finishing counts again.
        if (!Core.roomForOneMore(existing.length)) return yield* quotaRefusal(input.user, existing.length)
        const options = yield* Effect.promise(() =>
          generateRegistrationOptions({
            rpName: RP_NAME,
            rpID: rpId,
            userName: input.user.email,
            userDisplayName: input.user.email,
            // The user handle a sign-in answers with: the account's id.
            userID: isoUint8Array.fromUTF8String(input.user.id),
            timeout: TIMEOUT_MS,
            attestationType: "none",
            excludeCredentials: existing
              .filter((p) => p.rp_id === rpId)
              .map((p) => ({ id: p.credential_id, transports: transportsOf(p.transports) })),
            authenticatorSelection: { residentKey: "required", userVerification: "required" }
          })
        )
        const id = uuidv7()
        yield* repo.insertCeremony({
          id,
          kind: "register",
          challenge: options.challenge,
          session_id: input.sessionId,
          user_id: input.user.id,
          name: input.name,
          invitation_token: null,
          redirect_after: null,
          minutes: Core.CEREMONY_MINUTES
        })
        return new Core.RegistrationCeremony({
          ceremony_id: Core.CeremonyId.make(id),
          options: yield* Schema.decodeUnknown(Core.CreationOptions)(asJson(options)).pipe(Effect.orDie)
        })
      })

    const finishRegistration = (input: {
      readonly user: { readonly id: string; readonly accountId: AccountId }
      readonly sessionId: string
      readonly ceremonyId: string
      readonly credential: typeof Core.RegistrationResponse.Type
      readonly device: Device
    }) =>
      Effect.gen(function* () {
        yield* gate
        const { credential } = input
        const ceremony = yield* repo.takeCeremony(input.ceremonyId, "register", input.sessionId)
        // Bound to the session that began it; a session is one person's, so another account never gets this far.
        if (ceremony === undefined || !ceremony.live || ceremony.user_id !== input.user.id) {
          return yield* Effect.fail(invalidState())
        }
        const response: RegistrationResponseJSON = {
          id: credential.id,
          rawId: credential.rawId,
          type: credential.type,
          response: {
            clientDataJSON: credential.response.clientDataJSON,
            attestationObject: credential.response.attestationObject,
            transports: transportsOf(credential.response.transports)
          },
          authenticatorAttachment: attachmentOf(credential.authenticatorAttachment),
          clientExtensionResults: {}
        }
        const verified = yield* Effect.tryPromise(() =>
          verifyRegistrationResponse({
            response,
            expectedChallenge: ceremony.challenge,
            expectedOrigin: origin,
            expectedRPID: rpId,
            requireUserVerification: true
          })
        ).pipe(Effect.orElseSucceed(() => undefined))
        if (verified === undefined || !verified.verified) return yield* Effect.fail(invalidPasskey())
        if (Core.reportedNonDiscoverable(credential.clientExtensionResults)) {
          return yield* Effect.fail(
            ApiError.make(
              "PASSKEY_NOT_DISCOVERABLE",
              "This authenticator stored a credential that cannot sign in without an address first; use one that keeps passkeys",
              { field: "credential" }
            )
          )
        }
        const info = verified.registrationInfo
        const name = ceremony.name ?? "Passkey"
        const stored = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockUser(input.user.id)
            const current = yield* repo.countOf(input.user.id)
            if (!Core.roomForOneMore(current)) return yield* quotaRefusal(input.user, current)
            return yield* repo
              .insert({
                id: uuidv7(),
                user_id: input.user.id,
                credential_id: info.credential.id,
                public_key: info.credential.publicKey,
                counter: info.credential.counter,
                transports: info.credential.transports ?? transportsOf(credential.response.transports),
                name,
                rp_id: rpId,
                device_type: info.credentialDeviceType,
                backed_up: info.credentialBackedUp
              })
              .pipe(
                Effect.catchTag("UniqueViolation", () =>
                  Effect.fail(invalidPasskey("This passkey is already registered"))
                )
              )
          })
        )
        // After the commit: the event records what happened (a row, the account mail, the counter).
        yield* credentialEvents.added({
          userId: input.user.id,
          method: "passkey",
          origin: "session",
          label: stored.name,
          device: input.device
        })
        return toPasskey(stored, rpId)
      })

    return {
      rpId,
      origin,
      secureOrigin,
      enabled,
      maxPerUser: Core.MAX_PER_USER,
      gate,
      startLogin,
      finishLogin,
      startRegistration,
      finishRegistration,
      /** The person's passkeys, oldest first, retired ones labelled. */
      list: (userId: string) => Effect.map(repo.ofUser(userId), (rows) => rows.map((row) => toPasskey(row, rpId))),
      /**
       * Deletes one of the person's passkeys; the credential event ends their other sessions (a removed credential
       * may be why) and mails them. The row removed, or undefined when they hold no such passkey.
       */
      remove: (input: {
        readonly userId: string
        readonly id: string
        readonly keepSessionId: string
        readonly device: Device
      }) =>
        Effect.tap(
          repo.transaction(
            Effect.gen(function* () {
              // Counted under the person's lock, before the delete, as a provider's removal is (oauth/WaysIn.ts).
              const refusal = yield* waysIn.refusal(input.userId, { passkeyId: input.id })
              const row = yield* repo.remove(input.userId, input.id)
              if (row === undefined) return undefined
              if (refusal !== undefined) {
                return yield* Effect.fail(ApiError.make("LAST_SIGN_IN_METHOD", refusal.message, { field: "id" }))
              }
              return row
            })
          ),
          (row) =>
            row === undefined
              ? Effect.void
              : credentialEvents.removed({
                  userId: input.userId,
                  method: "passkey",
                  origin: "session",
                  label: row.name,
                  device: input.device,
                  keepSessionId: input.keepSessionId
                })
        )
    }
  }),
  dependencies: [
    PasskeysRepo.Default,
    Attempts.Default,
    Accounts.Default,
    Plans.Default,
    CredentialEvents.Default,
    WaysIn.Default
  ]
}) {}
