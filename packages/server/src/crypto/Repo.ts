/**
 * The instance's own secrets, kept in its database when no setting supplies them: the encryption key (Sealer) and
 * the fingerprint salt (auth/Fingerprint), with the record of retired salts. Read once at boot.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"

/** The secrets an instance keeps, by their row name in `instance_secrets`. */
export const SecretName = Schema.Literal("encryption_key", "fingerprint_salt")
export type SecretName = typeof SecretName.Type

const Secret = Schema.Struct({ name: SecretName, value: Schema.String })
const Value = Schema.Struct({ value: Schema.String })

export class CryptoRepo extends Effect.Service<CryptoRepo>()("Signalman/CryptoRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const read = SqlSchema.findOne({
      Request: SecretName,
      Result: Value,
      execute: (name) => sql`SELECT value FROM instance_secrets WHERE name = ${name}`
    })

    const keep = SqlSchema.void({
      Request: Secret,
      execute: ({ name, value }) =>
        sql`INSERT INTO instance_secrets (name, value) VALUES (${name}, ${value}) ON CONFLICT (name) DO NOTHING`
    })

    const replace = SqlSchema.void({
      Request: Secret,
      execute: ({ name, value }) => sql`
        INSERT INTO instance_secrets (name, value) VALUES (${name}, ${value})
        ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value
      `
    })

    const retireSalt = SqlSchema.void({
      Request: Schema.String,
      execute: (saltSha256) =>
        sql`INSERT INTO auth_salt_history (salt_sha256, retired_at) VALUES (${saltSha256}, now())`
    })

    // The database failing at boot, or our own rows failing their schema, are defects at this boundary.
    return {
      /** The stored value of a secret, if the instance has kept one. */
      read: (name: SecretName) =>
        Effect.map(Effect.orDie(read(name)), Option.match({ onNone: () => undefined, onSome: (row) => row.value })),
      /** Keeps a secret unless one of the name is kept already (a concurrent first boot wins). */
      keep: (name: SecretName, value: string) => Effect.orDie(keep({ name, value })),
      /** Keeps a secret, replacing any kept before. */
      replace: (name: SecretName, value: string) => Effect.orDie(replace({ name, value })),
      /** Records that the salt with this SHA-256 (hex) stopped being used now. */
      retireSalt: (saltSha256: string) => Effect.orDie(retireSalt(saltSha256))
    }
  })
}) {}
