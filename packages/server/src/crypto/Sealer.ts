/**
 * Encryption at rest for secrets the service must read back (check credentials, variable values, channel
 * secrets): AES-256-GCM under `secrets.encryption_key` (32 bytes, base64). Sealed values name their key version
 * (`v1.`) so a rotation can come later without a flag day.
 *
 * Without the setting the instance makes a key at first boot and keeps it in its database, with a warning: it keeps
 * credentials out of plain sight in dumps of the target tables, but not from someone holding the whole database.
 */

import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { CryptoRepo } from "./Repo.js"

export class SealError extends Data.TaggedError("SealError")<{ readonly message: string }> {}

const VERSION = "v1"

export class Sealer extends Effect.Service<Sealer>()("Signalman/Sealer", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const repo = yield* CryptoRepo
    let keyText = config["secrets.encryption_key"]
    if (keyText === undefined) {
      keyText = yield* repo.read("encryption_key")
      if (keyText === undefined) {
        const made = randomBytes(32).toString("base64")
        yield* repo.keep("encryption_key", made)
        // Another process booting at the same moment may have kept its key first; everyone uses the kept one.
        keyText = (yield* repo.read("encryption_key")) ?? made
      }
      yield* Effect.logWarning(
        "secrets.encryption_key is not set: credentials are encrypted with a key kept in the database; set it for production"
      )
    }
    const key = Buffer.from(keyText, "base64")
    if (key.length !== 32) {
      return yield* new SealError({ message: "secrets.encryption_key must be 32 bytes, base64-encoded" })
    }
    return {
      seal: (plaintext: string): string => {
        const iv = randomBytes(12)
        const cipher = createCipheriv("aes-256-gcm", key, iv)
        const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
        return `${VERSION}.${iv.toString("base64url")}.${body.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}`
      },
      open: (sealed: string): Effect.Effect<string, SealError> =>
        Effect.try({
          try: () => {
            const [version, iv, body, tag] = sealed.split(".")
            if (version !== VERSION || iv === undefined || body === undefined || tag === undefined)
              throw new Error("format")
            const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"))
            decipher.setAuthTag(Buffer.from(tag, "base64url"))
            return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8")
          },
          catch: () => new SealError({ message: "a sealed value cannot be opened with the configured key" })
        })
    }
  }).pipe(Effect.orDie),
  dependencies: [CryptoRepo.Default]
}) {}
