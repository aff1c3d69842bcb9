/**
 * The agent's settings (decisions.md, "Regions, probe agents and browser flows"), read from flags or the
 * environment, flags winning: one table names each setting's variable, flag, form and default, and one Schema
 * decodes them, so a bad value is refused before anything starts with one line that names it (exit code 2). The
 * token is held `Redacted`: nothing that prints the settings can print it.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { TOKEN_PREFIX } from "./Token.js"

/**
 * Where flows get their browser: `off` (`AGENT__BROWSER_PATH=none`), an explicit executable (from
 * `AGENT__BROWSER_PATH` or `CHROMIUM_PATH`, named in `setting`), or `auto` (a system Chromium or Chrome, else the
 * packaged one).
 *
 * @since 0.1.0
 * @category models
 */
export type BrowserChoice =
  | { readonly _tag: "off" }
  | { readonly _tag: "auto" }
  | { readonly _tag: "path"; readonly path: string; readonly setting: string }

/**
 * The agent's log levels, least to most severe.
 *
 * @since 0.1.0
 * @category models
 */
export const LogLevelName = Schema.Literal("debug", "info", "warn", "error")

/**
 * @since 0.1.0
 * @category models
 */
export type LogLevelName = typeof LogLevelName.Type

/**
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /** `SIGNALMAN_URL`: the service's origin (and path prefix, behind a proxy that mounts it under one), no trailing slash. */
  readonly url: string
  /** `SIGNALMAN_AGENT_TOKEN`: `sm_agent_...`. */
  readonly token: Redacted.Redacted<string>
  readonly browser: BrowserChoice
  /** `AGENT__CONCURRENCY`: checks leased and running at once. */
  readonly concurrency: number
  /** `AGENT__FLOW_CONCURRENCY`: browser flows run at once (each a browser context); more wait their turn. */
  readonly flowConcurrency: number
  /** `AGENT__ALLOW_PRIVATE_TARGETS`: let checks dial internal addresses (a private location inside a network). */
  readonly allowPrivateTargets: boolean
  /** `AGENT__PER_HOST_MAX_INFLIGHT`: checks in flight per (org, host, port), as the server's setting of that name. */
  readonly perHostMaxInflight: number
  /** `AGENT__RDAP_BOOTSTRAP_URL`: where domain_expiry checks find each TLD's RDAP server. */
  readonly rdapBootstrapUrl: string
  /** `AGENT__RDAP_MAX_INFLIGHT`: RDAP queries per TLD at once. */
  readonly rdapMaxInflight: number
  /** `AGENT__BUFFER_SIZE`: results kept while they cannot be delivered; past it the oldest is dropped. */
  readonly bufferSize: number
  /** `AGENT__LOG_LEVEL`. */
  readonly logLevel: LogLevelName
  /** `AGENT__RECONNECT_MIN_MS`: the first reconnection delay's ceiling; it doubles with each failure. */
  readonly reconnectMinMs: number
  /** `AGENT__RECONNECT_MAX_MS`: the cap of the reconnection delay. */
  readonly reconnectMaxMs: number
  /** `AGENT__DRAIN_TIMEOUT_SECS`: the most a drain may take (running checks, then delivery) before it gives up. */
  readonly drainTimeoutSecs: number
}

/**
 * What the command line asks for: run with settings, or only print the usage or the version.
 *
 * @since 0.1.0
 * @category models
 */
export type Command =
  | { readonly _tag: "run"; readonly settings: Settings }
  | { readonly _tag: "help" }
  | { readonly _tag: "version" }

/**
 * A bad flag or setting; `message` is the whole line to print (without the program's name).
 *
 * @since 0.1.0
 * @category errors
 */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  message: Schema.String
}) {}

const fail = (message: string) => ({ message, override: true })

const integer = (min: number, max: number) =>
  Schema.compose(Schema.Trim, Schema.NumberFromString).pipe(
    Schema.int(),
    Schema.between(min, max),
    Schema.annotations({ message: () => fail(`must be a whole number from ${min} to ${max}`) })
  )

// The forms the server's boolean settings take (packages/server/src/config/Setting.ts), so one habit serves both.
const truthy = ["true", "1", "yes", "on"]
const falsy = ["false", "0", "no", "off"]
const boolean = Schema.transformOrFail(Schema.String, Schema.Boolean, {
  strict: true,
  decode: (raw, _, ast) => {
    const value = raw.trim().toLowerCase()
    if (truthy.includes(value)) return ParseResult.succeed(true)
    if (falsy.includes(value)) return ParseResult.succeed(false)
    return ParseResult.fail(new ParseResult.Type(ast, raw))
  },
  encode: (value) => ParseResult.succeed(String(value))
}).annotations({ message: () => fail("must be true or false") })

