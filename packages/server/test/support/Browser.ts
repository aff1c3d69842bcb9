/**
 * A browser as far as the server can tell: a cookie jar (honouring Max-Age=0 deletions) and the CSRF header on
 * state-changing requests unless told otherwise.
 */
import * as Effect from "effect/Effect"
import type { Reply } from "./Http.js"

export interface Browser {
  readonly cookies: Map<string, string>
  readonly request: (
    path: string,
    init?: RequestInit & { readonly csrf?: boolean; readonly json?: unknown }
  ) => Effect.Effect<Reply>
}

export const make = (baseUrl: string): Browser => {
  const cookies = new Map<string, string>()
  const request: Browser["request"] = (path, init = {}) =>
    Effect.promise(async () => {
      const { csrf = true, json, ...rest } = init
      const headers = new Headers(rest.headers)
      if (cookies.size > 0) headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "))
      const method = (rest.method ?? (json === undefined ? "GET" : "POST")).toUpperCase()
      if (csrf && method !== "GET") headers.set("x-requested-with", "signalman")
      if (json !== undefined) headers.set("content-type", "application/json")
      const response = await fetch(`${baseUrl}${path}`, {
        ...rest,
        method,
        headers,
        redirect: "manual",
        ...(json === undefined ? {} : { body: JSON.stringify(json) })
      })
      for (const line of response.headers.getSetCookie()) {
        const [pair, ...attributes] = line.split(";")
        const eq = pair?.indexOf("=") ?? -1
        if (pair === undefined || eq === -1) continue
        const name = pair.slice(0, eq).trim()
        const value = pair.slice(eq + 1).trim()
        if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "") cookies.delete(name)
        else cookies.set(name, value)
      }
      const text = await response.text()
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = undefined
      }
      return { status: response.status, headers: response.headers, text, json: parsed }
    })
  return { cookies, request }
}
