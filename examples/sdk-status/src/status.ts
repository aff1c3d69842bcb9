/**
 * Asks a Signalman service whether it is up and ready, with the Promise client: no Effect needed.
 */
import { createClient } from "@signalman/sdk/Promise"

export const status = async (baseUrl: string): Promise<string> => {
  const signalman = createClient({ baseUrl })
  const health = await signalman.healthz()
  try {
    const ready = await signalman.readyz()
    return `${baseUrl}: ${health.status}, ${ready.status} (database ${ready.checks.database})`
  } catch (error) {
    // Errors carry the service's code: NOT_READY while the database is unreachable or the process drains.
    const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : "unknown"
    return `${baseUrl}: ${health.status}, not ready (${code})`
  }
}