const httpUrl = Schema.transformOrFail(Schema.String, Schema.String, {
  strict: true,
  decode: (raw, _, ast) => {
    const parsed = URL.canParse(raw.trim()) ? new URL(raw.trim()) : undefined
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return ParseResult.fail(new ParseResult.Type(ast, raw))
    }
    if (parsed.search !== "" || parsed.hash !== "" || parsed.username !== "" || parsed.password !== "") {
      return ParseResult.fail(new ParseResult.Type(ast, raw))
    }
    return ParseResult.succeed(`${parsed.origin}${parsed.pathname.replace(/\/+$/, "")}`)
  },
  encode: ParseResult.succeed
})

const serviceUrl = httpUrl.annotations({
  message: () => fail("must be the service's http:// or https:// URL, with no query, fragment or credentials")
})

const token = Schema.Trim.pipe(
  Schema.startsWith(TOKEN_PREFIX),
  Schema.minLength(TOKEN_PREFIX.length + 1),
  Schema.pattern(/^\S+$/),
  Schema.annotations({
    message: () => fail(`must be an agent token (${TOKEN_PREFIX}..., minted by POST /operator/agents)`)
  })
)

const logLevel = Schema.compose(Schema.Lowercase, Schema.Literal("debug", "info", "warn", "warning", "error")).pipe(
  Schema.annotations({ message: () => fail("must be one of debug, info, warn, error") })
)

/**
 * One setting: its environment variable, its flag, what it holds (for `--help`), and, when it has one, its default.
 *
 * @since 0.1.0
 * @category models
 */
export interface Definition {
  readonly env: string
  readonly flag: string
  readonly description: string
  /** Shown in `--help`; absent for a required setting. */
  readonly defaultLabel?: string
  /** Never echoed in an error line. */
  readonly secret?: boolean
  /** A flag that may stand alone (`--allow-private-targets` means true). */
  readonly switch?: boolean
}

