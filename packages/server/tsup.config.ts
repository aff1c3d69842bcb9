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
  splitting: false
})
