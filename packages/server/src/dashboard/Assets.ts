/**
 * The dashboard's script and stylesheet, served by Signalman itself (no CDN). The script is TypeScript under
 * `client/` (its own tsconfig, with the DOM's types) and is bundled with esbuild when the process starts, so
 * `pnpm start` needs no build step and the built server serves the same thing. Each asset's URL carries a hash of its
 * bytes (`/assets/dashboard.<hash>.js`) and is cached for a year: a new release is a new URL.
 */
import { createHash } from "node:crypto"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as esbuild from "esbuild"

export interface Asset {
  readonly path: string
  readonly body: string
  readonly contentType: string
}

/** Where the client sources are: found from the package itself, so it works from `src/` (tsx) and from `dist/`. */
const clientDir = () => {
  const manifest = createRequire(import.meta.url).resolve("@signalman/server/package.json")
  return path.join(path.dirname(manifest), "src", "dashboard", "client")
}

const hashOf = (body: string) => createHash("sha256").update(body).digest("hex").slice(0, 16)

const bundle = (entry: string) =>
  Effect.promise(() =>
    esbuild.build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      write: false,
      format: "iife",
      target: ["es2020"],
      charset: "utf8",
      legalComments: "none",
      logLevel: "silent"
    })
  ).pipe(Effect.map((result) => result.outputFiles[0]?.text ?? ""))

export class Assets extends Effect.Service<Assets>()("Signalman/DashboardAssets", {
  effect: Effect.gen(function* () {
    const dir = clientDir()
    const [script, style, login] = yield* Effect.all(
      [bundle(path.join(dir, "main.ts")), bundle(path.join(dir, "dashboard.css")), bundle(path.join(dir, "login.ts"))],
      { concurrency: 3 }
    )
    const assets: ReadonlyArray<Asset> = [
      { path: `/assets/dashboard.${hashOf(script)}.js`, body: script, contentType: "text/javascript; charset=utf-8" },
      { path: `/assets/dashboard.${hashOf(style)}.css`, body: style, contentType: "text/css; charset=utf-8" },
      // The login page's passkey ceremony: its only script, kept apart from the dashboard's.
      { path: `/assets/login.${hashOf(login)}.js`, body: login, contentType: "text/javascript; charset=utf-8" }
    ]
    const byPath = new Map(assets.map((a) => [a.path, a]))
    return {
      scriptPath: assets[0]?.path ?? "",
      stylePath: assets[1]?.path ?? "",
      loginScriptPath: assets[2]?.path ?? "",
      /** The response for an asset URL, or undefined when it names none (an old release's hash, say). */
      serve: (pathname: string) => {
        const asset = byPath.get(pathname)
        return asset === undefined
          ? undefined
          : HttpServerResponse.text(asset.body, {
              contentType: asset.contentType,
              headers: {
                "cache-control": "public, max-age=31536000, immutable",
                "x-content-type-options": "nosniff"
              }
            })
      }
    }
  })
}) {}
