import { defineConfig } from "tsup"

export default defineConfig({
  entry: ["src/**/*.ts"],
  format: ["esm"],
  target: "node20",
  // The workspace packages export their TypeScript sources, which plain node cannot load: they are bundled into
  // the agent, so `node dist/bin.js` needs only the npm packages listed in the agent's dependencies.
  noExternal: [/^@signalman\//],
  // The workspace tsconfig is a composite project for `tsc -b`; declaration bundling wants a plain one.
  dts: { compilerOptions: { composite: false, incremental: false } },
  clean: true,
  sourcemap: true,
  splitting: true
})
