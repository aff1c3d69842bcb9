/**
 * The version of this build of the service, as `package.json` says (a test holds the two together). Probes send it
 * in their User-Agent (`Signalman/<version> (+<public base URL>)`).
 */
export const version = "0.1.0"
