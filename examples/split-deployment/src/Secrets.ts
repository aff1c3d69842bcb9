/**
 * The deployment's shared secrets, made at the first start and kept in `secrets.json` (mode 0600) in the state
 * directory, so a restart keeps what the database was written with: every server process must be given the same
 * encryption key and fingerprint salt (a process left to make its own would encrypt with a key the others cannot
 * read), the operator's token, the token `/metrics` asks for, and the agents' tokens (shown once when minted).
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as Schema from "effect/Schema"
import { secretsPath } from "./Layout.js"

export const AgentToken = Schema.Struct({ id: Schema.String, name: Schema.String, token: Schema.String })
export type AgentToken = typeof AgentToken.Type

export const Secrets = Schema.Struct({
  /** `secrets.encryption_key`: 32 bytes, base64. */
  encryption_key: Schema.String,
  /** `auth.fingerprint_salt`. */
  fingerprint_salt: Schema.String,
  /** `operator.admin_token`: the bearer of `/operator/*`. */
  admin_token: Schema.String,
  /** `metrics.token`: the bearer of `/metrics`. */
  metrics_token: Schema.String,
  agents: Schema.Array(AgentToken)
})
export type Secrets = typeof Secrets.Type

const decode = Schema.decodeUnknownSync(Schema.parseJson(Secrets))

const secret = () => randomBytes(32).toString("base64url")

/** The secrets kept in `dir`, made and kept first when there are none. */
export const loadOrMake = (dir: string): Secrets => {
  const file = secretsPath(dir)
  if (fs.existsSync(file)) return decode(fs.readFileSync(file, "utf8"))
  const made: Secrets = {
    encryption_key: randomBytes(32).toString("base64"),
    fingerprint_salt: secret(),
    admin_token: `op-${secret()}`,
    metrics_token: `metrics-${secret()}`,
    agents: []
  }
  save(dir, made)
  return made
}

export const save = (dir: string, secrets: Secrets): void => {
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(secretsPath(dir), `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 })
}
