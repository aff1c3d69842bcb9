/**
 * Magic links (auth-and-limits.md, "Magic links"): a mailed link and a six-character code, both single-use, both
 * expiring after `auth.magic_link.expiry_minutes`.
 *
 * - Requesting answers the same for every address; the row is written only for plausible ones.
 * - Only the newest mailed credential of an address is live: mailing retires the earlier links and codes.
 * - One mail per address per `auth.magic_link.rate_limit_seconds`: concurrent requests all write a row, and only
 *   the earliest by (created_at, id) mails (serialised per address so the order is the commit order).
 * - The code works only in the browser that asked (the `_sm_ml_code` cookie, whose hash the row keeps) and allows
 *   one attempt: a well-formed miss retires the code and leaves the link redeemable; malformed input spends
 *   nothing.
 */

import { randomInt } from "node:crypto"
import * as Effect from "effect/Effect"
import { isPlausibleEmail, normalizeEmail } from "../accounts/Accounts.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Mailer } from "../infra/Mailer.js"
import { randomSecret, safeEqualBytes, sha256 } from "../infra/Secrets.js"
import { Attempts, type FailureReason } from "./Attempts.js"
import { Fingerprint } from "./Fingerprint.js"
import { AuthRepo, type LinkRow } from "./Repo.js"
import type { Device } from "./Sessions.js"

export const CODE_COOKIE = "_sm_ml_code"
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

export const newCode = (): string => Array.from({ length: 6 }, () => CROCKFORD[randomInt(32)]).join("")

/**
 * A typed code in canonical form, or undefined when it is not six Crockford characters. Case, whitespace and
 * separators are ignored and the letters Crockford reads as digits (O, I, L) are mapped, so how a person types
 * the code never spends the attempt.
 */
export const normalizeCode = (input: string): string | undefined => {
  const code = input
    .toUpperCase()
    .replace(/[\s\-_.]/g, "")
    .replace(/O/g, "0")
    .replace(/[IL]/g, "1")
  return /^[0-9A-HJKMNP-TV-Z]{6}$/.test(code) ? code : undefined
}

export type Redeemed = LinkRow

export type RedeemFailure = { readonly _tag: "Invalid"; readonly reason: FailureReason }

export class MagicLinks extends Effect.Service<MagicLinks>()("Signalman/MagicLinks", {
  effect: Effect.gen(function* () {
    const repo = yield* AuthRepo
    const config = yield* AppConfig
    const mailer = yield* Mailer
    const attempts = yield* Attempts
    const fingerprint = yield* Fingerprint
    const expiryMinutes = config["auth.magic_link.expiry_minutes"]
    const throttleSecs = config["auth.magic_link.rate_limit_seconds"]
    const base = yield* publicBaseUrl

    const mail = (email: string, token: string, code: string) =>
      mailer
        .send({
          to: email,
          subject: `Your Signalman sign-in code: ${code}`,
          text: [
            "Sign in to Signalman with this link:",
            "",
            `${base}/auth/magic-link/verify?token=${token}`,
            "",
            `Or type this code in the browser where you asked for it: ${code}`,
            "",
            `Both work once and for ${expiryMinutes} minutes. If you did not ask to sign in, ignore this mail.`
          ].join("\n")
        })
        .pipe(Effect.catchAll((error) => Effect.logError("Could not send the magic-link mail", error.cause)))

    /** Writes the request and mails it when it is the one to mail. `browser` is the new `_sm_ml_code` value. */
    const request = (input: {
      readonly email: string
      readonly redirectAfter: string | null
      readonly invitation: string | null
      readonly browser: string
      readonly device: Device
    }) =>
      Effect.gen(function* () {
        const email = normalizeEmail(input.email)
        if (!isPlausibleEmail(email)) return
        const token = randomSecret(32)
        const code = newCode()
        const id = uuidv7()
        const shouldMail = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockEmail(email)
            const createdAt = yield* repo.insertLink({
              id,
              email,
              token_hash: sha256(token),
              code_hash: sha256(code),
              browser_hash: sha256(input.browser),
              expiry_minutes: expiryMinutes,
              invitation_token: input.invitation,
              redirect_after: input.redirectAfter,
              ip_hash: fingerprint.hash(input.device.ip),
              user_agent_hash: fingerprint.hash(input.device.userAgent)
            })
            const earlier = throttleSecs === 0 ? 0 : yield* repo.mailedBefore(email, id, createdAt, throttleSecs)
            if (earlier > 0) {
              // Throttled: this credential was never sent, so it must never work.
              yield* repo.retireLink(id)
              return false
            }
            yield* repo.retireOtherLinks(email, id)
            yield* repo.markMailed(id)
            return true
          })
        )
        if (shouldMail) yield* mail(email, token, code)
      })

    // Why a token did not redeem, for the attempts log (the browser sees the same page whatever the reason).
    const reasonFor = (tokenHash: Buffer) =>
      Effect.map(
        repo.linkState(tokenHash),
        (row): FailureReason =>
          row === undefined
            ? "invalid_token"
            : row.used
              ? "token_used"
              : row.retired
                ? "token_retired"
                : row.expired
                  ? "token_expired"
                  : "invalid_token"
      )

    /** Redeems the mailed link: marked used in the same statement that checks it is live. */
    const redeemToken = (token: string, device: Device): Effect.Effect<Redeemed, RedeemFailure> =>
      Effect.gen(function* () {
        const tokenHash = sha256(token)
        const row = yield* repo.redeemLink(tokenHash)
        if (row !== undefined) return row
        const reason = /^[A-Za-z0-9_-]{43}$/.test(token) ? yield* reasonFor(tokenHash) : "invalid_token"
        yield* attempts.record({ method: "magic_link", success: false, failureReason: reason, ...device })
        return yield* Effect.fail({ _tag: "Invalid", reason } as const)
      })

    /** Redeems a typed code in the browser that asked for it. */
    const redeemCode = (
      typed: string,
      browser: string | undefined,
      device: Device
    ): Effect.Effect<Redeemed, RedeemFailure | { readonly _tag: "Malformed" }> =>
      Effect.gen(function* () {
        const code = normalizeCode(typed)
        if (code === undefined) return yield* Effect.fail({ _tag: "Malformed" } as const)
        const row = browser === undefined ? undefined : yield* repo.liveCode(sha256(browser))
        const fail = (reason: FailureReason) =>
          Effect.zipRight(
            attempts.record({ method: "magic_link", success: false, failureReason: reason, ...device }),
            Effect.fail({ _tag: "Invalid", reason } as const)
          )
        if (row === undefined) return yield* fail("invalid_code")
        if (!safeEqualBytes(sha256(code), row.code_hash)) {
          // One attempt: a miss retires the code, the mailed link still works.
          yield* repo.spendCode(row.id)
          return yield* fail("invalid_code")
        }
        if (!(yield* repo.claimLink(row.id))) return yield* fail("token_used")
        return row
      })

    return { request, redeemToken, redeemCode }
  }),
  dependencies: [AuthRepo.Default, Attempts.Default, Fingerprint.Default]
}) {}
