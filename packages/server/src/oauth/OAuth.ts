/**
 * OAuth sign-in (auth-and-limits.md, "OAuth sign-in" and "Credential changes"): one procedure for the four
 * providers.
 *
 * - Begin (`/auth/{provider}/login`, `POST /auth/{provider}/link`): a 32-byte state, kept hashed for 10 minutes with
 *   the provider, the PKCE verifier, the carried invitation and redirect_after, and for a link the signed-in user.
 * - Callback, phase A: the state is consumed in one statement and must name this provider and be live
 *   (400 INVALID_STATE otherwise); a link's user must be the live session's, checked before any exchange.
 * - Phase B: the code is exchanged and the profile read (Protocols.ts), holding no database connection.
 * - Phase C: one transaction finds the identity or links it (to the session's account, or to the account of the
 *   attested address, or to a new account opened by SignIn), signs in through SignIn (invitation, fixation
 *   defence, attempts row, redirect).
 */
import * as ApiError from "@signalman/core/ApiError"
import type { UserId } from "@signalman/core/Identity"
import { type Provider, providerNames } from "@signalman/core/OAuth"
import * as Effect from "effect/Effect"
import { Accounts, normalizeEmail, type UserRow } from "../accounts/Accounts.js"
import { Attempts, type FailureReason } from "../auth/Attempts.js"
import { type Device, Sessions } from "../auth/Sessions.js"
import { type AccountMatch, SignIn } from "../auth/SignIn.js"
import { AppConfig } from "../config/Config.js"
import { CredentialEvents } from "../credentials/CredentialEvents.js"
import type { UniqueViolation } from "../database/UniqueViolation.js"
import { uuidv7 } from "../infra/Ids.js"
import { randomSecret, safeEqual, sha256 } from "../infra/Secrets.js"
import * as Protocols from "./Protocols.js"
import * as Providers from "./Providers.js"
import { OAuthRepo } from "./Repo.js"

const STATE_MINUTES = 10

/**
 * The cookie that binds a dance to the browser that began it: it holds the state, and the callback is taken only
 * from a browser that has it (RFC 6749 10.12). Without it, a callback URL someone made with their own provider
 * account could be opened in another person's browser and sign that browser in as them (login CSRF). One dance per
 * browser at a time: a second begun in another tab replaces the first's cookie.
 */
export const STATE_COOKIE = "_sm_oauth"

/** How long the state cookie lives: the state's own lifetime. */
export const STATE_COOKIE_SECS = STATE_MINUTES * 60

/** Where a callback sends the browser: signed in (with the session cookie to set), or elsewhere with a reason. */
export type Outcome =
  | { readonly _tag: "SignedIn"; readonly cookie: string; readonly maxAgeSecs: number; readonly redirect: string }
  | { readonly _tag: "Redirect"; readonly location: string }

export interface Begin {
  readonly provider: string
  readonly invitation: string | null
  readonly redirectAfter: string | null
  readonly linkUserId: string | null
}

export interface Callback {
  readonly provider: string
  readonly state: string | undefined
  readonly code: string | undefined
  readonly error: string | undefined
  /** The session cookie the browser arrived with. */
  readonly sessionCookie: string | undefined
  /** The state cookie the browser arrived with (`STATE_COOKIE`). */
  readonly stateCookie: string | undefined
  readonly device: Device
  /** `<public base>/auth/<provider>/callback`. */
  readonly redirectUri: string
}

/** A linked identity changed, for the credential-event record after commit. */
export interface Linked {
  readonly userId: string
  readonly provider: Provider
  readonly origin: "signup" | "email_match" | "session"
  readonly label: string
}

const loginWith = (reason: string, state?: { invitation_token: string | null; redirect_after: string | null }) => {
  const query = new URLSearchParams({ oauth: reason })
  if (state?.invitation_token != null) query.set("invitation", state.invitation_token)
  if (state?.redirect_after != null) query.set("redirect_after", state.redirect_after)
  return `/login?${query.toString()}`
}

