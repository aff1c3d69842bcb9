/**
 * The end of every sign-in method (magic link, OAuth, passkeys): find or open the account, redeem a carried
 * invitation, replace any pre-login session with a fresh one (fixation defence), log the attempt, and say where
 * the browser goes next. OAuth runs `complete` inside its phase-C transaction, with the identity it already knows
 * (`user`) and a hook that links the identity to the account found or opened (`onAccount`); a passkey, which
 * attests no address and never opens an account, ends through `completeExisting`.
 */
import * as Effect from "effect/Effect"
import { Accounts, type UserRow } from "../accounts/Accounts.js"
import { AppConfig } from "../config/Config.js"
import { Attempts, type Method } from "./Attempts.js"
import { CarriedInvitation } from "./CarriedInvitation.js"
import { type Device, Sessions } from "./Sessions.js"

/** What every sign-in carries to its end, whatever proved who the person is. */
export interface Carried {
  readonly method: Method
  readonly invitation: string | null
  readonly redirectAfter: string | null
  /** The session cookie the browser arrived with, if any: destroyed, never promoted. */
  readonly previousSession: string | undefined
  readonly device: Device
}

/** A sign-in by an attested address (a magic link, an OAuth provider's verified email). */
export interface Completion<E = never> extends Carried {
  readonly email: string
  /** The account the method already knows (a linked OAuth identity): signed in as is, not looked up by address. */
  readonly user?: UserRow | undefined
  /** Runs once the account is found or opened, before the invitation and the session: OAuth links its identity. */
  readonly onAccount?: ((user: UserRow, how: AccountMatch) => Effect.Effect<void, E>) | undefined
}

/** How the account was reached: known to the method, matched by its address, or opened now. */
export type AccountMatch = "known" | "email_match" | "signup"

export type Outcome =
  | {
      readonly _tag: "SignedIn"
      readonly cookie: string
      readonly maxAgeSecs: number
      readonly redirect: string
      readonly user: UserRow
    }
  | { readonly _tag: "SignupClosed" }

/**
 * Only a path on this service. `//evil.example` and `/\evil.example` are other hosts to a browser, and so is
 * `/<tab>/evil.example`: browsers drop tabs and line breaks from a URL before reading it. So a backslash or a
 * control character anywhere refuses the value, and what is left must still be a path on this origin when a URL
 * parser resolves it.
 */
export const safeRedirect = (value: string | null): string | null => {
  if (value === null || value.length > 2000 || !value.startsWith("/") || value.startsWith("//")) return null
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\\\u0000-\u001f\u007f]/.test(value)) return null
  return new URL(value, "http://signalman.invalid").origin === "http://signalman.invalid" ? value : null
}

export class SignIn extends Effect.Service<SignIn>()("Signalman/SignIn", {
  effect: Effect.gen(function* () {
    const accounts = yield* Accounts
    const sessions = yield* Sessions
    const invitations = yield* CarriedInvitation
    const attempts = yield* Attempts
    const config = yield* AppConfig

    /** The part every method shares once the account is known: invitation, fresh session, attempt, redirect. */
    const finish = (user: UserRow, input: Carried): Effect.Effect<Outcome> =>
      Effect.gen(function* () {
        let joined: string | undefined
        let missed = false
        if (input.invitation !== null && user.deleted_at === null) {
          const outcome = yield* invitations.accept(input.invitation, user)
          if (outcome._tag === "Joined") joined = outcome.slug
          else missed = true
        }
        if (input.previousSession !== undefined) yield* sessions.revokeByCookie(input.previousSession)
        const memberships = yield* accounts.memberships(user.id)
        const active = (joined === undefined ? undefined : memberships.find((m) => m.slug === joined)) ?? memberships[0]
        const session = yield* sessions.create(user.id, active?.id ?? null, input.device)
        yield* attempts.record({ method: input.method, success: true, userId: user.id, ...input.device })
        const redirect =
          user.deleted_at !== null
            ? "/account/restore"
            : joined !== undefined
              ? `/?joined=${encodeURIComponent(joined)}`
              : missed
                ? "/?invite=missed"
                : (safeRedirect(input.redirectAfter) ?? "/")
        return { _tag: "SignedIn", cookie: session.cookie, maxAgeSecs: session.maxAgeSecs, redirect, user } as const
      })

    /** A sign-in by an attested address: the account is known, found by the address, or opened when allowed. */
    const complete = <E = never>(input: Completion<E>): Effect.Effect<Outcome, E> =>
      Effect.gen(function* () {
        let user = input.user ?? (yield* accounts.byEmail(input.email))
        let how: AccountMatch = input.user === undefined ? "email_match" : "known"
        if (user === undefined) {
          how = "signup"
          const invitedEmail = input.invitation === null ? undefined : yield* invitations.emailFor(input.invitation)
          if (invitedEmail === input.email) {
            // Invited and new: a verified user with no personal org, joining the inviter's.
            user = yield* accounts.signUp(input.email, false)
          } else if (config["auth.open_signup"]) {
            user = yield* accounts.signUp(input.email, true)
          } else {
            yield* attempts.record({
              method: input.method,
              success: false,
              failureReason: "signup_closed",
              ...input.device
            })
            return { _tag: "SignupClosed" } as const
          }
        } else if (how === "email_match") {
          // The method proved the address (a mailed link, an attested email); an account it merely knows proves
          // nothing about the account's address.
          yield* accounts.markVerified(user.id)
        }
        if (input.onAccount !== undefined) yield* input.onAccount(user, how)
        return yield* finish(user, input)
      })

    /**
     * A sign-in by a credential an existing account holds (a passkey): never opens an account, and says nothing of
     * the address (a passkey attests no email).
     */
    const completeExisting = (user: UserRow, input: Carried): Effect.Effect<Outcome> => finish(user, input)

    return { complete, completeExisting }
  }),
  // The carried invitation is bound where the process is composed (orgs own invitations; see CarriedInvitation).
  dependencies: [Accounts.Default, Sessions.Default, Attempts.Default]
}) {}
