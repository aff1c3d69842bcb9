/**
 * IP addresses and User-Agents are stored only as HMAC-SHA256 with a secret salt (auth-and-limits.md, Security
 * model): enough to tell "same device" apart, useless to anyone reading the database.
 *
 * The salt is `auth.fingerprint_salt`; without it the instance makes one at first boot and keeps it. A salt that
 * differs from the one the stored hashes were made with refuses to boot unless `auth.fingerprint_salt_rotate` is
 * set, because every stored hash silently stops matching; the retired salt is recorded in `auth_salt_history`.
 */

import { createHmac } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { CryptoRepo } from "../crypto/Repo.js"
import { randomSecret, sha256 } from "../infra/Secrets.js"

export class SaltChanged extends Data.TaggedError("SaltChanged")<{ readonly message: string }> {}

export class Fingerprint extends Effect.Service<Fingerprint>()("Signalman/Fingerprint", {
  effect: Effect.gen(function* () {
    const repo = yield* CryptoRepo
    const config = yield* AppConfig
    const configured = config["auth.fingerprint_salt"]
    const stored = yield* repo.read("fingerprint_salt")
    let salt: string
    if (configured === undefined) {
      salt = stored ?? randomSecret()
      if (stored === undefined) {
        yield* repo.keep("fingerprint_salt", salt)
        // Processes booting at once on a new database each make a salt; the one kept first is everyone's.
        salt = (yield* repo.read("fingerprint_salt")) ?? salt
      }
    } else {
      salt = configured
      if (stored !== undefined && stored !== configured) {
        if (!config["auth.fingerprint_salt_rotate"]) {
          return yield* new SaltChanged({
            message:
              "auth.fingerprint_salt differs from the salt the stored fingerprints were made with; " +
              "set auth.fingerprint_salt_rotate=true to rotate it"
          })
        }
        yield* repo.retireSalt(sha256(stored).toString("hex"))
      }
      yield* repo.replace("fingerprint_salt", salt)
    }
    const hash = (value: string | undefined): string | null =>
      value === undefined || value === "" ? null : createHmac("sha256", salt).update(value).digest("base64url")
    return { hash }
  }).pipe(Effect.orDie),
  dependencies: [CryptoRepo.Default]
}) {}
