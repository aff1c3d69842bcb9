/**
 * A public answer encoded once per snapshot: its bytes, a strong ETag made from them, and its gzip and brotli
 * variants, each compressed the first time a client that accepts it asks, then kept with the snapshot. A request
 * then costs a lookup and a write: `answer` picks the variant the client accepts (`Vary: Accept-Encoding`) and
 * answers 304 when `If-None-Match` names the answer's current ETag.
 *
 * Both ways a public answer leaves the process (the Effect routes, and the listener's fast path for cache hits)
 * build their headers here, so the two cannot drift apart.
 */
import { createHash } from "node:crypto"
import * as zlib from "node:zlib"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

export type Coding = "identity" | "gzip" | "br"

/** Bodies smaller than this are sent as they are: compressing them saves less than it costs. */
export const MIN_COMPRESS_BYTES = 1024

export class Encoded {
  /** The strong validator of the identity bytes; each coding gets its own ETag (`"<tag>"`, `"<tag>-gzip"`, ...). */
  readonly tag: string
  private gzipped: Uint8Array | undefined
  private brotli: Uint8Array | undefined

  constructor(
    readonly contentType: string,
    readonly identity: Uint8Array,
    /** Headers of this kind of answer (Content-Security-Policy, Content-Language), beside the common ones. */
    readonly headers: Readonly<Record<string, string>> = {}
  ) {
    this.tag = createHash("sha256").update(identity).digest("base64url").slice(0, 27)
  }

  static text(contentType: string, body: string, headers: Readonly<Record<string, string>> = {}): Encoded {
    return new Encoded(contentType, Buffer.from(body, "utf8"), headers)
  }

  /** The body in `coding`, compressed on first use. */
  bytes(coding: Coding): Uint8Array {
    switch (coding) {
      case "identity":
        return this.identity
      case "gzip":
        this.gzipped ??= zlib.gzipSync(this.identity, { level: 6 })
        return this.gzipped
      case "br":
        // Quality 5: most of brotli's gain over gzip for a fraction of the default quality's (11) time.
        this.brotli ??= zlib.brotliCompressSync(this.identity, {
          params: {
            [zlib.constants.BROTLI_PARAM_QUALITY]: 5,
            [zlib.constants.BROTLI_PARAM_SIZE_HINT]: this.identity.length
          }
        })
        return this.brotli
    }
  }

  etag(coding: Coding): string {
    return coding === "identity" ? `"${this.tag}"` : `"${this.tag}-${coding}"`
  }

  private readonly answers = new Map<string, Answer>()

  /** The answer of `key` (its coding, cache header and status), built on first use and kept with these bytes. */
  answerFor(key: string, make: () => Answer): Answer {
    const known = this.answers.get(key)
    if (known !== undefined) return known
    const made = make()
    this.answers.set(key, made)
    return made
  }
}

/**
 * The coding to send for an `Accept-Encoding` header: the accepted one with the highest q (brotli before gzip on a
 * tie), else identity. `*` stands for any coding not named.
 */
export const chooseCoding = (acceptEncoding: string | undefined): Coding => {
  if (acceptEncoding === undefined || acceptEncoding === "") return "identity"
  let star: number | undefined
  const q = new Map<string, number>()
  for (const part of acceptEncoding.split(",")) {
    const [name = "", ...params] = part.split(";")
    const coding = name.trim().toLowerCase()
    if (coding === "") continue
    let weight = 1
    for (const param of params) {
      const [key = "", value = ""] = param.split("=")
      if (key.trim().toLowerCase() === "q") {
        const n = Number(value.trim())
        weight = Number.isFinite(n) && value.trim() !== "" ? Math.min(Math.max(n, 0), 1) : 0
      }
    }
    if (coding === "*") star = weight
    else q.set(coding === "x-gzip" ? "gzip" : coding, weight)
  }
  const br = q.get("br") ?? star ?? 0
  const gzip = q.get("gzip") ?? star ?? 0
  if (br <= 0 && gzip <= 0) return "identity"
  return br >= gzip ? "br" : "gzip"
}

