/**
 * Secrets handed to clients (session cookies, API tokens, magic links, invitation links) are 256 random bits;
 * what is stored is a hash, so a database leak gives no way in.
 */
import { createHash, hash, randomBytes, timingSafeEqual } from "node:crypto"

export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString("base64url")

export const sha256 = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()

/** The SHA-256 of `value` as base64url: the key a credential is remembered under in memory, never the value. */
// The one-shot `crypto.hash` makes no hash object, which matters on the per-request path.
export const sha256Key = (value: string): string => hash("sha256", value, "base64url")

/** Constant-time comparison of two strings, false for different lengths without leaking where they differ. */
export const safeEqual = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "utf8")
  const right = Buffer.from(b, "utf8")
  return left.length === right.length && timingSafeEqual(left, right)
}

export const safeEqualBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && timingSafeEqual(a, b)
