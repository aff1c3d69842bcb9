/**
 * Status page logos: the type read from the bytes (never the declared one), SVG sanitised, and the public route
 * that serves a logo by page and version.
 *
 * - PNG, JPEG and WebP are stored as sent.
 * - SVG is rebuilt from an allow-list: known drawing elements and presentation attributes only. Scripts, styles,
 *   `foreignObject`, event handlers, every `href` that is not a same-document `#fragment` and every `url(...)` that
 *   is not `url(#...)` are dropped, so the image can neither run code nor fetch anything.
 * - Anything else is 415 `LOGO_TYPE_UNSUPPORTED`.
 *
 * `GET /api/public/v1/logos/<page id>/<sha256>` answers with a year's `immutable` cache (the URL changes with the
 * content), `X-Content-Type-Options: nosniff`, and for SVG a CSP that forbids scripts and every fetch.
 */
import { createHash } from "node:crypto"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { Parser } from "htmlparser2"
import * as ErrorResponse from "../http/ErrorResponse.js"
import type { Route } from "../http/RouteTable.js"
import { StatusPages } from "./StatusPages.js"

export const PUBLIC_PATH = "/api/public/v1/logos/:page_id/:sha256"

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: PUBLIC_PATH, body: "none" }]

export interface Logo {
  readonly contentType: "image/png" | "image/jpeg" | "image/webp" | "image/svg+xml"
  readonly bytes: Uint8Array
  readonly sha256: string
}

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b)

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0))

const ELEMENTS = new Set(
  [
    "svg",
    "g",
    "path",
    "rect",
    "circle",
    "ellipse",
    "line",
    "polyline",
    "polygon",
    "text",
    "tspan",
    "textPath",
    "defs",
    "linearGradient",
    "radialGradient",
    "stop",
    "clipPath",
    "mask",
    "pattern",
    "symbol",
    "use",
    "title",
    "desc",
    "filter",
    "feGaussianBlur",
    "feOffset",
    "feBlend",
    "feColorMatrix",
    "feFlood",
    "feComposite",
    "feMerge",
    "feMergeNode"
  ].map((e) => e.toLowerCase())
)

const ATTRIBUTES = new Set(
  [
    "id",
    "class",
    "xmlns",
    "xmlns:xlink",
    "version",
    "viewBox",
    "preserveAspectRatio",
    "width",
    "height",
    "x",
    "y",
    "x1",
    "x2",
    "y1",
    "y2",
    "cx",
    "cy",
    "r",
    "rx",
    "ry",
    "fx",
    "fy",
    "d",
    "points",
    "transform",
    "fill",
    "fill-opacity",
    "fill-rule",
    "clip-rule",
    "clip-path",
    "mask",
    "filter",
    "stroke",
    "stroke-width",
    "stroke-linecap",
    "stroke-linejoin",
    "stroke-miterlimit",
    "stroke-dasharray",
    "stroke-dashoffset",
    "stroke-opacity",
    "opacity",
    "offset",
    "stop-color",
    "stop-opacity",
    "gradientUnits",
    "gradientTransform",
    "patternUnits",
    "patternTransform",
    "clipPathUnits",
    "maskUnits",
    "spreadMethod",
    "font-family",
    "font-size",
    "font-weight",
    "font-style",
    "text-anchor",
    "dominant-baseline",
    "letter-spacing",
    "dx",
    "dy",
    "stdDeviation",
    "in",
    "in2",
    "result",
    "mode",
    "values",
    "type",
    "operator",
    "flood-color",
    "flood-opacity",
    "href",
    "xlink:href",
    "display",
    "visibility"
  ].map((a) => a.toLowerCase())
)

const escapeXml = (s: string) =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")