/** Whether `If-None-Match` names one of the answer's current ETags (weak comparison, as RFC 9110 asks). */
export const matches = (ifNoneMatch: string | undefined, encoded: Encoded): boolean => {
  if (ifNoneMatch === undefined) return false
  for (const raw of ifNoneMatch.split(",")) {
    const tag = raw.trim()
    if (tag === "*") return true
    const opaque = tag.startsWith("W/") ? tag.slice(2) : tag
    if (opaque === encoded.etag("identity") || opaque === encoded.etag("gzip") || opaque === encoded.etag("br")) {
      return true
    }
  }
  return false
}

/** What the request says that the answer depends on. */
export interface Conditions {
  readonly acceptEncoding: string | undefined
  readonly ifNoneMatch: string | undefined
}

export interface Answer {
  readonly status: 200 | 304
  /** Every header of the answer but the request id (content-type and content-length included for a 200). */
  readonly headers: Readonly<Record<string, string>>
  /** The same headers as a flat `[name, value, ...]` list, the form `writeHead` takes without copying. */
  readonly raw: ReadonlyArray<string>
  /** None for a 304. */
  readonly body: Uint8Array | undefined
}

// Clients send a handful of distinct Accept-Encoding values; the choice for each is remembered (bounded).
const codings = new Map<string, Coding>()
const codingFor = (acceptEncoding: string | undefined): Coding => {
  if (acceptEncoding === undefined) return "identity"
  const known = codings.get(acceptEncoding)
  if (known !== undefined) return known
  const chosen = chooseCoding(acceptEncoding)
  if (codings.size >= 256) codings.clear()
  codings.set(acceptEncoding, chosen)
  return chosen
}

const build = (encoded: Encoded, coding: Coding, cacheControl: string, notModified: boolean): Answer => {
  const headers: Record<string, string> = {
    ...encoded.headers,
    "cache-control": cacheControl,
    etag: encoded.etag(coding),
    // An answer that also depends on other request headers (a negotiated page: `Accept`) names them in its own.
    vary: encoded.headers["vary"] === undefined ? "Accept-Encoding" : `${encoded.headers["vary"]}, Accept-Encoding`
  }
  const body = notModified ? undefined : encoded.bytes(coding)
  if (body !== undefined) {
    if (coding !== "identity") headers["content-encoding"] = coding
    headers["content-type"] = encoded.contentType
    headers["content-length"] = String(body.length)
  }
  return { status: notModified ? 304 : 200, headers, raw: Object.entries(headers).flat(), body }
}

/**
 * The answer to a request for `encoded` with Cache-Control `cacheControl`. Each distinct answer (coding, cache
 * header, 200 or 304) is built once and kept with the encoded bytes: a request then costs two lookups.
 */
export const answer = (encoded: Encoded, conditions: Conditions, cacheControl: string): Answer => {
  const coding = encoded.identity.length < MIN_COMPRESS_BYTES ? "identity" : codingFor(conditions.acceptEncoding)
  const notModified = matches(conditions.ifNoneMatch, encoded)
  return encoded.answerFor(`${notModified ? 304 : 200} ${coding} ${cacheControl}`, () =>
    build(encoded, coding, cacheControl, notModified)
  )
}

/** The request's conditions from its headers. */
export const conditionsOf = (headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>) => {
  const one = (name: string) => {
    const value = headers[name]
    return typeof value === "string" ? value : undefined
  }
  return { acceptEncoding: one("accept-encoding"), ifNoneMatch: one("if-none-match") }
}

/** `answer` as the Effect routes send it (the same status, headers and bytes as the listener's fast path). */
export const toResponse = (result: Answer): HttpServerResponse.HttpServerResponse => {
  if (result.body === undefined) return HttpServerResponse.empty({ status: 304, headers: result.headers })
  const { "content-type": contentType, "content-length": _, ...headers } = result.headers
  return HttpServerResponse.uint8Array(result.body, { status: result.status, contentType, headers })
}

/** A rendering of the snapshot, encoded once per snapshot under `key`. */
export const rendered = (renders: Map<string, Encoded>, key: string, render: () => Encoded): Encoded => {
  const hit = renders.get(key)
  if (hit !== undefined) return hit
  const encoded = render()
  renders.set(key, encoded)
  return encoded
}