/**
 * Every setting, in the order `--help` lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const definitions = [
  { env: "SIGNALMAN_URL", flag: "url", description: "The Signalman service's URL (where /api/agent/v1 is)" },
  {
    env: "SIGNALMAN_AGENT_TOKEN",
    flag: "token",
    description: "The agent's token, sm_agent_... (prefer the environment: a flag shows in the process list)",
    secret: true
  },
  {
    env: "AGENT__BROWSER_PATH",
    flag: "browser-path",
    description: "The browser flows run in; none turns flows off",
    defaultLabel: "CHROMIUM_PATH, else a system Chromium or Chrome, else the packaged Chromium (x64 Linux)"
  },
  {
    env: "AGENT__CONCURRENCY",
    flag: "concurrency",
    description: "Checks leased and running at once",
    defaultLabel: "200"
  },
  {
    env: "AGENT__FLOW_CONCURRENCY",
    flag: "flow-concurrency",
    description: "Browser flows run at once; more wait their turn",
    defaultLabel: "2"
  },
  {
    env: "AGENT__ALLOW_PRIVATE_TARGETS",
    flag: "allow-private-targets",
    description: "Let checks reach loopback, private and other internal addresses",
    defaultLabel: "false",
    switch: true
  },
  {
    env: "AGENT__PER_HOST_MAX_INFLIGHT",
    flag: "per-host-max-inflight",
    description: "Checks in flight per (org, host, port); a check over the cap is skipped",
    defaultLabel: "2"
  },
  {
    env: "AGENT__RDAP_BOOTSTRAP_URL",
    flag: "rdap-bootstrap-url",
    description: "RDAP bootstrap registry for domain_expiry checks",
    defaultLabel: "https://data.iana.org/rdap/dns.json"
  },
  {
    env: "AGENT__RDAP_MAX_INFLIGHT",
    flag: "rdap-max-inflight",
    description: "RDAP queries per TLD at once",
    defaultLabel: "4"
  },
  {
    env: "AGENT__BUFFER_SIZE",
    flag: "buffer-size",
    description: "Undelivered results kept; past it the oldest is dropped (and counted)",
    defaultLabel: "10000"
  },
  { env: "AGENT__LOG_LEVEL", flag: "log-level", description: "debug, info, warn or error", defaultLabel: "info" },
  {
    env: "AGENT__RECONNECT_MIN_MS",
    flag: "reconnect-min-ms",
    description: "Ceiling of the first reconnection delay (doubled per failure, full jitter)",
    defaultLabel: "500"
  },
  {
    env: "AGENT__RECONNECT_MAX_MS",
    flag: "reconnect-max-ms",
    description: "Cap of the reconnection delay",
    defaultLabel: "30000"
  },
  {
    env: "AGENT__DRAIN_TIMEOUT_SECS",
    flag: "drain-timeout-secs",
    description: "On SIGTERM, the most the drain (running checks, then delivery) may take",
    defaultLabel: "330"
  }
] as const satisfies ReadonlyArray<Definition>

type Env = (typeof definitions)[number]["env"]

// Each setting's form, keyed by its variable: a decode failure's path is the variable, which the error line names.
const Raw = Schema.Struct({
  SIGNALMAN_URL: Schema.propertySignature(serviceUrl).annotations({ missingMessage: () => "is required" }),
  SIGNALMAN_AGENT_TOKEN: Schema.propertySignature(token).annotations({ missingMessage: () => "is required" }),
  AGENT__BROWSER_PATH: Schema.optional(Schema.String),
  AGENT__CONCURRENCY: Schema.optionalWith(integer(1, 100_000), { default: () => 200 }),
  AGENT__FLOW_CONCURRENCY: Schema.optionalWith(integer(1, 64), { default: () => 2 }),
  AGENT__ALLOW_PRIVATE_TARGETS: Schema.optionalWith(boolean, { default: () => false }),
  AGENT__PER_HOST_MAX_INFLIGHT: Schema.optionalWith(integer(1, 10_000), { default: () => 2 }),
  AGENT__RDAP_BOOTSTRAP_URL: Schema.optionalWith(
    httpUrl.annotations({ message: () => fail("must be an http:// or https:// URL") }),
    { default: () => "https://data.iana.org/rdap/dns.json" }
  ),
  AGENT__RDAP_MAX_INFLIGHT: Schema.optionalWith(integer(1, 1_000), { default: () => 4 }),
  AGENT__BUFFER_SIZE: Schema.optionalWith(integer(1, 1_000_000), { default: () => 10_000 }),
  AGENT__LOG_LEVEL: Schema.optionalWith(logLevel, { default: () => "info" as const }),
  AGENT__RECONNECT_MIN_MS: Schema.optionalWith(integer(1, 600_000), { default: () => 500 }),
  AGENT__RECONNECT_MAX_MS: Schema.optionalWith(integer(1, 3_600_000), { default: () => 30_000 }),
  AGENT__DRAIN_TIMEOUT_SECS: Schema.optionalWith(integer(1, 86_400), { default: () => 330 })
})

const byEnv = new Map<string, Definition>(definitions.map((definition) => [definition.env, definition]))
const byFlag = new Map<string, Definition>(definitions.map((definition) => [definition.flag, definition]))

const named = (definition: Definition): string => `${definition.env} (--${definition.flag})`

const refuse = (message: string) => Either.left(new SettingsError({ message }))

type Flags = Partial<Record<Env, string>>

// `--name value`, `--name=value`, and a switch alone; `--help`/`-h` and `--version` win over everything else.
const parseFlags = (
  argv: ReadonlyArray<string>
): Either.Either<{ readonly flags: Flags; readonly ask: "help" | "version" | undefined }, SettingsError> => {
  const flags: Flags = {}
  let ask: "help" | "version" | undefined
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at] ?? ""
    if (arg === "--help" || arg === "-h") {
      ask = "help"
      continue
    }
    if (arg === "--version") {
      ask ??= "version"
      continue
    }
    if (!arg.startsWith("--")) return refuse(`unexpected argument ${JSON.stringify(arg)} (see --help)`)
    const equals = arg.indexOf("=")
    const name = arg.slice(2, equals === -1 ? undefined : equals)
    const definition = byFlag.get(name)
    if (definition === undefined) return refuse(`unknown option --${name} (see --help)`)
    let value: string
    if (equals !== -1) value = arg.slice(equals + 1)
    else if (definition.switch === true && (argv[at + 1] === undefined || argv[at + 1]?.startsWith("--"))) {
      value = "true"
    } else {
      const next = argv[at + 1]
      if (next === undefined) return refuse(`option --${name} needs a value (see --help)`)
      value = next
      at++
    }
    flags[definition.env as Env] = value
  }
  return Either.right({ flags, ask })
}

// The first issue as one line naming the setting; a secret's value is never echoed.
const describe = (error: ParseResult.ParseError, raw: Flags): SettingsError => {
  const issue = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  const key = issue?.path[0]
  const definition = typeof key === "string" ? byEnv.get(key) : undefined
  if (issue === undefined || definition === undefined) return new SettingsError({ message: String(error.message) })
  const value = raw[definition.env as Env]
  const shown = value === undefined || definition.secret === true ? "" : `, got ${JSON.stringify(value)}`
  return new SettingsError({ message: `${named(definition)} ${issue.message}${shown}` })
}

/**
 * Reads the command line and the environment: flags win over variables, an empty variable counts as unset. Answers
 * what to do, or the first bad value as one line naming its setting.
 *
 * @since 0.1.0
 * @category constructors
 */
