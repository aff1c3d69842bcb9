/**
 * Writes the SDK's reference page to `docs/sdk.md` at the repository root (`pnpm --filter @signalman/sdk docs`),
 * and fails when an export has no TSDoc.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { render } from "./Reference.js"

const out = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../docs/sdk.md")
const { markdown, undocumented } = render()
fs.writeFileSync(out, markdown.endsWith("\n") ? markdown : `${markdown}\n`)
console.log(`wrote ${out}`)
if (undocumented.length > 0) {
  console.error(`exports without TSDoc: ${undocumented.join(", ")}`)
  process.exit(1)
}
