/**
 * Which providers this deployment offers (decisions.md, "Sign-in with OAuth providers and passkeys"): a provider is
 * offered when `auth.enabled_methods` lists it and both its client id and secret are set (and, for GitLab, its
 * base URL). Listed but missing one is "incompletely configured": its routes answer 404 AUTH_METHOD_UNAVAILABLE
 * like a disabled one, and the boot log says so once.
 */
import * as ApiError from "@signalman/core/ApiError"
import { type Provider, providerNames, providers } from "@signalman/core/OAuth"
import * as Effect from "effect/Effect"
import type { Values } from "../config/Config.js"

/** What the protocol needs of a provider, from the settings. */
export type Setup =
  | {
      readonly provider: "github"
      readonly clientId: string
      readonly clientSecret: string
      readonly baseUrl: string
      readonly apiUrl: string
    }
  | { readonly provider: "google"; readonly clientId: string; readonly clientSecret: string; readonly issuer: string }
  | {
      readonly provider: "microsoft"
      readonly clientId: string
      readonly clientSecret: string
      readonly authority: string
      readonly tenant: string
    }
  | { readonly provider: "gitlab"; readonly clientId: string; readonly clientSecret: string; readonly baseUrl: string }

export type Availability =
  | { readonly _tag: "Ready"; readonly setup: Setup }
  | { readonly _tag: "Disabled" }
  | { readonly _tag: "Incomplete"; readonly missing: ReadonlyArray<string> }

const bare = (url: string) => url.replace(/\/+$/, "")

/** A provider's availability under the loaded settings. */
export const availability = (config: Values, provider: Provider): Availability => {
  if (!config["auth.enabled_methods"].includes(provider)) return { _tag: "Disabled" }
  const clientId = config[`auth.${provider}.client_id`]
  const clientSecret = config[`auth.${provider}.client_secret`]
  const gitlabBase = config["auth.gitlab.base_url"]
  const missing = [
    ...(clientId === undefined ? [`auth.${provider}.client_id`] : []),
    ...(clientSecret === undefined ? [`auth.${provider}.client_secret`] : []),
    ...(provider === "gitlab" && gitlabBase === undefined ? ["auth.gitlab.base_url"] : [])
  ]
  if (clientId === undefined || clientSecret === undefined || missing.length > 0) return { _tag: "Incomplete", missing }
  switch (provider) {
    case "github":
      return {
        _tag: "Ready",
        setup: {
          provider,
          clientId,
          clientSecret,
          baseUrl: bare(config["auth.github.base_url"] ?? "https://github.com"),
          apiUrl: bare(config["auth.github.api_url"] ?? "https://api.github.com")
        }
      }
    case "google":
      return {
        _tag: "Ready",
        setup: {
          provider,
          clientId,
          clientSecret,
          issuer: bare(config["auth.google.issuer"] ?? "https://accounts.google.com")
        }
      }
    case "microsoft":
      return {
        _tag: "Ready",
        setup: {
          provider,
          clientId,
          clientSecret,
          authority: bare(config["auth.microsoft.authority"] ?? "https://login.microsoftonline.com"),
          tenant: config["auth.microsoft.tenant"]
        }
      }
    case "gitlab":
      return { _tag: "Ready", setup: { provider, clientId, clientSecret, baseUrl: bare(gitlabBase ?? "") } }
  }
}

/** The providers offered, in the order the login page lists them. */
export const ready = (config: Values): ReadonlyArray<Setup> =>
  providers.flatMap((p) => {
    const a = availability(config, p)
    return a._tag === "Ready" ? [a.setup] : []
  })

/** The setup of an offered provider, or 404 AUTH_METHOD_UNAVAILABLE (unknown, disabled, incompletely configured). */
export const require = (config: Values, provider: string): Effect.Effect<Setup, ApiError.ApiError> => {
  const known = providers.find((p) => p === provider)
  const a = known === undefined ? undefined : availability(config, known)
  return a?._tag === "Ready"
    ? Effect.succeed(a.setup)
    : Effect.fail(
        ApiError.make(
          "AUTH_METHOD_UNAVAILABLE",
          known === undefined
            ? "There is no such sign-in method"
            : `Sign-in with ${providerNames[known]} is not offered here`,
          { field: "provider" }
        )
      )
}

/** Says once, at boot, which listed providers cannot be used and what they lack. */
export const reportIncomplete = (config: Values): Effect.Effect<void> =>
  Effect.forEach(
    providers,
    (p) => {
      const a = availability(config, p)
      return a._tag === "Incomplete"
        ? Effect.logWarning(
            `Sign-in with ${providerNames[p]} is enabled but incompletely configured; it answers 404 until set`
          ).pipe(Effect.annotateLogs({ provider: p, missing: a.missing }))
        : Effect.void
    },
    { discard: true }
  )
