/**
 * Every setting of the service under its dotted name (`decisions.md`: "Running it"). The environment form of a
 * name is the dotted path upper-cased with `__` between parts: `auth.magic_link.expiry_minutes` is
 * `AUTH__MAGIC_LINK__EXPIRY_MINUTES`.
 */
import { defaultMaxConcurrency as defaultFlowMaxConcurrency } from "@signalman/checks/Flow"
import { defaultMaxConcurrency } from "@signalman/checks/Runner"
import * as Either from "effect/Either"
import * as BillingAmounts from "./BillingAmounts.js"
import * as BillingPrices from "./BillingPrices.js"
import * as Setting from "./Setting.js"

const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"]

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
    description:
      "On SIGTERM, how long in-flight requests, and a worker's claimed checks, may take before they are cut short",
    default: 15,
    min: 1
  }),
  "server.drain_delay_secs": Setting.integer({
    description:
      "On SIGTERM, how long /readyz answers 503 while the listener still takes requests, so load balancers take the process out before it stops listening",
    default: 0,
    min: 0
  }),
  "server.max_body_bytes": Setting.integer({
    description: "Largest request body read; larger is 413 PAYLOAD_TOO_LARGE",
    default: 16 * 1024 * 1024,
    min: 1
  }),
  "server.trusted_proxies": Setting.addressRanges({
    description:
      "Reverse proxies and load balancers (IP addresses or CIDR ranges) whose X-Forwarded-For names the client; empty: the connection's address is the client",
    default: [],
    defaultLabel: "(none)"
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
  "auth.github.client_id": Setting.optionalString({
    description: "OAuth client id of the GitHub app; github in auth.enabled_methods needs it and the secret"
  }),
  "auth.github.client_secret": Setting.optionalString({
    description: "OAuth client secret of the GitHub app",
    secret: true
  }),
  "auth.github.base_url": Setting.url({
    description: "GitHub's web origin, for its OAuth pages (https only; GitHub Enterprise Server names its own)",
    default: "https://github.com",
    protocols: ["https:"]
  }),
  "auth.github.api_url": Setting.url({
    description: "GitHub's REST API, for the profile and verified addresses (https only)",
    default: "https://api.github.com",
    protocols: ["https:"]
  }),
  "auth.google.client_id": Setting.optionalString({
    description: "OAuth client id of the Google app; google in auth.enabled_methods needs it and the secret"
  }),
  "auth.google.client_secret": Setting.optionalString({
    description: "OAuth client secret of the Google app",
    secret: true
  }),
  "auth.google.issuer": Setting.url({
    description: "Google's OpenID issuer; endpoints are read from its /.well-known/openid-configuration (https only)",
    default: "https://accounts.google.com",
    protocols: ["https:"]
  }),
  "auth.microsoft.client_id": Setting.optionalString({
    description: "OAuth client id of the Microsoft app; microsoft in auth.enabled_methods needs it and the secret"
  }),
  "auth.microsoft.client_secret": Setting.optionalString({
    description: "OAuth client secret of the Microsoft app",
    secret: true
  }),
  "auth.microsoft.authority": Setting.url({
    description: "Microsoft identity platform authority (https only)",
    default: "https://login.microsoftonline.com",
    protocols: ["https:"]
  }),
  "auth.microsoft.tenant": Setting.string({
    description: "Tenant in the Microsoft endpoints: common, organizations, consumers or a tenant id",
    default: "common",
    nonEmpty: true
  }),
  "auth.gitlab.client_id": Setting.optionalString({
    description: "OAuth client id of the GitLab app; gitlab in auth.enabled_methods needs it and the secret"
  }),
  "auth.gitlab.client_secret": Setting.optionalString({
    description: "OAuth client secret of the GitLab app",
    secret: true
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
  "checker.max_concurrency": Setting.integer({
    description: "Checks in flight at once in one process (the scheduler's and an agent's bound), whatever their host",
    default: defaultMaxConcurrency,
    min: 1
  }),
  "checker.per_host_max_inflight": Setting.integer({
    description: "Concurrent checks per (org, host, port); an over-cap tick is dropped",
    default: 2,
    min: 1
  }),
  "checker.browser_path": Setting.optionalString({
    description:
      "The headless Chromium the local region runs browser flows with; unset: a system Chromium or Chrome, else the packaged one; none: no flows here",
    aliases: ["CHROMIUM_PATH"]
  }),
  "checker.flow_max_concurrency": Setting.integer({
    description:
      "Browser flows one process runs at once (each is a browser context and its pages); more wait their turn",
    default: defaultFlowMaxConcurrency,
    min: 1
  }),
  "checker.rdap_max_inflight": Setting.integer({
    description: "Concurrent RDAP queries per TLD",
    default: 4,
    min: 1
  }),
  "checker.default_regions": Setting.names({
    description:
      "Regions a probe monitor created without regions runs in; an id that is not an enabled region is reported at boot and refuses such creates with 422 REGION_INVALID",
    default: ["local"],
    pattern: /^[a-z0-9][a-z0-9-]{0,31}$/,
    item: "a region id (1-32 lower-case letters, digits and hyphens)",
    nonEmpty: true
  }),
  "checker.rdap_bootstrap_url": Setting.url({
    description: "RDAP bootstrap registry for domain_expiry checks",
    default: "https://data.iana.org/rdap/dns.json",
    protocols: ["http:", "https:"]
  }),
  "notifier.poll_interval_ms": Setting.integer({
    description: "How often a worker looks for new notices and due deliveries",
    default: 1000,
    min: 10
  }),
  "notifier.maintenance_sweep_secs": Setting.integer({
    description: "How often a worker looks for maintenance windows that started or ended, to tell page subscribers",
    default: 15,
    min: 1
  }),
  "notifier.concurrency": Setting.integer({
    description: "Deliveries one worker sends at once",
    default: 10,
    min: 1
  }),
  "notifier.timeout_secs": Setting.integer({
    description: "Time limit of one notification request (HTTP exchange or SMTP send)",
    default: 10,
    min: 1
  }),
  "notifier.max_attempts": Setting.integer({
    description: "Attempts of a delivery, the first included, before it is dead-lettered",
    default: 12,
    min: 1
  }),
  "notifier.backoff_base_ms": Setting.integer({
    description: "Ceiling of the delay before the first retry; it doubles per failed attempt",
    default: 30_000,
    min: 1
  }),
  "notifier.backoff_cap_ms": Setting.integer({
    description: "Largest ceiling of the delay between two attempts",
    default: 3_600_000,
    min: 1
  }),
  "notifier.extra_ca_file": Setting.optionalString({
    description: "PEM file of CA certificates trusted for notification deliveries besides the system's"
  }),
  "notifier.telegram_api_url": Setting.url({
    description: "Telegram Bot API base URL",
    default: "https://api.telegram.org",
    protocols: ["http:", "https:"]
  }),
  "notifier.pagerduty_events_url": Setting.url({
    description: "PagerDuty Events API v2 enqueue URL",
    default: "https://events.pagerduty.com/v2/enqueue",
    protocols: ["http:", "https:"]
  }),
  "notifier.opsgenie_us_url": Setting.url({
    description: "Opsgenie API base URL for channels in region us",
    default: "https://api.opsgenie.com",
    protocols: ["http:", "https:"]
  }),
  "notifier.opsgenie_eu_url": Setting.url({
    description: "Opsgenie API base URL for channels in region eu",
    default: "https://api.eu.opsgenie.com",
    protocols: ["http:", "https:"]
  }),
  "notifier.sms.api_url": Setting.url({
    description: "Base URL of the Twilio-compatible SMS API (Messages resource under /2010-04-01/Accounts/<sid>)",
    default: "https://api.twilio.com",
    protocols: ["http:", "https:"]
  }),
  "notifier.sms.account_sid": Setting.optionalString({
    description: "SMS API account id (Basic auth user name); unset fails sms deliveries"
  }),
  "notifier.sms.auth_token": Setting.optionalString({
    description: "SMS API auth token (Basic auth password)",
    secret: true
  }),
  "notifier.sms.from": Setting.optionalString({
    description: "Sender of SMS alerts: an E.164 number or a messaging service id the provider knows"
  }),
  "scheduler.max_concurrency": Setting.integer({
    description:
      "Scheduled runs one worker process holds at once, from claim to result (waiting for their time, queued or in flight)",
    // A worker claims a second ahead, so at 1,000 checks a second about 1,250 runs wait for their time (a second
    // plus a poll) beside those in flight: at 1,000 the claims fell behind the grid (issue 20, docs/capacity.md).
    default: 4000,
    min: 1
  }),
  "scheduler.poll_interval_ms": Setting.integer({
    description: "How often a worker claims due checks; it claims a second ahead and starts each on its due time",
    default: 250,
    min: 10
  }),
  "scheduler.lease_secs": Setting.integer({
    description: "How long a claimed check is leased; a crashed worker's checks are picked up when it lapses",
    default: 120,
    min: 5
  }),
  "scheduler.refresh_secs": Setting.integer({
    description: "How often a worker recomputes which monitors the plan holds (not run) and keeps partitions ahead",
    default: 30,
    min: 1
  }),
  "agents.lease_secs": Setting.integer({
    description:
      "How long past its due time a job leased to a probe agent stays its own; a job the agent has not started by then goes to a sibling",
    default: 90,
    min: 1
  }),
  "agents.poll_interval_ms": Setting.integer({
    description: "How often an agent with room asks for jobs (told to agents in their welcome)",
    default: 1000,
    min: 10
  }),
  "agents.lookahead_ms": Setting.integer({
    description: "How far ahead of their due time jobs are leased to agents, so each starts on time",
    default: 2000,
    min: 0,
    max: 60_000
  }),
  "agents.recheck_ms": Setting.integer({
    description:
      "How long a verified agent token is trusted before it is looked up again, and how often an open stream is (a revoked agent is refused and its stream closed within this)",
    default: 5000,
    min: 100,
    max: 60_000
  }),
  "agents.max_leased_per_stream": Setting.integer({
    description: "Jobs one agent stream may hold leased and unanswered at once; pulls beyond it get fewer or none",
    default: 2000,
    min: 1
  }),
  "agents.one_off_grace_ms": Setting.integer({
    description:
      "How long past a one-off check's own timeout (a test or check-now in an agent's region) the request waits for the agent's answer before it is 503 NOT_READY",
    default: 5000,
    min: 200,
    max: 60_000
  }),
  "agents.one_off_poll_ms": Setting.integer({
    description:
      "How often an API process holding agent streams looks for one-off checks asked of another process, and a waiting request for its answer",
    default: 250,
    min: 10,
    max: 5000
  }),
  "abuse.hot_reload_enabled": Setting.boolean({
    description: "Re-read the abuse pattern and deny lists on SIGHUP",
    default: false
  }),
  "abuse.builtin_rules_enabled": Setting.boolean({
    description: "Apply the built-in attack-recon URL patterns and deny-list of monitoring providers",
    default: true
  }),
  "abuse.url_patterns_file": Setting.optionalString({
    description: "File of URL patterns refused besides the built-in ones: one case-insensitive regex a line, # comments"
  }),
  "abuse.domain_denylist_file": Setting.optionalString({
    description: "File of denied domains besides the built-in ones: one a line, covering its subdomains, # comments"
  }),
  "incidents.tick_interval_secs": Setting.integer({
    description:
      "Seconds between the incident engine's clock passes (reminders, recovery waits, escalation pages); 0 turns them off",
    default: 5,
    min: 0
  }),
  "status_page.default_slug": Setting.optionalString({
    description: "The page /status serves on a single-tenant deploy; unset: the only published page, if just one"
  }),
  "status_page.cache_secs": Setting.integer({
    description: "How long a status page's public data and rendered answers are reused before being assembled again",
    default: 10,
    min: 0,
    max: 60
  }),
  "status_page.code_interval_secs": Setting.integer({
    description: "One private-page sign-in code mail per address and page per window; 0 disables it",
    default: 60,
    min: 0
  }),
  "status_page.codes_per_hour": Setting.integer({
    description: "Most private-page sign-in code mails per address and page an hour; 0 disables the cap",
    default: 5,
    min: 0
  }),
  "status_page.password_failures": Setting.integer({
    description: "Wrong page passwords a client may try per page in 15 minutes, then 429; 0 disables the bound",
    default: 10,
    min: 0
  }),
  "billing.provider": Setting.optionalLiteral({
    description:
      "The payment provider: stripe; unset: no billing (every billing route answers 404 BILLING_UNAVAILABLE)",
    values: ["stripe"]
  }),
  "billing.stripe.secret_key": Setting.optionalString({
    description: "Stripe secret API key (sk_live_.. or a restricted rk_ key); billing.provider stripe needs it",
    secret: true
  }),
  "billing.stripe.webhook_secret": Setting.optionalString({
    description:
      "Signing secret (whsec_..) of the Stripe webhook endpoint /webhooks/stripe; billing.provider stripe needs it",
    secret: true
  }),
  "billing.stripe.api_base": Setting.custom<string>(
    {
      description: "Stripe API origin (https; http only on a loopback host, for tests)",
      default: "https://api.stripe.com"
    },
    (raw) => {
      if (typeof raw !== "string" || raw === "") return Either.left("must be a URL")
      let parsed: URL
      try {
        parsed = new URL(raw)
      } catch {
        return Either.left("must be a URL")
      }
      if (parsed.protocol === "https:") return Either.right(raw.replace(/\/+$/, ""))
      if (parsed.protocol === "http:" && LOOPBACK_HOSTS.includes(parsed.hostname)) {
        return Either.right(raw.replace(/\/+$/, ""))
      }
      return Either.left("must be a URL with scheme https (http only on a loopback host)")
    }
  ),
  "billing.prices": Setting.custom<BillingPrices.BillingPrices>(
    {
      description:
        'Stripe price id of each plan and cadence, JSON: {"pro":{"month":"price_..","year":"price_.."}}; a pair left out is not for sale',
      default: {},
      defaultLabel: "{}"
    },
    BillingPrices.parse
  ),
  "billing.amounts": Setting.custom<BillingAmounts.BillingAmounts>(
    {
      description:
        'What each plan and cadence costs, as the billing page shows it, JSON: {"pro":{"month":{"amount_minor":1900,"currency":"usd"}}}; keep it equal to the price at the provider',
      default: {},
      defaultLabel: "{}"
    },
    BillingAmounts.parse
  ),
  "discovery.marketing_origin": Setting.url({
    description:
      "The origin of the marketing site, where /.well-known/api-catalog is served; unset: the service's own origin",
    protocols: ["http:", "https:"]
  }),
  "mcp.enabled": Setting.boolean({
    description: "Whether the MCP server answers at POST /mcp (and is listed in the api-catalog, with its server card)",
    default: true
  }),
  "mcp.origin": Setting.url({
    description: "The origin MCP clients reach the MCP server at; unset: the service's own origin",
    protocols: ["http:", "https:"]
  }),
  "metrics.enabled": Setting.boolean({
    description: "Whether GET /metrics answers Prometheus text (off: 404)",
    default: false
  }),
  "metrics.token": Setting.optionalString({
    description: "A bearer secret GET /metrics requires when set; unset: /metrics is open to whoever reaches it",
    secret: true
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
