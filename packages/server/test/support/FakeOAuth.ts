/**
 * Fake OAuth providers for the e2e tests, over HTTPS with a certificate of the run's test CA (TestCa.ts), speaking
 * the real protocols closely enough that a mistake in the server's side of them fails:
 *
 * - GitHub (`/github`): `/login/oauth/authorize`, `/login/oauth/access_token` (form in, JSON out when asked with
 *   Accept: application/json), and the REST API (`/github-api`): `GET /user`, `GET /user/emails` with the bearer.
 * - Google-style OpenID Connect (`/google`): a discovery document, `/authorize` and `/token`, PKCE S256 checked.
 * - Microsoft identity platform v2.0 (`/ms/<tenant>/oauth2/v2.0/authorize|token`), PKCE S256 checked, id_tokens with
 *   tid, oid and xms_edov.
 * - GitLab-style OpenID Connect (`/gitlab`): `/oauth/authorize`, `/oauth/token`, a confidential client without PKCE.
 *
 * Consent is automatic: the authorize endpoint redirects straight back to the redirect_uri with a code for the
 * provider's current persona (`as`), or with the error or missing code the persona asks for. Every token request
 * checks client id, secret, redirect_uri and the PKCE verifier; `tokenRequests` counts them.
 */
import { createHash, randomBytes } from "node:crypto"
import * as Https from "node:https"
import type { AddressInfo } from "node:net"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as TestCa from "./TestCa.js"

export type Provider = "github" | "google" | "microsoft" | "gitlab"

export interface GitHubPersona {
  readonly id: number
  readonly login: string
  readonly emails: ReadonlyArray<{ readonly email: string; readonly primary: boolean; readonly verified: boolean }>
}

/** The claims of an id_token (Google, Microsoft, GitLab); `iss` defaults to the fake's own issuer. */
export type Claims = Readonly<Record<string, unknown>>

export type Persona<P extends Provider> = (P extends "github" ? GitHubPersona : Claims) & {
  /** Consent refused: the redirect carries error=access_denied. */
  readonly deny?: boolean
  /** The redirect carries no code. */
  readonly noCode?: boolean
  /** The token endpoint answers 500. */
  readonly tokenFails?: boolean
}

export interface FakeOAuth {
  readonly origin: string
  /** The server's settings naming the fakes (client ids and secrets included) for `providers`. */
  readonly env: (providers: ReadonlyArray<Provider>) => Record<string, string>
  /** The person the provider's next consent is for. */
  readonly as: <P extends Provider>(provider: P, persona: Persona<P>) => void
  /** Token requests each provider answered (or refused). */
  readonly tokenRequests: Record<Provider, number>
  readonly gitlabIssuer: string
  readonly googleIssuer: string
}

interface Grant {
  readonly provider: Provider
  readonly persona: Persona<Provider>
  readonly clientId: string
  readonly redirectUri: string
  readonly challenge: string | null
}

const isGitHub = (persona: Persona<Provider>): persona is Persona<"github"> => "emails" in persona && "login" in persona

const client = (provider: Provider) => ({ id: `${provider}-client`, secret: `${provider}-secret-${provider.length}` })

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
/** An unsigned-looking JWT: the server does not check id_token signatures (they come from the token endpoint). */
const jwt = (claims: Claims) =>
  `${base64url({ alg: "RS256", typ: "JWT" })}.${base64url(claims)}.${randomBytes(16).toString("base64url")}`

