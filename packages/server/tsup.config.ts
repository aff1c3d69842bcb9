import { defineConfig } from "tsup"

export default defineConfig({
  // One runnable entry; the workspace packages are bundled in, since their package exports point at sources.
  entry: ["src/main.ts"],
  noExternal: [/^@signalman\//],
  format: ["esm"],
  target: "node20",
  // The server is an application, not a library: no declarations to publish.
  dts: false,
  clean: true,
  sourcemap: true,
  splitting: false,
  // The workspace packages' own dependencies (undici, for one) are bundled with them, and some are CommonJS that
  // calls require() for node builtins: an ES module has no require unless it is made here.
  banner: {
    js: 'import { createRequire as __signalmanCreateRequire } from "node:module"; const require = __signalmanCreateRequire(import.meta.url);'
  }
})
