/**
 * Every setting of the service under its dotted name (`decisions.md`: "Running it"). The environment form of a
 * name is the dotted path upper-cased with `__` between parts: `auth.magic_link.expiry_minutes` is
 * `AUTH__MAGIC_LINK__EXPIRY_MINUTES`.
 */
import * as Setting from "./Setting.js"

export const settings = {
  "server.host": Setting.string({
    description: "Address the HTTP server listens on",
    default: "0.0.0.0",
    aliases: ["HOST"],
    nonEmpty: true
  }),
  "server.port": Setting.integer({
    description: "Port the HTTP server listens on (0 picks a free one)",
    default: 8080,
    min: 0,
    max: 65535,
    aliases: ["PORT"]
  }),
  "server.shutdown_grace_secs": Setting.integer({
    description: "On SIGTERM, how long in-flight requests may take before their connections are closed",
    default: 15,
    min: 1
  }),
  "server.max_body_bytes": Setting.integer({
    description: "Largest request body read; larger is 413 PAYLOAD_TOO_LARGE",
    default: 16 * 1024 * 1024,
    min: 1
  }),
  role: Setting.literal({
    description: "What this process runs: api (HTTP), worker (background work), or all",
    default: "all",
    values: ["api", "worker", "all"]
  }),
  data_dir: Setting.string({
    description: "Where the embedded database keeps its files; memory:// keeps nothing",
    default: "./data",
    nonEmpty: true
  }),
  "database.url": Setting.url({
    description: "PostgreSQL 15+ connection URL; unset runs the embedded database in data_dir",
    protocols: ["postgres:", "postgresql:"],
    aliases: ["DATABASE_URL"],
    secret: true
  }),
  "database.max_connections": Setting.integer({
    description: "Connection pool size",
    default: 10,
    min: 1
  }),
  "database.connect_timeout_secs": Setting.integer({
    description: "How long to wait for a database connection before a request or readiness check fails",
    default: 5,
    min: 1
  }),
  "log.level": Setting.literal({
    description: "Least severe level written",
    default: "info",
    values: ["trace", "debug", "info", "warn", "error"]
  }),
  "log.format": Setting.literal({
    description: "json (one object a line) or pretty (for a terminal)",
    default: "json",
    values: ["json", "pretty"]
  }),
  "auth.public_base_url": Setting.url({
    description: "The origin users reach the service at; links in mails and pages are built on it",
    defaultLabel: "http://localhost:<server.port>",
    protocols: ["http:", "https:"]
  }),
  "auth.enabled_methods": Setting.list({
    description: "Sign-in methods offered",
    default: ["magic_link"],
    values: ["magic_link", "passkey", "github", "google", "microsoft", "gitlab"]
  }),
  "auth.open_signup": Setting.boolean({
    description: "Whether a magic link for an unknown address opens a new account",
    default: true
  }),
  "auth.magic_link.expiry_minutes": Setting.integer({
    description: "How long a magic link and its code stay valid",
    default: 15,
    min: 1
  }),
  "auth.magic_link.rate_limit_seconds": Setting.integer({
    description: "One magic-link mail per address per window; 0 disables the throttle",
    default: 60,
    min: 0
  }),
  "auth.fingerprint_salt": Setting.optionalString({
    description: "Key of the HMAC-SHA256 that hashes IP addresses and User-Agents before they are stored",
    secret: true
  }),
  "auth.fingerprint_salt_rotate": Setting.boolean({
    description: "Accept a changed auth.fingerprint_salt (stored fingerprints stop matching)",
    default: false
  }),
  "auth.session.idle_timeout_hours": Setting.integer({
    description: "A session unused this long ends",
    default: 14 * 24,
    min: 1
  }),
  "auth.session.absolute_timeout_days": Setting.integer({
    description: "A session ends this long after sign-in however much it is used",
    default: 30,
    min: 1
  }),
  "auth.gitlab.base_url": Setting.url({
    description: "GitLab instance for GitLab sign-in (https only)",
    protocols: ["https:"]
  }),
  "secrets.encryption_key": Setting.optionalString({
    description: "32 bytes, base64: the key that encrypts stored credentials and secret values",
    secret: true
  }),
  "operator.admin_token": Setting.optionalString({
    description: "Bearer secret for /operator/*; unset answers 404 there",
    secret: true
  }),
  "mail.smtp_url": Setting.url({
    description: "SMTP server for outgoing mail (smtp:// or smtps://); unset writes mails to the log",
    protocols: ["smtp:", "smtps:"],
    secret: true
  }),
  "mail.from": Setting.string({
    description: "From address of outgoing mail",
    default: "Signalman <no-reply@localhost>",
    nonEmpty: true
  }),
  "checker.allow_private_targets": Setting.boolean({
    description: "Let checks connect to loopback, private and other internal addresses",
    default: false
  }),
  "checker.per_host_max_inflight": Setting.integer({
    description: "Concurrent checks per (org, host, port); an over-cap tick is dropped",
    default: 2,
    min: 1
  }),
  "checker.rdap_max_inflight": Setting.integer({
    description: "Concurrent RDAP queries per TLD",
    default: 4,
    min: 1
  }),
  "checker.rdap_bootstrap_url": Setting.url({
    description: "RDAP bootstrap registry for domain_expiry checks",
    default: "https://data.iana.org/rdap/dns.json",
    protocols: ["http:", "https:"]
  }),
  "abuse.hot_reload_enabled": Setting.boolean({
    description: "Re-read the abuse pattern and deny lists on SIGHUP",
    default: false
  }),
  plan_cache_ttl_secs: Setting.integer({
    description: "How long plan rows and overrides are cached",
    default: 300,
    min: 1
  }),
  usage_cache_ttl_secs: Setting.integer({
    description: "How long usage counts are cached",
    default: 10,
    min: 1
  })
} as const

export type Key = keyof typeof settings
