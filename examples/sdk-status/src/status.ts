/**
 * Asks a Signalman service whether it is up and ready, with the Promise client: no Effect needed.
 */
import { createClient, SignalmanError } from "@signalman/sdk"

export const status = async (baseUrl: string): Promise<string> => {
  // A probe wants the answer of now: no retries of a 503 while the service is not ready.
  const signalman = createClient({ baseUrl, retries: 0 })
  const health = await signalman.healthz()
  try {
    const ready = await signalman.readyz()
    return `${baseUrl}: ${health.status}, ${ready.status} (database ${ready.checks.database})`
  } catch (error) {
    // Errors carry the service's code: NOT_READY while the database is unreachable or the process drains.
    const code = error instanceof SignalmanError ? error.code : "unknown"
    return `${baseUrl}: ${health.status}, not ready (${code})`
  }
}