/** An attribute value that can reach outside the document: a non-fragment link or a `url(...)` to elsewhere. */
const reachesOut = (name: string, value: string) => {
  // Entities are decoded by the parser already; browsers also ignore whitespace and control characters in schemes.
  const squeezed = [...value]
    .filter((c) => c.charCodeAt(0) > 0x20)
    .join("")
    .toLowerCase()
  if ((name === "href" || name === "xlink:href") && !squeezed.startsWith("#")) return true
  if (squeezed.includes("javascript:") || squeezed.includes("data:")) return true
  const urls = squeezed.match(/url\(([^)]*)\)/g) ?? []
  return urls.some((u) => !/^url\(['"]?#/.test(u))
}

/**
 * The SVG rebuilt from the allow-list, or undefined when the text has no `<svg>` root. Dropped elements go with
 * everything inside them.
 */
export const sanitizeSvg = (source: string): string | undefined => {
  const out: Array<string> = []
  // Per open element: whether it (or an ancestor) was dropped.
  const stack: Array<boolean> = []
  let root: string | undefined
  let depthOfRoot = 0
  const dropping = () => stack.some((dropped) => dropped)
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const lower = name.toLowerCase()
        if (root === undefined && stack.length === 0) root = lower
        const dropped = dropping() || !ELEMENTS.has(lower) || (stack.length === 0 && lower !== "svg")
        stack.push(dropped)
        if (dropped) return
        if (lower === "svg") depthOfRoot++
        const kept = Object.entries(attributes)
          .filter(([attr, value]) => {
            const a = attr.toLowerCase()
            return ATTRIBUTES.has(a) && !a.startsWith("on") && !reachesOut(a, value)
          })
          .map(([attr, value]) => ` ${attr}="${escapeXml(value)}"`)
        out.push(`<${name}${kept.join("")}>`)
      },
      ontext(text) {
        if (stack.length > 0 && !dropping()) out.push(escapeXml(text))
      },
      onclosetag(name) {
        const dropped = stack.pop()
        if (dropped === false) out.push(`</${name}>`)
      }
    },
    { xmlMode: true, decodeEntities: true, recognizeSelfClosing: true }
  )
  parser.write(source)
  parser.end()
  if (root !== "svg" || depthOfRoot === 0) return undefined
  return `<?xml version="1.0" encoding="UTF-8"?>\n${out.join("")}`
}

const unsupported = ApiError.make(
  "LOGO_TYPE_UNSUPPORTED",
  "The logo must be a PNG, JPEG, WebP or SVG image (the type is read from the file itself)",
  { field: "file" }
)

/** The stored form of an upload: its type read from the bytes, SVG sanitised; 415 for anything else. */
export const prepare = (bytes: Uint8Array): Either.Either<Logo, ApiError.ApiError> => {
  const done = (contentType: Logo["contentType"], stored: Uint8Array): Logo => ({
    contentType,
    bytes: stored,
    sha256: createHash("sha256").update(stored).digest("hex")
  })
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return Either.right(done("image/png", bytes))
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return Either.right(done("image/jpeg", bytes))
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) {
    return Either.right(done("image/webp", bytes))
  }
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    return Either.left(unsupported)
  }
  if (!/<svg[\s>/]/i.test(text)) return Either.left(unsupported)
  const clean = sanitizeSvg(text.replace(/^\uFEFF/, ""))
  return clean === undefined
    ? Either.left(unsupported)
    : Either.right(done("image/svg+xml", Buffer.from(clean, "utf8")))
}

const notFound = ApiError.make("NOT_FOUND", "No such logo")

/** The public logo route (any page, published or not: the sign-in page of a private page shows it too). */
export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const pages = yield* StatusPages
    yield* router.get(
      PUBLIC_PATH,
      Effect.gen(function* () {
        const params = yield* HttpRouter.params
        const pageId = params["page_id"] ?? ""
        const sha = params["sha256"] ?? ""
        if (!/^[0-9a-f-]{36}$/i.test(pageId) || !/^[0-9a-f]{64}$/.test(sha))
          return yield* ErrorResponse.render(notFound)
        const logo = yield* pages.logo(pageId, sha)
        if (logo === undefined) return yield* ErrorResponse.render(notFound)
        const headers: Record<string, string> = {
          "cache-control": "public, max-age=31536000, immutable",
          "x-content-type-options": "nosniff",
          "cross-origin-resource-policy": "cross-origin"
        }
        if (logo.content_type === "image/svg+xml") {
          headers["content-security-policy"] = "default-src 'none'; style-src 'unsafe-inline'; sandbox"
        }
        return HttpServerResponse.uint8Array(logo.bytes, { contentType: logo.content_type, headers })
      })
    )
  })
)
