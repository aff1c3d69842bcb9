/**
 * The passkey ceremonies in the browser, shared by the login page (login.ts) and the account page (passkeys.ts):
 * the server's options arrive in WebAuthn's JSON form (base64url for every byte string) and go to
 * `navigator.credentials`; the credential goes back in the same JSON form, as `toJSON()` writes it. The conversion
 * is done here rather than with `PublicKeyCredential.parse*FromJSON`, which older browsers lack.
 */
import { type ApiFailure, call } from "./api.js"

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const fromBase64Url = (value: string): ArrayBuffer => {
  const base64 = value
    .replace(/-/g, "+")
    .replace(/_/g, "/")
    .padEnd(Math.ceil(value.length / 4) * 4, "=")
  const binary = atob(base64)
  const bytes = new Uint8Array(binary.length)
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i)
  return bytes.buffer
}

const toBase64Url = (buffer: ArrayBuffer): string => {
  const bytes = new Uint8Array(buffer)
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

const text = (record: Record<string, unknown>, key: string): string => {
  const value = record[key]
  return typeof value === "string" ? value : ""
}

/** The value when it is one of `allowed`, else `fallback`: the server's word, checked, never cast. */
const oneOf = <const T extends string>(value: unknown, allowed: ReadonlyArray<T>, fallback: NoInfer<T>): T =>
  allowed.find((candidate) => candidate === value) ?? fallback

const descriptors = (value: unknown): Array<PublicKeyCredentialDescriptor> =>
  Array.isArray(value)
    ? value.filter(isRecord).map((d) => ({
        type: "public-key" as const,
        id: fromBase64Url(text(d, "id")),
        ...(Array.isArray(d["transports"])
          ? {
              transports: d["transports"].flatMap((t): Array<AuthenticatorTransport> => {
                const known = oneOf(t, ["ble", "hybrid", "internal", "nfc", "usb"], "usb")
                return known === t ? [known] : []
              })
            }
          : {})
      }))
    : []

/** Whether this page can run a passkey ceremony: WebAuthn present, in a secure context (https or localhost). */
export const available = (): boolean => window.isSecureContext && typeof window.PublicKeyCredential === "function"

const creationOptions = (json: Record<string, unknown>): PublicKeyCredentialCreationOptions => {
  const rp = isRecord(json["rp"]) ? json["rp"] : {}
  const user = isRecord(json["user"]) ? json["user"] : {}
  const selection = isRecord(json["authenticatorSelection"]) ? json["authenticatorSelection"] : {}
  const params = Array.isArray(json["pubKeyCredParams"]) ? json["pubKeyCredParams"].filter(isRecord) : []
  return {
    rp: { name: text(rp, "name"), ...(typeof rp["id"] === "string" ? { id: rp["id"] } : {}) },
    user: {
      id: fromBase64Url(text(user, "id")),
      name: text(user, "name"),
      displayName: text(user, "displayName")
    },
    challenge: fromBase64Url(text(json, "challenge")),
    pubKeyCredParams: params.map((p) => ({ type: "public-key" as const, alg: Number(p["alg"]) })),
    ...(typeof json["timeout"] === "number" ? { timeout: json["timeout"] } : {}),
    excludeCredentials: descriptors(json["excludeCredentials"]),
    authenticatorSelection: {
      residentKey: oneOf(selection["residentKey"], ["discouraged", "preferred", "required"], "required"),
      requireResidentKey: selection["requireResidentKey"] !== false,
      userVerification: oneOf(selection["userVerification"], ["discouraged", "preferred", "required"], "required")
    },
    attestation: oneOf(json["attestation"], ["none", "indirect", "direct", "enterprise"], "none"),
    // The server asks for credProps: a browser's explicit "not discoverable" is how it refuses such a credential.
    extensions: { credProps: true }
  }
}

const requestOptions = (json: Record<string, unknown>): PublicKeyCredentialRequestOptions => ({
  challenge: fromBase64Url(text(json, "challenge")),
  ...(typeof json["timeout"] === "number" ? { timeout: json["timeout"] } : {}),
  ...(typeof json["rpId"] === "string" ? { rpId: json["rpId"] } : {}),
  allowCredentials: descriptors(json["allowCredentials"]),
  userVerification: oneOf(json["userVerification"], ["discouraged", "preferred", "required"], "required")
})

const extensionResults = (credential: PublicKeyCredential) => {
  const results = credential.getClientExtensionResults()
  // Only credProps is sent: it is the one the server reads, and saying nothing is not a no.
  return results.credProps === undefined ? {} : { credProps: { ...results.credProps } }
}

const registrationJson = (credential: PublicKeyCredential) => {
  const response = credential.response
  if (!(response instanceof AuthenticatorAttestationResponse)) throw new DOMException("no attestation", "UnknownError")
  return {
    id: credential.id,
    rawId: toBase64Url(credential.rawId),
    type: "public-key",
    response: {
      clientDataJSON: toBase64Url(response.clientDataJSON),
      attestationObject: toBase64Url(response.attestationObject),
      transports: typeof response.getTransports === "function" ? response.getTransports() : []
    },
    authenticatorAttachment: credential.authenticatorAttachment,
    clientExtensionResults: extensionResults(credential)
  }
}

const authenticationJson = (credential: PublicKeyCredential) => {
  const response = credential.response
  if (!(response instanceof AuthenticatorAssertionResponse)) throw new DOMException("no assertion", "UnknownError")
  return {
    id: credential.id,
    rawId: toBase64Url(credential.rawId),
    type: "public-key",
    response: {
      clientDataJSON: toBase64Url(response.clientDataJSON),
      authenticatorData: toBase64Url(response.authenticatorData),
      signature: toBase64Url(response.signature),
      ...(response.userHandle === null ? {} : { userHandle: toBase64Url(response.userHandle) })
    },
    authenticatorAttachment: credential.authenticatorAttachment,
    clientExtensionResults: extensionResults(credential)
  }
}

export type Outcome = { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly message: string }

const failed = (failure: ApiFailure): Outcome => ({ ok: false, message: failure.message })

/** What the browser's refusal means to a person (a cancelled prompt is the common one). */
const browserFailure = (error: unknown): Outcome => ({
  ok: false,
  message:
    error instanceof DOMException && error.name === "NotAllowedError"
      ? "The passkey prompt was cancelled or timed out. Try again."
      : error instanceof DOMException && error.name === "InvalidStateError"
        ? "This authenticator already holds a passkey for your account."
        : "Your browser could not use a passkey here."
})

/** Begins, performs and finishes a ceremony: `start`'s answer holds `ceremony_id` and `options`. */
const ceremony = async (
  startPath: string,
  startBody: unknown,
  finishPath: string,
  perform: (options: Record<string, unknown>) => Promise<unknown>
): Promise<Outcome> => {
  const started = await call("POST", startPath, startBody)
  if (!started.ok) return failed(started.failure)
  const body = started.body
  if (!isRecord(body) || !isRecord(body["options"])) return { ok: false, message: "Unexpected answer; reload." }
  let credential: unknown
  try {
    credential = await perform(body["options"])
  } catch (error) {
    return browserFailure(error)
  }
  const finished = await call("POST", finishPath, { ceremony_id: body["ceremony_id"], credential })
  return finished.ok ? { ok: true, body: finished.body } : failed(finished.failure)
}

/** Adds a passkey named `name` to the signed-in account. */
export const register = (name: string): Promise<Outcome> =>
  ceremony("/auth/passkey/register/start", { name }, "/auth/passkey/register/finish", async (options) => {
    const created = await navigator.credentials.create({ publicKey: creationOptions(options) })
    if (!(created instanceof PublicKeyCredential)) throw new DOMException("no credential", "NotAllowedError")
    return registrationJson(created)
  })

/** Signs in with a passkey the authenticator offers (discoverable: no address first). */
export const signIn = (carried: { readonly invitation?: string; readonly redirect_after?: string }) =>
  ceremony("/auth/passkey/login/start", carried, "/auth/passkey/login/finish", async (options) => {
    const got = await navigator.credentials.get({ publicKey: requestOptions(options) })
    if (!(got instanceof PublicKeyCredential)) throw new DOMException("no credential", "NotAllowedError")
    return authenticationJson(got)
  })
