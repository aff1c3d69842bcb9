/**
 * What `plan` and `apply` start with: the config file read and validated, the client for the credentials, the
 * project's resources read from the service, and the plan between them. A problem on the way is printed and ends
 * the command with exit 1.
 *
 * @since 0.1.0
 */
import type { Signalman } from "@signalman/sdk/Signalman"
import type { SignalmanError } from "@signalman/sdk/SignalmanError"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ConfigCheck from "./ConfigCheck.js"
import type * as Credentials from "./Credentials.js"
import type * as CredentialsFile from "./CredentialsFile.js"
import type * as Current from "./Current.js"
import * as CurrentRead from "./CurrentRead.js"
import type * as Desired from "./Desired.js"
import * as Diff from "./Diff.js"
import { Failed } from "./ExitCode.js"
import type * as Plan from "./Plan.js"
import * as ServiceClient from "./ServiceClient.js"
import * as ServiceOptions from "./ServiceOptions.js"

/**
 * Prints `signalman <command>: <message>` on stderr and fails with exit code 1.
 *
 * @since 0.1.0
 * @category errors
 */
export const fail = (command: string, message: string): Effect.Effect<never, Failed> =>
  Effect.zipRight(Console.error(`signalman ${command}: ${message}`), new Failed({ code: 1 }))

/**
 * A failure of the service, said with the service's address.
 *
 * @since 0.1.0
 * @category errors
 */
export const serviceFailed = (command: string, url: string) => (error: SignalmanError) =>
  fail(command, `${url}: ${ServiceClient.describe(error)}`)

/**
 * The valid config, or its problems printed and exit 1.
 *
 * @since 0.1.0
 * @category loading
 */
export const config = (file: Option.Option<string>): Effect.Effect<ConfigCheck.Checked, Failed> =>
  ConfigCheck.check({ cwd: process.cwd(), file: Option.getOrUndefined(file), env: process.env }).pipe(
    Effect.catchTag("Invalid", (invalid) =>
      Effect.zipRight(Console.error(ConfigCheck.report(invalid).join("\n")), new Failed({ code: 1 }))
    )
  )

/**
 * The credentials and the Promise client for them.
 *
 * @since 0.1.0
 * @category loading
 */
export const connect = (
  given: ServiceOptions.Given
): Effect.Effect<
  { readonly credentials: Credentials.Credentials; readonly client: Signalman },
  CredentialsFile.FileError
> =>
  Effect.map(ServiceOptions.credentials(given), (credentials) => ({
    credentials,
    client: ServiceClient.connect(credentials)
  }))

/**
 * Everything a plan is made of.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prepared {
  readonly file: string
  readonly desired: Desired.Desired
  readonly url: string
  readonly client: Signalman
  readonly current: Current.Current
  readonly plan: Plan.Plan
}

/**
 * The file, the service's state and the plan.
 *
 * @since 0.1.0
 * @category loading
 */
export const prepare = (
  command: string,
  file: Option.Option<string>,
  given: ServiceOptions.Given
): Effect.Effect<Prepared, Failed | CredentialsFile.FileError> =>
  Effect.gen(function* () {
    const { file: name, desired } = yield* config(file)
    const { credentials, client } = yield* connect(given)
    const current = yield* CurrentRead.read(client, desired.project).pipe(
      Effect.catchAll(serviceFailed(command, credentials.url))
    )
    return { file: name, desired, url: credentials.url, client, current, plan: Diff.diff(desired, current) }
  })
