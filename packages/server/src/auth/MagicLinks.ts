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
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Mailer } from "../infra/Mailer.js"
import { randomSecret, safeEqualBytes, sha256 } from "../infra/Secrets.js"
import { isPlausibleEmail, normalizeEmail } from "./Accounts.js"
import { Attempts, type FailureReason } from "./Attempts.js"
import { Fingerprint } from "./Fingerprint.js"
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

const LinkRow = Schema.Struct({
  id: Schema.String,
  email: Schema.String,
  invitation_token: Schema.NullOr(Schema.String),
  redirect_after: Schema.NullOr(Schema.String),
  code_hash: Schema.Uint8ArrayFromSelf
})

export type Redeemed = typeof LinkRow.Type

export type RedeemFailure = { readonly _tag: "Invalid"; readonly reason: FailureReason }

export class MagicLinks extends Effect.Service<MagicLinks>()("Signalman/MagicLinks", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const mailer = yield* Mailer
    const attempts = yield* Attempts
    const fingerprint = yield* Fingerprint
    const decode = Schema.decodeUnknown(Schema.Array(LinkRow))
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
        const shouldMail = yield* sql
          .withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`magic_link:${email}`}))`
              const [row] = yield* sql<{ created_at: Date }>`
                INSERT INTO magic_links (id, email, token_hash, code_hash, browser_hash, created_at, expires_at,
                                         invitation_token, redirect_after, ip_hash, user_agent_hash)
                VALUES (${id}, ${email}, ${sha256(token)}, ${sha256(code)}, ${sha256(input.browser)}, clock_timestamp(),
                        clock_timestamp() + make_interval(mins => ${expiryMinutes}), ${input.invitation},
                        ${input.redirectAfter}, ${fingerprint.hash(input.device.ip)}, ${fingerprint.hash(input.device.userAgent)})
                RETURNING created_at
              `
              const [earlier] =
                throttleSecs === 0
                  ? [{ n: 0 }]
                  : yield* sql<{ n: number }>`
                      SELECT count(*)::int AS n FROM magic_links
                      WHERE email = ${email} AND id <> ${id} AND mailed
                        AND created_at > ${row?.created_at ?? new Date()}::timestamptz - make_interval(secs => ${throttleSecs})
                    `
              if ((earlier?.n ?? 0) > 0) {
                // Throttled: this credential was never sent, so it must never work.
                yield* sql`UPDATE magic_links SET retired_at = clock_timestamp() WHERE id = ${id}`
                return false
              }
              yield* sql`
                UPDATE magic_links SET retired_at = clock_timestamp()
                WHERE email = ${email} AND id <> ${id} AND retired_at IS NULL AND used_at IS NULL
              `
              yield* sql`UPDATE magic_links SET mailed = true WHERE id = ${id}`
              return true
            })
          )
          .pipe(Effect.orDie)
        if (shouldMail) yield* mail(email, token, code)
      })

    // Why a token did not redeem, for the attempts log (the browser sees the same page whatever the reason).
    const reasonFor = (tokenHash: Buffer) =>
      sql<{ used: boolean; retired: boolean; expired: boolean }>`
        SELECT used_at IS NOT NULL AS used, retired_at IS NOT NULL AS retired, expires_at <= now() AS expired
        FROM magic_links WHERE token_hash = ${tokenHash}
      `.pipe(
        Effect.map(
          ([row]): FailureReason =>
            row === undefined
              ? "invalid_token"
              : row.used
                ? "token_used"
                : row.retired
                  ? "token_retired"
                  : row.expired
                    ? "token_expired"
                    : "invalid_token"
        ),
        Effect.orDie
      )

    /** Redeems the mailed link: marked used in the same statement that checks it is live. */
    const redeemToken = (token: string, device: Device): Effect.Effect<Redeemed, RedeemFailure> =>
      Effect.gen(function* () {
        const tokenHash = sha256(token)
        const rows = yield* sql`
          UPDATE magic_links SET used_at = now()
          WHERE token_hash = ${tokenHash} AND used_at IS NULL AND retired_at IS NULL AND expires_at > now()
          RETURNING id, email, invitation_token, redirect_after, code_hash
        `.pipe(Effect.flatMap(decode), Effect.orDie)
        const row = rows[0]
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
        const live =
          browser === undefined
            ? []
            : yield* sql`
                SELECT id, email, invitation_token, redirect_after, code_hash FROM magic_links
                WHERE browser_hash = ${sha256(browser)} AND used_at IS NULL AND retired_at IS NULL
                  AND code_spent_at IS NULL AND expires_at > now()
                ORDER BY created_at DESC, id DESC LIMIT 1
              `.pipe(Effect.flatMap(decode), Effect.orDie)
        const row = live[0]
        const fail = (reason: FailureReason) =>
          Effect.zipRight(
            attempts.record({ method: "magic_link", success: false, failureReason: reason, ...device }),
            Effect.fail({ _tag: "Invalid", reason } as const)
          )
        if (row === undefined) return yield* fail("invalid_code")
        if (!safeEqualBytes(sha256(code), row.code_hash)) {
          // One attempt: a miss retires the code, the mailed link still works.
          yield* sql`UPDATE magic_links SET code_spent_at = now() WHERE id = ${row.id}`.pipe(Effect.orDie)
          return yield* fail("invalid_code")
        }
        const claimed = yield* sql<{ id: string }>`
          UPDATE magic_links SET used_at = now(), code_spent_at = now()
          WHERE id = ${row.id} AND used_at IS NULL AND retired_at IS NULL AND code_spent_at IS NULL AND expires_at > now()
          RETURNING id
        `.pipe(Effect.orDie)
        if (claimed.length === 0) return yield* fail("token_used")
        return row
      })

    return { request, redeemToken, redeemCode }
  }),
  dependencies: [Attempts.Default, Fingerprint.Default]
}) {}
