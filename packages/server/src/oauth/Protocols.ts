/**
 * The providers' real protocols, phase B of the callback: building the consent URL, exchanging the code, reading
 * who the person is. No database here: the callback calls these holding no connection.
 *
 * - GitHub: the OAuth web flow (`/login/oauth/authorize`, `/login/oauth/access_token` answered as JSON), then
 *   `GET <api>/user` and `GET <api>/user/emails`; the primary verified address is attested.
 * - Google: OpenID Connect, endpoints from the issuer's discovery document, PKCE S256; `email_verified` attests.
 * - Microsoft: identity platform v2.0 (`<authority>/<tenant>/oauth2/v2.0/authorize|token`), PKCE S256, claims from
 *   the id_token (see core's `microsoftAttestedEmail`).
 * - GitLab: OpenID Connect against `auth.gitlab.base_url` (`/oauth/authorize`, `/oauth/token`), confidential client
 *   without PKCE; the token's `iss` must be that base URL.
 *
 * id_tokens are not signature-checked: they come straight from the token endpoint over TLS, in the answer to our
 * own authenticated request, so nobody but the provider could have written them. They are decoded with Schema.
 * Outbound calls trust the system CAs plus NODE_EXTRA_CA_CERTS (Node's default trust store).
 */
import { createHash } from "node:crypto"
import * as OAuth from "@signalman/core/OAuth"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomSecret } from "../infra/Secrets.js"
import type { Setup } from "./Providers.js"

/** The provider did not answer as its protocol says (or not at all). */
export class UpstreamFailure extends Data.TaggedError("UpstreamFailure")<{ readonly reason: string }> {}

/** Who the provider says the person is. */
export interface Profile {
  /** The identity key, unique per provider. */
  readonly key: string
  /** The address the provider attests, or undefined when it attests none. */
  readonly email: string | undefined
  /** What the account page shows: the address or the account name. */
  readonly label: string
}

export interface Authorization {
  readonly url: string
  /** The PKCE verifier to keep with the state (Google, Microsoft); null without PKCE. */
  readonly codeVerifier: string | null
}

const TIMEOUT_MS = 10_000
const SCOPES = "openid email profile"

/** A JSON answer from a provider, decoded, or the failure saying what went wrong. */
const getJson = <A, I>(
  schema: Schema.Schema<A, I>,
  what: string,
  url: string,
  init: RequestInit = {}
): Effect.Effect<A, UpstreamFailure> =>
  Effect.gen(function* () {
    const response = yield* Effect.tryPromise({
      try: (signal) =>
        fetch(url, {
          ...init,
          redirect: "error",
          signal: AbortSignal.any([signal, AbortSignal.timeout(TIMEOUT_MS)])
        }),
      catch: (e) => new UpstreamFailure({ reason: `${what}: ${e instanceof Error ? e.message : String(e)}` })
    })
    const text = yield* Effect.tryPromise({
      try: () => response.text(),
      catch: () => new UpstreamFailure({ reason: `${what}: the answer was cut off` })
    })
    if (!response.ok) return yield* new UpstreamFailure({ reason: `${what}: HTTP ${response.status}` })
    return yield* Schema.decodeUnknown(Schema.parseJson(schema))(text).pipe(
      Effect.mapError(() => new UpstreamFailure({ reason: `${what}: an answer of an unexpected shape` }))
    )
  })

const form = (fields: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
  body: new URLSearchParams(fields).toString()
})

/** The claims of a JWT's payload, decoded with the schema; the signature is not checked (see above). */
export const jwtClaims = <A, I>(schema: Schema.Schema<A, I>, jwt: string): Effect.Effect<A, UpstreamFailure> => {
  const payload = jwt.split(".")[1]
  if (payload === undefined) return Effect.fail(new UpstreamFailure({ reason: "id_token: not a JWT" }))
  return Schema.decodeUnknown(Schema.parseJson(schema))(Buffer.from(payload, "base64url").toString("utf8")).pipe(
    Effect.mapError(() => new UpstreamFailure({ reason: "id_token: claims of an unexpected shape" }))
  )
}

const withQuery = (base: string, query: Record<string, string>) => `${base}?${new URLSearchParams(query).toString()}`

const challengeOf = (verifier: string) => createHash("sha256").update(verifier).digest("base64url")

const Discovery = Schema.Struct({
  issuer: Schema.String,
  authorization_endpoint: Schema.String,
  token_endpoint: Schema.String
})
type Discovery = typeof Discovery.Type

// The discovery document changes rarely; read it once an hour per process rather than on every sign-in.
const discoveries = new Map<string, { readonly at: number; readonly document: Discovery }>()
const discover = (issuer: string): Effect.Effect<Discovery, UpstreamFailure> =>
  Effect.suspend(() => {
    const hit = discoveries.get(issuer)
    if (hit !== undefined && Date.now() - hit.at < 3_600_000) return Effect.succeed(hit.document)
    return getJson(Discovery, "discovery document", `${issuer}/.well-known/openid-configuration`).pipe(
      Effect.tap((document) => Effect.sync(() => discoveries.set(issuer, { at: Date.now(), document })))
    )
  })

