/**
 * The options every command that talks to the service takes, `--url`, `--token` and `--org`, and the credentials
 * they resolve to with the environment and what `signalman login` stored (`Credentials.resolve`).
 *
 * @since 0.1.0
 */
import * as os from "node:os"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Credentials from "./Credentials.js"
import * as CredentialsFile from "./CredentialsFile.js"

/**
 * @since 0.1.0
 * @category options
 */
export const url = Options.text("url").pipe(
  Options.withDescription(
    `The Signalman service (else SIGNALMAN_URL, else the one signalman login stored, else ${Credentials.DEFAULT_URL})`
  ),
  Options.optional
)

/**
 * @since 0.1.0
 * @category options
 */
export const token = Options.redacted("token").pipe(
  Options.withDescription("An API token, sm_live_... (else SIGNALMAN_TOKEN, else the one signalman login stored)"),
  Options.optional
)

/**
 * @since 0.1.0
 * @category options
 */
export const org = Options.text("org").pipe(
  Options.withDescription("The org to act on, for a token not bound to one (else SIGNALMAN_ORG, else login's)"),
  Options.optional
)

/**
 * The three, for `Command.make`.
 *
 * @since 0.1.0
 * @category options
 */
export const options = { url, token, org }

/**
 * What the options were given.
 *
 * @since 0.1.0
 * @category models
 */
export interface Given {
  readonly url: Option.Option<string>
  readonly token: Option.Option<Redacted.Redacted<string>>
  readonly org: Option.Option<string>
}

/**
 * The options as `Credentials.Flags`.
 *
 * @since 0.1.0
 * @category resolution
 */
export const flags = (given: Given): Credentials.Flags => ({
  url: Option.getOrUndefined(given.url),
  token: Option.getOrUndefined(given.token),
  org: Option.getOrUndefined(given.org)
})

/**
 * Where this process keeps credentials: the user's config directory, from the environment.
 *
 * @since 0.1.0
 * @category resolution
 */
export const credentialsFile = (): string => CredentialsFile.location(process.env, process.platform, os.homedir())

/**
 * The credentials a command uses: its options, the environment, then the stored file.
 *
 * @since 0.1.0
 * @category resolution
 */
export const credentials = (given: Given): Effect.Effect<Credentials.Credentials, CredentialsFile.FileError> =>
  Effect.map(CredentialsFile.read(credentialsFile()), (stored) =>
    Credentials.resolve(flags(given), process.env, stored)
  )
