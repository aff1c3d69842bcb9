/**
 * X.509 certificates made in the test process with chosen notAfter dates: keys from node:crypto (native, fast),
 * certificates built and signed by node-forge. Nothing is written to disk.
 */
import * as Crypto from "node:crypto"
import forge from "node-forge"

export interface Issued {
  /** PEM private key. */
  readonly key: string
  /** PEM certificate. */
  readonly cert: string
  /** The notAfter written into the certificate (whole seconds, as X.509 keeps it). */
  readonly notAfter: Date
}

interface KeyPair {
  readonly pem: string
  readonly privateKey: forge.pki.rsa.PrivateKey
  readonly publicKey: forge.pki.rsa.PublicKey
}

const makeKeyPair = (): KeyPair => {
  const { privateKey } = Crypto.generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" }
  })
  const parsed = forge.pki.privateKeyFromPem(privateKey)
  return { pem: privateKey, privateKey: parsed, publicKey: forge.pki.setRsaPublicKey(parsed.n, parsed.e) }
}

// Two keys for the whole run (one for the test CA, one for every leaf): generating a key per certificate would
// only slow the tests down.
let keys: { readonly ca: KeyPair; readonly leaf: KeyPair } | undefined
const keyPairs = () => {
  keys ??= { ca: makeKeyPair(), leaf: makeKeyPair() }
  return keys
}

export const caCommonName = "Signalman Test CA"

const day = 24 * 60 * 60 * 1000

let serial = 1

const build = (options: {
  readonly subject: string
  readonly issuer: string
  readonly notAfter: Date
  readonly publicKey: forge.pki.rsa.PublicKey
  readonly signer: forge.pki.rsa.PrivateKey
  readonly altNames: ReadonlyArray<string>
}): forge.pki.Certificate => {
  const cert = forge.pki.createCertificate()
  cert.publicKey = options.publicKey
  cert.serialNumber = (serial++).toString(16).padStart(2, "0")
  // Valid from well before notAfter, so an expired certificate is simply past its end.
  cert.validity.notBefore = new Date(options.notAfter.getTime() - 400 * day)
  cert.validity.notAfter = options.notAfter
  cert.setSubject([{ name: "commonName", value: options.subject }])
  cert.setIssuer([{ name: "commonName", value: options.issuer }])
  if (options.altNames.length > 0) {
    cert.setExtensions([{ name: "subjectAltName", altNames: options.altNames.map((value) => ({ type: 2, value })) }])
  }
  cert.sign(options.signer, forge.md.sha256.create())
  return cert
}

const wholeSeconds = (date: Date): Date => new Date(Math.floor(date.getTime() / 1000) * 1000)

/** A leaf certificate for `commonName` issued by the test CA. */
export const issue = (commonName: string, notAfter: Date): Issued => {
  const { ca, leaf } = keyPairs()
  const end = wholeSeconds(notAfter)
  const cert = build({
    subject: commonName,
    issuer: caCommonName,
    notAfter: end,
    publicKey: leaf.publicKey,
    signer: ca.privateKey,
    altNames: [commonName]
  })
  return { key: leaf.pem, cert: forge.pki.certificateToPem(cert), notAfter: end }
}

/** A self-signed certificate for `commonName` (valid for a year), which no verifying client trusts. */
export const selfSigned = (commonName: string): Issued => {
  const { leaf } = keyPairs()
  const end = wholeSeconds(new Date(Date.now() + 365 * day))
  const cert = build({
    subject: commonName,
    issuer: commonName,
    notAfter: end,
    publicKey: leaf.publicKey,
    signer: leaf.privateKey,
    altNames: [commonName]
  })
  return { key: leaf.pem, cert: forge.pki.certificateToPem(cert), notAfter: end }
}

/** `days` whole days and an hour from now: far enough from a day boundary that floor() is unambiguous. */
export const inDays = (days: number): Date => new Date(Date.now() + days * day + 60 * 60 * 1000)