const microsoftBase = (setup: { readonly authority: string; readonly tenant: string }) =>
  `${setup.authority}/${encodeURIComponent(setup.tenant)}/oauth2/v2.0`

/** Where the browser goes to consent, and the PKCE verifier to keep with the state. */
export const authorization = (
  setup: Setup,
  state: string,
  redirectUri: string
): Effect.Effect<Authorization, UpstreamFailure> =>
  Effect.gen(function* () {
    const common = { client_id: setup.clientId, redirect_uri: redirectUri, state }
    switch (setup.provider) {
      case "github":
        return {
          url: withQuery(`${setup.baseUrl}/login/oauth/authorize`, { ...common, scope: "read:user user:email" }),
          codeVerifier: null
        }
      case "google": {
        const discovery = yield* discover(setup.issuer)
        const verifier = randomSecret(32)
        return {
          url: withQuery(discovery.authorization_endpoint, {
            ...common,
            response_type: "code",
            scope: SCOPES,
            code_challenge: challengeOf(verifier),
            code_challenge_method: "S256"
          }),
          codeVerifier: verifier
        }
      }
      case "microsoft": {
        const verifier = randomSecret(32)
        return {
          url: withQuery(`${microsoftBase(setup)}/authorize`, {
            ...common,
            response_type: "code",
            response_mode: "query",
            scope: SCOPES,
            code_challenge: challengeOf(verifier),
            code_challenge_method: "S256"
          }),
          codeVerifier: verifier
        }
      }
      case "gitlab":
        return {
          url: withQuery(`${setup.baseUrl}/oauth/authorize`, { ...common, response_type: "code", scope: SCOPES }),
          codeVerifier: null
        }
    }
  })

const GitHubToken = Schema.Struct({ access_token: Schema.String })
const GitHubUser = Schema.Struct({ id: Schema.Number, login: Schema.String })
const GitHubEmails = Schema.Array(OAuth.GitHubEmail)
const IdToken = Schema.Struct({ id_token: Schema.String })

/** Exchanges the code and reads who the person is. */
export const profile = (
  setup: Setup,
  code: string,
  codeVerifier: string | null,
  redirectUri: string
): Effect.Effect<Profile, UpstreamFailure> =>
  Effect.gen(function* () {
    const grant = {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: setup.clientId,
      client_secret: setup.clientSecret
    }
    const pkce: Record<string, string> = codeVerifier === null ? {} : { code_verifier: codeVerifier }
    switch (setup.provider) {
      case "github": {
        const token = yield* getJson(
          GitHubToken,
          "GitHub token",
          `${setup.baseUrl}/login/oauth/access_token`,
          form(grant)
        )
        const headers = {
          authorization: `Bearer ${token.access_token}`,
          accept: "application/vnd.github+json",
          "user-agent": "Signalman"
        }
        const user = yield* getJson(GitHubUser, "GitHub user", `${setup.apiUrl}/user`, { headers })
        const emails = yield* getJson(GitHubEmails, "GitHub emails", `${setup.apiUrl}/user/emails`, { headers })
        return { key: String(user.id), email: OAuth.githubAttestedEmail(emails), label: user.login }
      }
      case "google": {
        const discovery = yield* discover(setup.issuer)
        const token = yield* getJson(IdToken, "Google token", discovery.token_endpoint, form({ ...grant, ...pkce }))
        const claims = yield* jwtClaims(OAuth.OidcClaims, token.id_token)
        return { key: claims.sub, email: OAuth.oidcAttestedEmail(claims), label: claims.email ?? claims.sub }
      }
      case "microsoft": {
        const token = yield* getJson(
          IdToken,
          "Microsoft token",
          `${microsoftBase(setup)}/token`,
          form({ ...grant, ...pkce, scope: SCOPES })
        )
        const claims = yield* jwtClaims(OAuth.MicrosoftClaims, token.id_token)
        return {
          key: OAuth.microsoftKey(claims),
          email: OAuth.microsoftAttestedEmail(claims),
          label: claims.email ?? claims.preferred_username ?? claims.sub
        }
      }
      case "gitlab": {
        const token = yield* getJson(IdToken, "GitLab token", `${setup.baseUrl}/oauth/token`, form(grant))
        const claims = yield* jwtClaims(OAuth.OidcClaims, token.id_token)
        if (!OAuth.gitlabIssuerMatches(claims, setup.baseUrl)) {
          return yield* new UpstreamFailure({ reason: `GitLab token: iss ${claims.iss} is not ${setup.baseUrl}` })
        }
        return {
          key: OAuth.gitlabKey(claims),
          email: OAuth.oidcAttestedEmail(claims),
          label: claims.email ?? claims.sub
        }
      }
    }
  })
