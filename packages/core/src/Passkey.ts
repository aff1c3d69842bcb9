/**
 * Passkeys (auth-and-limits.md, "Passkeys"): the wire shapes of the WebAuthn ceremonies and the rules that need no
 * I/O: which relying-party id a public base URL gives, whether one more passkey fits, whether a browser said its
 * credential is not discoverable, and how a signature counter is judged.
 *
 * The ceremony bodies carry WebAuthn's own JSON forms (`PublicKeyCredentialCreationOptionsJSON`,
 * `RegistrationResponseJSON`, ...), as a browser's `toJSON()` writes them. The wrapper objects refuse unknown keys
 * like every request body; the browser's credential inside keeps the keys it adds (newer browsers add fields), which
 * are ignored.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as RequestBody from "./RequestBody.js"

/** @since 0.1.0 @category ids */
export const PasskeyId = Schema.UUID.pipe(Schema.brand("PasskeyId"))
/** @since 0.1.0 @category ids */
export type PasskeyId = typeof PasskeyId.Type
/** @since 0.1.0 @category ids */
export const CeremonyId = Schema.UUID.pipe(Schema.brand("PasskeyCeremonyId"))
/** @since 0.1.0 @category ids */
export type CeremonyId = typeof CeremonyId.Type

/**
 * At most this many passkeys per account (counted under the account's lock).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PER_USER = 10

/**
 * How long a started ceremony can be finished.
 *
 * @since 0.1.0
 * @category constants
 */
export const CEREMONY_MINUTES = 5

// The browser's objects: unknown keys are dropped, not refused (see the module comment).
const lenient = { parseOptions: { onExcessProperty: "ignore" } } as const

const Base64Url = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]*={0,2}$/), Schema.maxLength(65_536))

/** A passkey's name as its owner gives it: what the account page and the mails call it. */
const PasskeyName = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "Give the passkey a name" }),
  Schema.maxLength(64, { message: () => "A passkey's name is at most 64 characters" })
)

/**
 * A passkey as its owner sees it. `retired` is true when it was made for another host than today's (its `rp_id`
 * is not the relying-party id now): it is kept to be seen and removed, and never signs in.
 *
 * @since 0.1.0
 * @category models
 */
export class Passkey extends Schema.Class<Passkey>("Passkey")({
  id: PasskeyId,
  name: Schema.String,
  rp_id: Schema.String,
  retired: Schema.Boolean,
  created_at: Schema.DateTimeUtc,
  last_used_at: Schema.NullOr(Schema.DateTimeUtc)
}) {}

/**
 * `POST /auth/passkey/login/start`: what the login page was opened with, carried to the end of the sign-in.
 *
 * @since 0.1.0
 * @category requests
 */
export const LoginStart = RequestBody.Struct({
  redirect_after: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(2000)), { exact: true }),
  invitation: Schema.optionalWith(Schema.String.pipe(Schema.maxLength(200)), { exact: true })
}).annotations({ identifier: "PasskeyLoginStart" })

/**
 * `POST /auth/passkey/register/start`: the name the new passkey will go by.
 *
 * @since 0.1.0
 * @category requests
 */
export const RegisterStart = RequestBody.Struct({ name: PasskeyName }).annotations({
  identifier: "PasskeyRegisterStart"
})

const Transports = Schema.Array(Schema.String.pipe(Schema.maxLength(32))).pipe(Schema.maxItems(16))

const CredentialDescriptor = Schema.Struct({
  id: Base64Url,
  type: Schema.Literal("public-key"),
  transports: Schema.optionalWith(Transports, { exact: true })
})

/**
 * The options of `navigator.credentials.create()`, in WebAuthn's JSON form.
 *
 * @since 0.1.0
 * @category models
 */
export const CreationOptions = Schema.Struct({
  rp: Schema.Struct({ id: Schema.optionalWith(Schema.String, { exact: true }), name: Schema.String }),
  user: Schema.Struct({ id: Base64Url, name: Schema.String, displayName: Schema.String }),
  challenge: Base64Url,
  pubKeyCredParams: Schema.Array(Schema.Struct({ type: Schema.Literal("public-key"), alg: Schema.Number })),
  timeout: Schema.optionalWith(Schema.Number, { exact: true }),
  excludeCredentials: Schema.optionalWith(Schema.Array(CredentialDescriptor), { exact: true }),
  authenticatorSelection: Schema.optionalWith(
    Schema.Struct({
      authenticatorAttachment: Schema.optionalWith(Schema.String, { exact: true }),
      residentKey: Schema.optionalWith(Schema.String, { exact: true }),
      requireResidentKey: Schema.optionalWith(Schema.Boolean, { exact: true }),
      userVerification: Schema.optionalWith(Schema.String, { exact: true })
    }),
    { exact: true }
  ),
  attestation: Schema.optionalWith(Schema.String, { exact: true }),
  hints: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  extensions: Schema.optionalWith(Schema.Struct({ credProps: Schema.optionalWith(Schema.Boolean, { exact: true }) }), {
    exact: true
  })
}).annotations({ identifier: "PublicKeyCredentialCreationOptionsJSON", ...lenient })

/**
 * The options of `navigator.credentials.get()`, in WebAuthn's JSON form. No `allowCredentials`: sign-in is
 * discoverable, the authenticator offers the passkeys it holds for this site.
 *
 * @since 0.1.0
 * @category models
 */
