/**
 * `signalman login`: checks a token against the service (`GET /me`) and stores the service, the token and the org
 * in the credentials file (`CredentialsFile`, mode 0600), for every later command that is given none. The token is
 * `--token`, else `SIGNALMAN_TOKEN`, else asked for on a terminal (not echoed). Exit 0 when stored, 1 otherwise;
 * nothing is stored unless the service accepted the token.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Prompt from "@effect/cli/Prompt"
import { SignalmanClient } from "@signalman/sdk/Client"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Credentials from "./Credentials.js"
import * as CredentialsFile from "./CredentialsFile.js"
import { Failed } from "./ExitCode.js"
import * as ServiceClient from "./ServiceClient.js"
import * as ServiceOptions from "./ServiceOptions.js"

// What went wrong talking to the service, in one line: the API's own message and code when it answered one.
const reason = (error: unknown): string => {
  if (typeof error !== "object" || error === null) return String(error)
  const message = "message" in error && typeof error.message === "string" ? error.message : ""
  if ("code" in error && typeof error.code === "string") return `${message} (${error.code})`
  if ("_tag" in error && error._tag === "RequestError") return "not answering"
  return message === "" ? String(error) : message
}

const fail = (message: string) => Effect.zipRight(Console.error(`signalman login: ${message}`), new Failed({ code: 1 }))

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("login", ServiceOptions.options, (given) =>
  Effect.gen(function* () {
    const file = ServiceOptions.credentialsFile()
    const stored = yield* CredentialsFile.read(file).pipe(Effect.orElseSucceed(() => undefined))
    // The token to check is the one given now, never the stored one; the service may be the stored one.
    const resolved = Credentials.resolve(ServiceOptions.flags(given), process.env, stored)
    const givenToken = resolved.source.token === "login" ? undefined : resolved.token
    const token =
      givenToken ??
      (process.stdin.isTTY
        ? yield* Prompt.password({ message: `API token for ${resolved.url}` })
        : yield* fail("no token: pass --token, or set SIGNALMAN_TOKEN"))
    const org = resolved.source.org === "login" ? undefined : resolved.org
    const credentials = { ...resolved, token, org }
    const me = yield* Effect.flatMap(SignalmanClient, (client) => client.me.get()).pipe(
      Effect.provide(ServiceClient.layer(credentials)),
      Effect.catchAll((error) => fail(`${resolved.url} refused the token: ${reason(error)}`))
    )
    if (org !== undefined && me.active_org?.slug !== org) {
      return yield* fail(`${me.email} is not a member of the org "${org}" on ${resolved.url}`)
    }
    yield* CredentialsFile.write(file, {
      url: resolved.url,
      token: Redacted.value(token),
      ...(org === undefined ? {} : { org })
    })
    const acting = org ?? me.active_org?.slug
    yield* Console.log(
      `Signed in to ${resolved.url} as ${me.email}${acting === undefined ? "" : ` (org ${acting})`}; ` +
        `credentials saved in ${file}, readable by you only.`
    )
  }).pipe(
    Effect.catchTag("CredentialsFileError", (error) => fail(error.message)),
    Effect.catchTag("QuitException", () => fail("cancelled"))
  )
).pipe(Command.withDescription("Check an API token with the service and store it for later commands (mode 0600)"))
