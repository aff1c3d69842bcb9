/** The page password's hash: argon2id, slow on purpose, so it runs off the request's transaction. */
import * as Argon2 from "@node-rs/argon2"
import * as Effect from "effect/Effect"

export const hash = (value: string) => Effect.promise(() => Argon2.hash(value))

/** False for a wrong password and for a hash that cannot be read alike. */
export const verify = (stored: string, value: string) =>
  Effect.promise(() => Argon2.verify(stored, value).catch(() => false))
