/**
 * The HTML of `GET /docs`: the interactive API reference (Scalar) over the contract's OpenAPI document, with the UI
 * bundle inline so the page needs no CDN. The route is the documentation's (`discovery/Discovery.ts`), which negotiates
 * it against the Markdown index of the same URL.
 *
 * The bundle is about 6 MB of JavaScript that `@effect/platform`'s own Scalar layer imports at module load and keeps
 * in a prebuilt page: some 13 MB of heap held by every process from boot, though workers never serve it and an API
 * replica rarely does. Here the bundle module is imported on the first visit and the page built then, once.
 */
import { createRequire } from "node:module"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import type * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** Scalar's settings: Signalman's page uses the system fonts (the default web fonts would come from a CDN). */
const scalarConfig = { _integration: "html", withDefaultFonts: false }

/** JSON inside a <script> element: `<` and the two line terminators JavaScript refuses in strings escaped. */
const scriptJson = (value: unknown): string =>
  JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/[\u2028\u2029]/g, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029"))

const escapeText = (value: string): string => value.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const escapeAttribute = (value: string): string => escapeText(value).replace(/"/g, "&quot;").replace(/'/g, "&#39;")

const BundleModule = Schema.Struct({ javascript: Schema.String })

/**
 * The Scalar bundle that ships inside `@effect/platform` (its `internal/httpApiScalar` module, which the package's
 * exports do not name, so it is found beside the public `HttpApiScalar` entry and imported by file URL).
 */
const loadBundle = Effect.tryPromise(async () => {
  const require = createRequire(import.meta.url)
  const entry = require.resolve("@effect/platform/HttpApiScalar")
  const file = path.join(path.dirname(entry), "internal", "httpApiScalar.js")
  return (await import(pathToFileURL(file).href)) as unknown
}).pipe(
  Effect.flatMap(Schema.decodeUnknown(BundleModule)),
  Effect.map((module) => module.javascript),
  Effect.orDie
)

const render = (spec: OpenApi.OpenAPISpec, javascript: string): string => {
  const description = spec.info.description
  const meta =
    description === undefined || description === ""
      ? ""
      : `<meta name="description" content="${escapeAttribute(description)}"/>`
  return `<!doctype html>
<html>
  <head>
    <meta charset="utf-8" />
    <title>${escapeText(spec.info.title)}</title>
    ${meta}
    <meta name="viewport" content="width=device-width, initial-scale=1" />
  </head>
  <body>
    <script id="api-reference" type="application/json">
      ${scriptJson(spec)}
    </script>
    <script>
      document.getElementById('api-reference').dataset.configuration = JSON.stringify(${scriptJson(scalarConfig)})
    </script>
    <script>${javascript}</script>
  </body>
</html>`
}

/** Builds the page, importing the bundle: the caller runs it once, on first use, and keeps what it answers. */
export const scalarHtml = (api: HttpApi.HttpApi.Any): Effect.Effect<string> =>
  Effect.suspend(() => {
    const spec = OpenApi.fromApi(api as HttpApi.HttpApi.AnyWithProps)
    return Effect.map(loadBundle, (javascript) => render(spec, javascript))
  })