export const RequestOptions = Schema.Struct({
  challenge: Base64Url,
  timeout: Schema.optionalWith(Schema.Number, { exact: true }),
  rpId: Schema.optionalWith(Schema.String, { exact: true }),
  allowCredentials: Schema.optionalWith(Schema.Array(CredentialDescriptor), { exact: true }),
  userVerification: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "PublicKeyCredentialRequestOptionsJSON", ...lenient })

/**
 * A started registration: the id to finish it with and the options for the browser.
 *
 * @since 0.1.0
 * @category models
 */
export class RegistrationCeremony extends Schema.Class<RegistrationCeremony>("PasskeyRegistrationCeremony")({
  ceremony_id: CeremonyId,
  options: CreationOptions
}) {}

/**
 * A started sign-in: the id to finish it with and the options for the browser.
 *
 * @since 0.1.0
 * @category models
 */
export class LoginCeremony extends Schema.Class<LoginCeremony>("PasskeyLoginCeremony")({
  ceremony_id: CeremonyId,
  options: RequestOptions
}) {}

const ClientExtensionResults = Schema.Struct({
  credProps: Schema.optionalWith(
    Schema.Struct({ rk: Schema.optionalWith(Schema.Boolean, { exact: true }) }).annotations(lenient),
    { exact: true }
  )
}).annotations(lenient)

/**
 * What `navigator.credentials.create()` answered, as its `toJSON()` writes it.
 *
 * @since 0.1.0
 * @category models
 */
export const RegistrationResponse = Schema.Struct({
  id: Base64Url,
  rawId: Base64Url,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url,
    attestationObject: Base64Url,
    transports: Schema.optionalWith(Transports, { exact: true })
  }).annotations(lenient),
  authenticatorAttachment: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  clientExtensionResults: ClientExtensionResults
}).annotations({ identifier: "RegistrationResponseJSON", ...lenient })

/**
 * What `navigator.credentials.get()` answered, as its `toJSON()` writes it.
 *
 * @since 0.1.0
 * @category models
 */
export const AuthenticationResponse = Schema.Struct({
  id: Base64Url,
  rawId: Base64Url,
  type: Schema.Literal("public-key"),
  response: Schema.Struct({
    clientDataJSON: Base64Url,
    authenticatorData: Base64Url,
    signature: Base64Url,
    userHandle: Schema.optionalWith(Schema.NullOr(Base64Url), { exact: true })
  }).annotations(lenient),
  authenticatorAttachment: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  clientExtensionResults: ClientExtensionResults
}).annotations({ identifier: "AuthenticationResponseJSON", ...lenient })

/**
 * `POST /auth/passkey/register/finish`.
 *
 * @since 0.1.0
 * @category requests
 */
export const RegisterFinish = RequestBody.Struct({
  ceremony_id: CeremonyId,
  credential: RegistrationResponse
}).annotations({ identifier: "PasskeyRegisterFinish" })

/**
 * `POST /auth/passkey/login/finish`.
 *
 * @since 0.1.0
 * @category requests
 */
export const LoginFinish = RequestBody.Struct({
  ceremony_id: CeremonyId,
  credential: AuthenticationResponse
}).annotations({ identifier: "PasskeyLoginFinish" })

/**
 * The relying-party id for a public base URL: its host name. An IP address cannot be one (WebAuthn scopes
 * credentials to a registrable domain), so such a URL is refused with the reason.
 *
 * @since 0.1.0
 * @category rules
 */
export const rpIdOf = (publicBaseUrl: string): Either.Either<string, string> => {
  let host: string
  try {
    // The URL parser normalises spellings of addresses (`0x7f.1`, `2130706433`) to dotted IPv4 or `[v6]`.
    host = new URL(publicBaseUrl).hostname
  } catch {
    return Either.left(`${publicBaseUrl} is not a URL`)
  }
  if (host === "") return Either.left(`${publicBaseUrl} has no host`)
  if (host.startsWith("[") || /^\d{1,3}(\.\d{1,3}){3}$/.test(host)) {
    return Either.left(
      `passkeys need a domain name: auth.public_base_url's host ${host} is an IP address (use a name, such as localhost)`
    )
  }
  return Either.right(host.replace(/\.$/, ""))
}

/**
 * Whether one more passkey fits beside `current`.
 *
 * @since 0.1.0
 * @category rules
 */
export const roomForOneMore = (current: number): boolean => current < MAX_PER_USER

/**
 * Whether the browser said, explicitly, that the credential it made is not discoverable (credProps `rk: false`).
 * Saying nothing is not a no: many browsers and authenticators do not report it.
 *
 * @since 0.1.0
 * @category rules
 */
export const reportedNonDiscoverable = (results: {
  readonly credProps?: { readonly rk?: boolean | undefined } | undefined
}): boolean => results.credProps?.rk === false

/**
 * The judgement of a signature counter at a sign-in:
 * - `unused`: the authenticator keeps no counter (both zero, as synced passkeys do);
 * - `advancing`: it moved forward, as it should;
 * - `stalled`: it was counting and now stands still or went back (a cloned authenticator can do this; so can a
 *   harmless sync). Checked, not enforced: the sign-in goes on, with a metric and a warning.
 *
 * @since 0.1.0
 * @category rules
 */
export type CounterJudgement = "unused" | "advancing" | "stalled"

/**
 * @since 0.1.0
 * @category rules
 */
export const judgeCounter = (stored: number, received: number): CounterJudgement =>
  stored === 0 && received === 0 ? "unused" : received > stored ? "advancing" : "stalled"

/**
 * The counter to keep after a sign-in: never lower than what was seen, so one stall does not hide the next.
 *
 * @since 0.1.0
 * @category rules
 */
export const nextCounter = (stored: number, received: number): number => Math.max(stored, received)
