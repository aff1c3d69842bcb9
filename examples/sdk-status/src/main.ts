import { status } from "./status.js"

const baseUrl = process.env["SIGNALMAN_URL"] ?? "http://localhost:8080"
console.log(await status(baseUrl))
