import { createClient, SignalmanError } from "@signalman/sdk"
import { run } from "./monitors.js"

const baseUrl = process.env["SIGNALMAN_URL"] ?? "http://localhost:8080"
const token = process.env["SIGNALMAN_TOKEN"]
// Needed only for a token not bound to one org.
const org = process.env["SIGNALMAN_ORG"] || undefined
const site = process.env["SITE_URL"] ?? "https://example.com"

if (token === undefined || token === "") {
  console.error("SIGNALMAN_TOKEN is not set: mint a token (README.md) and export it")
  process.exit(1)
}

try {
  await run(createClient({ baseUrl, token, org }), site, (line) => console.log(line))
} catch (error) {
  if (!(error instanceof SignalmanError)) throw error
  // The service's code and the field at fault, and the request id its log has the details under.
  console.error(`${error.code} (${error.status}): ${error.message}${error.field === null ? "" : ` [${error.field}]`}`)
  console.error(`trace id: ${error.traceId}`)
  process.exit(1)
}
