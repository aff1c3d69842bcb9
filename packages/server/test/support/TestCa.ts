/**
 * The test run's certificate authority, for HTTPS servers the tests start (fake OAuth providers) that the server
 * under test must trust as it trusts the real ones: through `NODE_EXTRA_CA_CERTS`, which Node reads once, when a
 * process starts. So the e2e projects' global setup makes the CA before any test worker forks (`ensure`), points
 * `NODE_EXTRA_CA_CERTS` at it (the workers inherit the variable), and hands the CA's key to the test files
 * (`provide("testCa")`); a file then issues certificates for its servers (`issue`). Keys come from node:crypto
 * (native, fast); certificates are built and signed by node-forge.
 */
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import forge from "node-forge"

export interface Ca {
  /** PEM certificate of the CA. */
  readonly cert: string
  /** PEM private key of the CA. */
  readonly key: string
}

export interface Issued {
  readonly cert: string
  readonly key: string
}

const rsaKey = () =>
  Crypto.generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" }
  }).privateKey

const publicOf = (key: forge.pki.rsa.PrivateKey) => forge.pki.setRsaPublicKey(key.n, key.e)

const day = 24 * 60 * 60 * 1000

const certificate = (options: {
  readonly subject: string
  readonly issuer: string
  readonly publicKey: forge.pki.rsa.PublicKey
  readonly signer: forge.pki.rsa.PrivateKey
  readonly extensions: ReadonlyArray<object>
}) => {
  const cert = forge.pki.createCertificate()
  cert.publicKey = options.publicKey
  cert.serialNumber = `0${Crypto.randomBytes(8).toString("hex")}`
  cert.validity.notBefore = new Date(Date.now() - day)
  cert.validity.notAfter = new Date(Date.now() + 30 * day)
  cert.setSubject([{ name: "commonName", value: options.subject }])
  cert.setIssuer([{ name: "commonName", value: options.issuer }])
  cert.setExtensions([...options.extensions])
  cert.sign(options.signer, forge.md.sha256.create())
  return forge.pki.certificateToPem(cert)
}

const CA_NAME = "Signalman Test OAuth CA"

const make = (): Ca => {
  const key = rsaKey()
  const parsed = forge.pki.privateKeyFromPem(key)
  const cert = certificate({
    subject: CA_NAME,
    issuer: CA_NAME,
    publicKey: publicOf(parsed),
    signer: parsed,
    extensions: [
      { name: "basicConstraints", cA: true, critical: true },
      { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true }
    ]
  })
  return { cert, key }
}

/**
 * The run's CA, made once per vitest process (both e2e projects' setups share it, since their workers share one
 * environment), with `NODE_EXTRA_CA_CERTS` naming a bundle of it and whatever the variable named before.
 */
export const ensure = (): Ca => {
  const dir = Path.join(Os.tmpdir(), `signalman-test-ca-${process.pid}`)
  const certPath = Path.join(dir, "ca.pem")
  const keyPath = Path.join(dir, "ca.key")
  if (!Fs.existsSync(keyPath)) {
    Fs.mkdirSync(dir, { recursive: true })
    const ca = make()
    const previous = process.env["NODE_EXTRA_CA_CERTS"]
    const bundle = previous !== undefined && Fs.existsSync(previous) ? `${Fs.readFileSync(previous, "utf8")}\n` : ""
    Fs.writeFileSync(certPath, `${bundle}${ca.cert}`)
    Fs.writeFileSync(keyPath, ca.key, { mode: 0o600 })
    Fs.writeFileSync(Path.join(dir, "ca-only.pem"), ca.cert)
    // The workers have read the bundle when they started; the files go with the run.
    process.once("exit", () => Fs.rmSync(dir, { recursive: true, force: true }))
  }
  process.env["NODE_EXTRA_CA_CERTS"] = certPath
  return { cert: Fs.readFileSync(Path.join(dir, "ca-only.pem"), "utf8"), key: Fs.readFileSync(keyPath, "utf8") }
}

/** A server certificate for 127.0.0.1 and localhost, issued by the CA. */
export const issue = (ca: Ca): Issued => {
  const key = rsaKey()
  const parsed = forge.pki.privateKeyFromPem(key)
  const cert = certificate({
    subject: "127.0.0.1",
    issuer: CA_NAME,
    publicKey: publicOf(parsed),
    signer: forge.pki.privateKeyFromPem(ca.key),
    extensions: [
      { name: "basicConstraints", cA: false },
      { name: "keyUsage", digitalSignature: true, keyEncipherment: true },
      { name: "extKeyUsage", serverAuth: true },
      {
        name: "subjectAltName",
        altNames: [
          { type: 7, ip: "127.0.0.1" },
          { type: 2, value: "localhost" }
        ]
      }
    ]
  })
  return { cert, key }
}
