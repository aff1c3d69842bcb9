/**
 * A WebAuthn authenticator in software, for HTTP tests: it answers a registration's options with a real "none"
 * attestation (an ES256 key pair, a COSE public key, authenticator data with user presence and verification) and a
 * sign-in's options with a real assertion signed by that key, as a browser's `toJSON()` would send them. Tests bend
 * the answers (a counter that stalls, a signature that does not verify, `credProps.rk` false) to check refusals the
 * browser tests cannot produce.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto"
import { isoCBOR } from "@simplewebauthn/server/helpers"

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url")
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest()

const u32 = (n: number) => {
  const out = Buffer.alloc(4)
  out.writeUInt32BE(n)
  return out
}

export interface Credential {
  readonly id: Uint8Array
  readonly privateKey: KeyObject
  /** The user handle the server gave at registration (base64url). */
  readonly userHandle: string
  readonly rpId: string
  counter: number
}

const clientData = (type: "webauthn.create" | "webauthn.get", challenge: string, origin: string) =>
  Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }))

export interface CreationOptions {
  readonly challenge: string
  readonly rp: { readonly id?: string | undefined }
  readonly user: { readonly id: string }
}

/** A registration answer for `options` at `origin`, and the credential it made. */
export const register = (
  options: CreationOptions,
  origin: string,
  extra: { readonly rk?: boolean; readonly startCounter?: number } = {}
) => {
  const rpId = options.rp.id ?? new URL(origin).hostname
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const jwk = publicKey.export({ format: "jwk" })
  const cose = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x ?? "", "base64url")],
    [-3, Buffer.from(jwk.y ?? "", "base64url")]
  ])
  const id = randomBytes(32)
  const idLength = Buffer.alloc(2)
  idLength.writeUInt16BE(id.length)
  const counter = extra.startCounter ?? 0
  const authData = Buffer.concat([
    sha256(rpId),
    Buffer.from([0x45]), // user present, user verified, attested credential data
    u32(counter),
    Buffer.alloc(16), // aaguid
    idLength,
    id,
    Buffer.from(isoCBOR.encode(cose))
  ])
  const attestationStatement: Map<string, string> = new Map()
  const attestationObject = isoCBOR.encode(
    new Map<string, string | Map<string, string> | Uint8Array>([
      ["fmt", "none"],
      ["attStmt", attestationStatement],
      ["authData", authData]
    ])
  )
  const credential: Credential = { id, privateKey, userHandle: options.user.id, rpId, counter }
  const response = {
    id: b64url(id),
    rawId: b64url(id),
    type: "public-key",
    response: {
      clientDataJSON: b64url(clientData("webauthn.create", options.challenge, origin)),
      attestationObject: b64url(attestationObject),
      transports: ["internal"]
    },
    authenticatorAttachment: "platform",
    clientExtensionResults: extra.rk === undefined ? {} : { credProps: { rk: extra.rk } }
  }
  return { credential, response }
}

/**
 * A sign-in answer for a challenge at `origin`. The counter advances by one unless `counter` says what to send;
 * `tamper` spoils the signature.
 */
export const assert = (
  credential: Credential,
  challenge: string,
  origin: string,
  extra: { readonly counter?: number; readonly tamper?: boolean; readonly userHandle?: string | null } = {}
) => {
  credential.counter = extra.counter ?? credential.counter + 1
  const authData = Buffer.concat([sha256(credential.rpId), Buffer.from([0x05]), u32(credential.counter)])
  const data = clientData("webauthn.get", challenge, origin)
  const signature = sign("sha256", Buffer.concat([authData, sha256(data)]), credential.privateKey)
  if (extra.tamper === true) signature[signature.length - 1] ^= 0xff
  return {
    id: b64url(credential.id),
    rawId: b64url(credential.id),
    type: "public-key",
    response: {
      clientDataJSON: b64url(data),
      authenticatorData: b64url(authData),
      signature: b64url(signature),
      ...(extra.userHandle === null ? {} : { userHandle: extra.userHandle ?? credential.userHandle })
    },
    authenticatorAttachment: "platform",
    clientExtensionResults: {}
  }
}
