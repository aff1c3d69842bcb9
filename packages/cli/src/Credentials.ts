/**
 * Which service, token and org a command uses, each on its own: `--url`/`--token`/`--org`, else `SIGNALMAN_URL`,
 * `SIGNALMAN_TOKEN`, `SIGNALMAN_ORG`, else what `signalman login` stored. The stored token and org belong to the
 * stored service: they are used only when the command talks to that service, so pointing a command at another URL
 * never sends the stored token there.
 *
 * @since 0.1.0
 */
import * as Redacted from "effect/Redacted"
import type { Stored } from "./CredentialsFile.js"

/**
 * The service when nothing names one: a local server.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_URL = "http://localhost:8080"

/**
 * What the command line gave.
 *
 * @since 0.1.0
 * @category models
 */
export interface Flags {
  readonly url?: string | undefined
  readonly token?: Redacted.Redacted<string> | undefined
  readonly org?: string | undefined
}

/**
 * What a command uses, and where each came from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Credentials {
  readonly url: string
  readonly token: Redacted.Redacted<string> | undefined
  readonly org: string | undefined
  readonly source: { readonly url: Source; readonly token: Source | undefined; readonly org: Source | undefined }
}

/**
 * @since 0.1.0
 * @category models
 */
export type Source = "flag" | "environment" | "login" | "default"

// The same service: scheme, host, port and path, whatever the trailing slashes.
const sameService = (a: string, b: string): boolean => {
  const normalise = (url: string) => {
    if (!URL.canParse(url)) return url
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`
  }
  return normalise(a) === normalise(b)
}

// An empty variable is unset: a CI secret that is missing often arrives as "".
const fromEnv = (env: Readonly<Record<string, string | undefined>>, name: string) => {
  const value = env[name]
  return value === undefined || value === "" ? undefined : value
}

const first = <A>(...candidates: ReadonlyArray<readonly [A | undefined, Source]>) => {
  for (const [value, source] of candidates) if (value !== undefined) return { value, source }
  return undefined
}

/**
 * The credentials a command uses.
 *
 * @since 0.1.0
 * @category resolution
 */
export const resolve = (
  flags: Flags,
  env: Readonly<Record<string, string | undefined>>,
  stored: Stored | undefined
): Credentials => {
  const url = first<string>(
    [flags.url, "flag"],
    [fromEnv(env, "SIGNALMAN_URL"), "environment"],
    [stored?.url, "login"],
    [DEFAULT_URL, "default"]
  ) ?? { value: DEFAULT_URL, source: "default" as const }
  const login = stored !== undefined && sameService(stored.url, url.value) ? stored : undefined
  const envToken = fromEnv(env, "SIGNALMAN_TOKEN")
  const token = first<Redacted.Redacted<string>>(
    [flags.token, "flag"],
    [envToken === undefined ? undefined : Redacted.make(envToken), "environment"],
    [login === undefined ? undefined : Redacted.make(login.token), "login"]
  )
  const org = first<string>([flags.org, "flag"], [fromEnv(env, "SIGNALMAN_ORG"), "environment"], [login?.org, "login"])
  return {
    url: url.value,
    token: token?.value,
    org: org?.value,
    source: { url: url.source, token: token?.source, org: org?.source }
  }
}
