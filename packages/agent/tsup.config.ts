import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/**/*.ts"],
  format: ["esm"],
  target: "node20",
  // The workspace tsconfig is a composite project for `tsc -b`; declaration bundling wants a plain one.
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: true,
  splitting: true
})