export class OAuth extends Effect.Service<OAuth>()("Signalman/OAuth", {
  effect: Effect.gen(function* () {
    const repo = yield* OAuthRepo
    const config = yield* AppConfig
    const attempts = yield* Attempts
    const sessions = yield* Sessions
    const accounts = yield* Accounts
    const signIn = yield* SignIn
    const credentialEvents = yield* CredentialEvents

    /** A new dance: the consent URL the browser is sent to. */
    const begin = (input: Begin & { readonly redirectUri: string }) =>
      Effect.gen(function* () {
        const setup = yield* Providers.require(config, input.provider)
        const state = randomSecret(32)
        const authorization = yield* Protocols.authorization(setup, state, input.redirectUri).pipe(
          Effect.tapError((failure) =>
            Effect.logWarning("OAuth provider unreachable at sign-in start").pipe(
              Effect.annotateLogs({ provider: setup.provider, reason: failure.reason })
            )
          ),
          Effect.mapError(() =>
            ApiError.make("INTERNAL_ERROR", `${providerNames[setup.provider]} did not answer; try again shortly`)
          )
        )
        yield* repo.insertState({
          state_hash: sha256(state),
          provider: setup.provider,
          code_verifier: authorization.codeVerifier,
          invitation_token: input.invitation,
          redirect_after: input.redirectAfter,
          link_user_id: input.linkUserId,
          expiry_minutes: STATE_MINUTES
        })
        return { url: authorization.url, state }
      })

    const refuse = (provider: Provider, reason: FailureReason, device: Device, userId?: string) =>
      attempts.record({ method: `${provider}_oauth`, success: false, failureReason: reason, userId, ...device })

    // Phase C holds the identity's lock, so callbacks for one identity take turns; should an insert still meet the
    // unique index, its transaction rolls back and runs once more, finding the identity the other linked.
    const onceMoreIfRaced = <A, R>(run: () => Effect.Effect<A, UniqueViolation, R>) =>
      Effect.catchTag(run(), "UniqueViolation", () => Effect.orDie(run()))

    /** Phase C of a link: the identity goes to the signed-in account, unless another account holds it. */
    const link = (provider: Provider, userId: UserId, profile: Protocols.Profile) =>
      repo.transaction(
        Effect.gen(function* () {
          yield* repo.lock(`oauth:${provider}:${profile.key}`)
          const existing = yield* repo.identityByKey(provider, profile.key)
          if (existing !== undefined) {
            return existing.user_id === userId ? ({ _tag: "Already" } as const) : ({ _tag: "TakenByAnother" } as const)
          }
          if (profile.email === undefined) return { _tag: "NoVerifiedEmail" } as const
          yield* repo.insertIdentity({
            id: uuidv7(),
            user_id: userId,
            provider,
            provider_key: profile.key,
            email: normalizeEmail(profile.email),
            label: profile.label,
            signed_in: false
          })
          return { _tag: "Linked" } as const
        })
      )

    /** Phase C of a sign-in: the known identity's account, or the attested address's, or a new one. */
    const signInWith = (provider: Provider, profile: Protocols.Profile, input: Callback, state: StateCarried) =>
      repo.transaction(
        Effect.gen(function* () {
          yield* repo.lock(`oauth:${provider}:${profile.key}`)
          const identity = yield* repo.identityByKey(provider, profile.key)
          const known: UserRow | undefined = identity === undefined ? undefined : yield* accounts.byId(identity.user_id)
          // Addresses are kept lower-cased (accounts/Accounts.ts); a provider may send them as typed.
          const attested = profile.email === undefined ? undefined : normalizeEmail(profile.email)
          const email = attested ?? known?.email
          if (email === undefined) return { _tag: "NoVerifiedEmail" } as const
          if (known === undefined) yield* repo.lock(`sign_up:${email}`)
          let linked: Linked | undefined
          const outcome = yield* signIn.complete({
            email,
            method: `${provider}_oauth`,
            invitation: state.invitation_token,
            redirectAfter: state.redirect_after,
            previousSession: input.sessionCookie,
            device: input.device,
            user: known,
            onAccount: (user: UserRow, how: AccountMatch) =>
              identity !== undefined
                ? repo.touchIdentity(identity.id, attested ?? null, profile.label)
                : Effect.zipRight(
                    repo.insertIdentity({
                      id: uuidv7(),
                      user_id: user.id,
                      provider,
                      provider_key: profile.key,
                      email: attested ?? null,
                      label: profile.label,
                      signed_in: true
                    }),
                    Effect.sync(() => {
                      linked = {
                        userId: user.id,
                        provider,
                        origin: how === "signup" ? "signup" : "email_match",
                        label: profile.label
                      }
                    })
                  )
          })
          return { _tag: "Done", outcome, linked } as const
        })
      )

    /**
     * The callback, in its three phases; after commit, an identity linked is a credential change on record. The
     * sign-in has happened by then (its session is stored): a record that cannot be written is logged, and the
     * browser still gets its session rather than a 500 with none.
     */
    const callback = (input: Callback): Effect.Effect<Outcome, ApiError.ApiError> =>
      Effect.tap(phases(input), ({ linked }) =>
        linked === undefined
          ? Effect.void
          : credentialEvents
              .added({
                userId: linked.userId,
                method: linked.provider,
                origin: linked.origin,
                label: linked.label,
                device: input.device
              })
              .pipe(
                Effect.catchAllCause((cause) =>
                  Effect.logError("A linked provider's credential event could not be recorded", cause).pipe(
                    Effect.annotateLogs({ user_id: linked.userId, provider: linked.provider })
                  )
                )
              )
      ).pipe(Effect.map(({ outcome }) => outcome))

    const phases = (input: Callback): Effect.Effect<{ outcome: Outcome; linked?: Linked }, ApiError.ApiError> =>
      Effect.gen(function* () {
        const setup = yield* Providers.require(config, input.provider)
        const provider = setup.provider
        const device = input.device

        // Phase A.
        const state =
          input.state === undefined || !/^[A-Za-z0-9_-]{43}$/.test(input.state)
            ? undefined
            : yield* repo.consumeState(sha256(input.state))
        // Spent even when the browser is not the one that began it: a state is tried once.
        const sameBrowser =
          input.state !== undefined && input.stateCookie !== undefined && safeEqual(input.stateCookie, input.state)
        if (state === undefined || state.provider !== provider || !state.live || !sameBrowser) {
          yield* refuse(provider, "invalid_state", device)
          return yield* Effect.fail(
            ApiError.make(
              "INVALID_STATE",
              "This sign-in expired or was already used; start again from the login page",
              {
                field: "state"
              }
            )
          )
        }
        if (state.link_user_id !== null) {
          // The browser finishing a link must still be signed in as the person who began it.
          const session = input.sessionCookie === undefined ? undefined : yield* sessions.live(input.sessionCookie)
          if (session?.user_id !== state.link_user_id) {
            yield* refuse(provider, "invalid_state", device, state.link_user_id)
            return { outcome: { _tag: "Redirect", location: loginWith("link_mismatch") } }
          }
        }
        if (input.error !== undefined) {
          yield* refuse(provider, "oauth_denied", device, state.link_user_id ?? undefined)
          return { outcome: { _tag: "Redirect", location: loginWith("denied", state) } }
        }
        if (input.code === undefined || input.code === "") {
          yield* refuse(provider, "missing_code", device, state.link_user_id ?? undefined)
          return { outcome: { _tag: "Redirect", location: loginWith("missing_code", state) } }
        }

        // Phase B: no database connection is held while the provider answers.
        const profile = yield* Protocols.profile(setup, input.code, state.code_verifier, input.redirectUri).pipe(
          Effect.tapError((failure) =>
            Effect.zipRight(
              Effect.logWarning("OAuth callback failed upstream").pipe(
                Effect.annotateLogs({ provider, reason: failure.reason })
              ),
              refuse(provider, "oauth_upstream_failed", device, state.link_user_id ?? undefined)
            )
          ),
          Effect.mapError(() =>
            ApiError.make("INTERNAL_ERROR", `${providerNames[provider]} did not complete the sign-in; try again`, {
              details: { provider }
            })
          )
        )

        // Phase C.
        if (state.link_user_id !== null) {
          const userId = state.link_user_id
          const result = yield* onceMoreIfRaced(() => link(provider, userId, profile))
          switch (result._tag) {
            case "NoVerifiedEmail":
              yield* refuse(provider, "no_verified_email", device, userId)
              return { outcome: { _tag: "Redirect", location: loginWith("no_verified_email") } }
            case "TakenByAnother":
              return { outcome: { _tag: "Redirect", location: `/settings/account?oauth=identity_taken` } }
            case "Already":
              return { outcome: { _tag: "Redirect", location: `/settings/account?linked=${provider}` } }
            case "Linked":
              return {
                outcome: { _tag: "Redirect", location: `/settings/account?linked=${provider}` },
                linked: { userId, provider, origin: "session", label: profile.label }
              }
          }
        }
        const result = yield* onceMoreIfRaced(() => signInWith(provider, profile, input, state))
        if (result._tag === "NoVerifiedEmail") {
          yield* refuse(provider, "no_verified_email", device)
          return { outcome: { _tag: "Redirect", location: loginWith("no_verified_email", state) } }
        }
        if (result.outcome._tag === "SignupClosed") {
          return { outcome: { _tag: "Redirect", location: loginWith("signup_closed", state) } }
        }
        const { cookie, maxAgeSecs, redirect } = result.outcome
        return {
          outcome: { _tag: "SignedIn", cookie, maxAgeSecs, redirect },
          ...(result.linked === undefined ? {} : { linked: result.linked })
        }
      })

    return { begin, callback }
  }),
  // SignIn redeems carried invitations: the port is bound where the process is composed (App.ts).
  dependencies: [
    OAuthRepo.Default,
    Attempts.Default,
    Sessions.Default,
    Accounts.Default,
    SignIn.Default,
    CredentialEvents.Default
  ]
}) {}

type StateCarried = { readonly invitation_token: string | null; readonly redirect_after: string | null }