export const read = (
  argv: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>
): Either.Either<Command, SettingsError> =>
  Either.flatMap(parseFlags(argv), ({ flags, ask }): Either.Either<Command, SettingsError> => {
    if (ask === "help") return Either.right({ _tag: "help" } as const)
    if (ask === "version") return Either.right({ _tag: "version" } as const)
    const raw: Flags = {}
    for (const definition of definitions) {
      const fromFlag = flags[definition.env]
      const fromEnv = env[definition.env]
      const value = fromFlag ?? (fromEnv === undefined || fromEnv === "" ? undefined : fromEnv)
      if (value !== undefined) raw[definition.env] = value
    }
    return Schema.decodeUnknownEither(Raw, { errors: "first" })(raw).pipe(
      Either.mapLeft((error) => describe(error, raw)),
      Either.flatMap((decoded) => {
        if (decoded.AGENT__RECONNECT_MAX_MS < decoded.AGENT__RECONNECT_MIN_MS) {
          const max = byEnv.get("AGENT__RECONNECT_MAX_MS")
          return refuse(
            `${max === undefined ? "AGENT__RECONNECT_MAX_MS" : named(max)} must be at least AGENT__RECONNECT_MIN_MS (${decoded.AGENT__RECONNECT_MIN_MS}), got ${decoded.AGENT__RECONNECT_MAX_MS}`
          )
        }
        return Either.right({
          _tag: "run",
          settings: {
            url: decoded.SIGNALMAN_URL,
            token: Redacted.make(decoded.SIGNALMAN_AGENT_TOKEN),
            browser: browserChoice(raw.AGENT__BROWSER_PATH, env["CHROMIUM_PATH"]),
            concurrency: decoded.AGENT__CONCURRENCY,
            flowConcurrency: decoded.AGENT__FLOW_CONCURRENCY,
            allowPrivateTargets: decoded.AGENT__ALLOW_PRIVATE_TARGETS,
            perHostMaxInflight: decoded.AGENT__PER_HOST_MAX_INFLIGHT,
            rdapBootstrapUrl: decoded.AGENT__RDAP_BOOTSTRAP_URL,
            rdapMaxInflight: decoded.AGENT__RDAP_MAX_INFLIGHT,
            bufferSize: decoded.AGENT__BUFFER_SIZE,
            logLevel: decoded.AGENT__LOG_LEVEL === "warning" ? "warn" : decoded.AGENT__LOG_LEVEL,
            reconnectMinMs: decoded.AGENT__RECONNECT_MIN_MS,
            reconnectMaxMs: decoded.AGENT__RECONNECT_MAX_MS,
            drainTimeoutSecs: decoded.AGENT__DRAIN_TIMEOUT_SECS
          }
        } as const)
      })
    )
  })

const browserChoice = (setting: string | undefined, chromiumPath: string | undefined): BrowserChoice => {
  const explicit = Option.fromNullable(setting?.trim()).pipe(Option.filter((path) => path !== ""))
  if (Option.isSome(explicit)) {
    return explicit.value.toLowerCase() === "none"
      ? { _tag: "off" }
      : { _tag: "path", path: explicit.value, setting: "AGENT__BROWSER_PATH" }
  }
  const inherited = chromiumPath?.trim()
  if (inherited !== undefined && inherited !== "") return { _tag: "path", path: inherited, setting: "CHROMIUM_PATH" }
  return { _tag: "auto" }
}

/**
 * The `--help` text.
 *
 * @since 0.1.0
 * @category constants
 */
export const usage = (version: string): string => {
  const rows = definitions.map((definition: Definition) => {
    const flag = `--${definition.flag}${definition.switch === true ? " [true|false]" : " <value>"}`
    const fallback = definition.defaultLabel === undefined ? "required" : `default: ${definition.defaultLabel}`
    return `  ${flag}\n      ${definition.env}: ${definition.description} (${fallback})`
  })
  return Arr.join(
    [
      `signalman-agent ${version}: a Signalman probe agent. It dials out to the service, takes its region's due checks,`,
      "runs them and streams the results back. It never listens on a port.",
      "",
      "Usage: signalman-agent [options]",
      "",
      "Every option can be given as a flag or as the environment variable named below it; the flag wins.",
      "",
      ...rows,
      "  --help, -h      print this and exit",
      "  --version       print the version and exit",
      "",
      "Logs are JSON lines on stdout. Exit codes: 0 stopped cleanly (SIGTERM or SIGINT drained), 1 unexpected failure,",
      "2 bad option or setting, 3 the server refused the agent token (bad or revoked), 4 drained with results it",
      "could not deliver; a second signal during a drain exits at once with 128 + the signal's number.",
      "See docs/agents.md."
    ],
    "\n"
  )
}