const readBody = (request: import("node:http").IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

export const make = (ca: TestCa.Ca): Effect.Effect<FakeOAuth, never, Scope.Scope> =>
  Effect.gen(function* () {
    const personas = new Map<Provider, Persona<Provider>>()
    const grants = new Map<string, Grant>()
    const accessTokens = new Map<string, GitHubPersona>()
    const tokenRequests: Record<Provider, number> = { github: 0, google: 0, microsoft: 0, gitlab: 0 }
    let origin = ""

    const json = (response: import("node:http").ServerResponse, status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(JSON.stringify(body))
    }

    const authorize = (provider: Provider, url: URL, response: import("node:http").ServerResponse, pkce: boolean) => {
      const q = url.searchParams
      const redirectUri = q.get("redirect_uri") ?? ""
      const state = q.get("state") ?? ""
      const persona = personas.get(provider)
      if (q.get("client_id") !== client(provider).id || persona === undefined || redirectUri === "") {
        return json(response, 400, { error: "invalid_request" })
      }
      if (provider !== "github" && (q.get("response_type") !== "code" || !(q.get("scope") ?? "").includes("openid"))) {
        return json(response, 400, { error: "invalid_scope" })
      }
      const challenge = q.get("code_challenge")
      if (pkce !== (challenge !== null) || (pkce && q.get("code_challenge_method") !== "S256")) {
        return json(response, 400, { error: "invalid_request", error_description: "PKCE" })
      }
      const back = new URL(redirectUri)
      back.searchParams.set("state", state)
      if (persona.deny === true) back.searchParams.set("error", "access_denied")
      else if (persona.noCode !== true) {
        const code = randomBytes(12).toString("hex")
        grants.set(code, { provider, persona, clientId: client(provider).id, redirectUri, challenge })
        back.searchParams.set("code", code)
      }
      response.writeHead(302, { location: back.toString() })
      response.end()
    }

    const token = async (
      provider: Provider,
      request: import("node:http").IncomingMessage,
      response: import("node:http").ServerResponse
    ) => {
      tokenRequests[provider]++
      const form = new URLSearchParams(await readBody(request))
      const code = form.get("code") ?? ""
      const grant = grants.get(code)
      grants.delete(code)
      const verifier = form.get("code_verifier")
      const ok =
        grant !== undefined &&
        grant.provider === provider &&
        form.get("client_id") === client(provider).id &&
        form.get("client_secret") === client(provider).secret &&
        form.get("redirect_uri") === grant.redirectUri &&
        (provider === "github" || form.get("grant_type") === "authorization_code") &&
        (grant.challenge === null
          ? verifier === null
          : verifier !== null && createHash("sha256").update(verifier).digest("base64url") === grant.challenge)
      if (grant?.persona.tokenFails === true) return json(response, 500, { error: "server_error" })
      if (!ok || grant === undefined) return json(response, 400, { error: "invalid_grant" })
      if (provider === "github") {
        if (!(request.headers["accept"] ?? "").includes("application/json")) {
          // GitHub answers form-encoded unless asked for JSON.
          response.writeHead(200, { "content-type": "application/x-www-form-urlencoded" })
          return response.end("access_token=nope&token_type=bearer")
        }
        const access = randomBytes(12).toString("hex")
        if (!isGitHub(grant.persona)) return json(response, 500, { error: "not a GitHub persona" })
        accessTokens.set(access, grant.persona)
        return json(response, 200, { access_token: access, token_type: "bearer", scope: "read:user,user:email" })
      }
      const flags = new Set(["deny", "noCode", "tokenFails"])
      const claims: Claims = Object.fromEntries(Object.entries(grant.persona).filter(([key]) => !flags.has(key)))
      const iss =
        provider === "google"
          ? `${origin}/google`
          : provider === "gitlab"
            ? `${origin}/gitlab`
            : `https://login.microsoftonline.com/${String(claims["tid"] ?? "common")}/v2.0`
      return json(response, 200, {
        access_token: randomBytes(12).toString("hex"),
        token_type: "Bearer",
        expires_in: 3600,
        id_token: jwt({ iss, aud: client(provider).id, iat: Math.floor(Date.now() / 1000), ...claims })
      })
    }

    const github = (
      path: string,
      request: import("node:http").IncomingMessage,
      response: import("node:http").ServerResponse
    ) => {
      const auth = /^Bearer (\w+)$/.exec(request.headers["authorization"] ?? "")
      const persona = auth?.[1] === undefined ? undefined : accessTokens.get(auth[1])
      if (persona === undefined) return json(response, 401, { message: "Bad credentials" })
      if (request.headers["user-agent"] === undefined) return json(response, 403, { message: "User-Agent required" })
      if (path === "/user") return json(response, 200, { id: persona.id, login: persona.login, name: null })
      if (path === "/user/emails")
        return json(
          response,
          200,
          persona.emails.map((e) => ({ ...e, visibility: null }))
        )
      return json(response, 404, { message: "Not Found" })
    }

    const leaf = TestCa.issue(ca)
    const server = Https.createServer({ key: leaf.key, cert: leaf.cert }, (request, response) => {
      const url = new URL(request.url ?? "/", origin)
      const path = url.pathname
      const method = request.method ?? "GET"
      const fail = (e: unknown) => json(response, 500, { error: String(e) })
      if (method === "GET" && path === "/github/login/oauth/authorize") return authorize("github", url, response, false)
      if (method === "POST" && path === "/github/login/oauth/access_token")
        return void token("github", request, response).catch(fail)
      if (method === "GET" && path.startsWith("/github-api/"))
        return github(path.slice("/github-api".length), request, response)
      if (method === "GET" && path === "/google/.well-known/openid-configuration") {
        return json(response, 200, {
          issuer: `${origin}/google`,
          authorization_endpoint: `${origin}/google/o/oauth2/v2/auth`,
          token_endpoint: `${origin}/google/token`,
          response_types_supported: ["code"],
          code_challenge_methods_supported: ["S256"]
        })
      }
      if (method === "GET" && path === "/google/o/oauth2/v2/auth") return authorize("google", url, response, true)
      if (method === "POST" && path === "/google/token") return void token("google", request, response).catch(fail)
      const ms = /^\/ms\/([^/]+)\/oauth2\/v2\.0\/(authorize|token)$/.exec(path)
      if (ms?.[1] === "common" && method === "GET" && ms[2] === "authorize")
        return authorize("microsoft", url, response, true)
      if (ms?.[1] === "common" && method === "POST" && ms[2] === "token")
        return void token("microsoft", request, response).catch(fail)
      if (method === "GET" && path === "/gitlab/oauth/authorize") return authorize("gitlab", url, response, false)
      if (method === "POST" && path === "/gitlab/oauth/token")
        return void token("gitlab", request, response).catch(fail)
      json(response, 404, { error: "not_found" })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen(0, "127.0.0.1", () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`

    const settings: Record<Provider, Record<string, string>> = {
      github: { AUTH__GITHUB__BASE_URL: `${origin}/github`, AUTH__GITHUB__API_URL: `${origin}/github-api` },
      google: { AUTH__GOOGLE__ISSUER: `${origin}/google` },
      microsoft: { AUTH__MICROSOFT__AUTHORITY: `${origin}/ms`, AUTH__MICROSOFT__TENANT: "common" },
      gitlab: { AUTH__GITLAB__BASE_URL: `${origin}/gitlab` }
    }
    return {
      origin,
      gitlabIssuer: `${origin}/gitlab`,
      googleIssuer: `${origin}/google`,
      tokenRequests,
      as: (provider, persona) => {
        personas.set(provider, persona)
      },
      env: (providers) =>
        Object.assign(
          {},
          ...providers.map((p) => ({
            ...settings[p],
            [`AUTH__${p.toUpperCase()}__CLIENT_ID`]: client(p).id,
            [`AUTH__${p.toUpperCase()}__CLIENT_SECRET`]: client(p).secret
          }))
        )
    }
  })
