/**
 * Post-processing of the generated OpenAPI document. `HttpApi` declares Effect's own decode error on every
 * route; Signalman never answers with it (decode failures become the error envelope), so the document must not
 * promise it either. It also declares the two ways in that each operation's security names (see RequiredScope).
 *
 * @since 0.1.0
 */
import { schemes } from "./RequiredScope.js"

/**
 * The session cookie's name: part of the wire contract, so it is declared here and the server sets it by this name.
 *
 * @since 0.1.0
 * @category constants
 */
export const SESSION_COOKIE = "_sm_session"

/**
 * The security schemes operations refer to: a bearer API token, whose scopes an operation lists, and the session
 * cookie (state-changing cookie requests also need `X-Requested-With: signalman`).
 *
 * @since 0.1.0
 * @category constants
 */
export const securitySchemes = {
  [schemes.bearer]: { type: "http", scheme: "bearer", description: "An API token, sm_live_..." },
  [schemes.session]: { type: "apiKey", in: "cookie", name: SESSION_COOKIE, description: "A signed-in session" }
}
const DECODE_ERROR_REF = "#/components/schemas/HttpApiDecodeError"

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

const isDecodeErrorRef = (u: unknown): boolean => isRecord(u) && u["$ref"] === DECODE_ERROR_REF

const scrub = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(scrub)
  if (!isRecord(node)) return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "anyOf" && Array.isArray(value)) {
      const kept = value.filter((member) => !isDecodeErrorRef(member)).map(scrub)
      if (kept.length === 1 && isRecord(kept[0])) Object.assign(out, kept[0])
      else out[key] = kept
      continue
    }
    out[key] = scrub(value)
  }
  // Effect writes `{ "$id": "/schemas/unknown" }` for every unknown value; a second one makes the document
  // invalid (an $id must be unique), and "any value" needs no id.
  if (out["$id"] === "/schemas/unknown") {
    delete out["$id"]
    delete out["title"]
  }
  if (out["description"] === "The request did not match the expected schema") {
    out["description"] = "Error envelope with status 400"
  }
  return out
}

const references = (node: unknown, name: string): boolean =>
  JSON.stringify(node).includes(`"#/components/schemas/${name}"`)

/**
 * The document without Effect's decode error and the schemas only it used, with the security schemes.
 *
 * @since 0.1.0
 * @category transformations
 */
export const finalize = (spec: Record<string, unknown>): Record<string, unknown> => {
  const scrubbed = scrub(spec)
  if (!isRecord(scrubbed) || !isRecord(scrubbed["components"]) || !isRecord(scrubbed["components"]["schemas"])) {
    return spec
  }
  const components: Record<string, unknown> = scrubbed["components"]
  const schemas: Record<string, unknown> = { ...scrubbed["components"]["schemas"] }
  delete schemas["HttpApiDecodeError"]
  // Drop what only the decode error referenced, leaving the rest of the document intact.
  for (const name of ["Issue", "PropertyKey"]) {
    const rest = { ...scrubbed, components: { ...components, schemas: { ...schemas, [name]: null } } }
    if (!references(rest, name)) delete schemas[name]
  }
  return { ...scrubbed, components: { ...components, schemas, securitySchemes } }
}
