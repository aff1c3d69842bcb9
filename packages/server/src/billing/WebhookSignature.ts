/**
 * Stripe's webhook signature (`Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`): an HMAC-SHA256 of
 * `<t>.<raw body>` keyed with the endpoint's signing secret. Several `v1` values come while a secret is being
 * rolled; one matching is enough. The timestamp must be within the tolerance of now either way, so a captured
 * delivery cannot be replayed later. Checked on the raw bytes: a body parsed and serialised again would not match.
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import * as Either from "effect/Either"

/** Stripe's default tolerance, five minutes. */
export const TOLERANCE_SECS = 300

export type Refusal =
  | { readonly reason: "missing"; readonly message: string }
  | { readonly reason: "malformed"; readonly message: string }
  | { readonly reason: "stale"; readonly message: string }
  | { readonly reason: "mismatch"; readonly message: string }

const HEX_SHA256 = /^[0-9a-f]{64}$/i

/** Accepts the delivery when the header carries a valid signature of `body` by `secret`, made near `nowSecs`. */
export const verify = (input: {
  readonly header: string | undefined
  readonly body: Uint8Array
  readonly secret: string
  readonly nowSecs: number
  readonly toleranceSecs?: number
}): Either.Either<void, Refusal> => {
  if (input.header === undefined || input.header.trim() === "") {
    return Either.left({ reason: "missing", message: "The Stripe-Signature header is missing" })
  }
  let timestamp: number | undefined
  const signatures: Array<Buffer> = []
  for (const part of input.header.split(",")) {
    const eq = part.indexOf("=")
    if (eq < 1) return Either.left({ reason: "malformed", message: "The Stripe-Signature header is malformed" })
    const key = part.slice(0, eq).trim()
    const value = part.slice(eq + 1).trim()
    if (key === "t") {
      if (!/^\d{1,12}$/.test(value) || timestamp !== undefined) {
        return Either.left({ reason: "malformed", message: "The Stripe-Signature timestamp is malformed" })
      }
      timestamp = Number(value)
    } else if (key === "v1" && HEX_SHA256.test(value)) {
      signatures.push(Buffer.from(value, "hex"))
    }
    // Other schemes (v0, test-mode extras) are not ours to check.
  }
  if (timestamp === undefined || signatures.length === 0) {
    return Either.left({
      reason: "malformed",
      message: "The Stripe-Signature header has no timestamp or no v1 signature"
    })
  }
  const expected = createHmac("sha256", input.secret).update(`${timestamp}.`).update(input.body).digest()
  if (!signatures.some((candidate) => timingSafeEqual(candidate, expected))) {
    return Either.left({ reason: "mismatch", message: "No Stripe-Signature matches the body" })
  }
  if (Math.abs(input.nowSecs - timestamp) > (input.toleranceSecs ?? TOLERANCE_SECS)) {
    return Either.left({ reason: "stale", message: "The Stripe-Signature timestamp is outside the tolerance" })
  }
  return Either.right(undefined)
}
