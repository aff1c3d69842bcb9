/**
 * The SDK as a browser app's bundler would ship it: one ES module with every dependency in, tree-shaken, for the
 * browser platform (so a Node built-in fails the build). Shared by the size benchmark and the bundle test.
 */
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

/** The SDK package's folder. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")

/** The SDK's main entry. */
export const index = path.join(root, "src/index.ts")

/** Bundles `contents` (an entry module's source, resolved from the SDK's folder). */
export const bundle = (contents: string, options: { readonly minify: boolean }) =>
  esbuild.build({
    stdin: { contents, resolveDir: root, loader: "ts", sourcefile: "entry.ts" },
    bundle: true,
    minify: options.minify,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent"
  })
