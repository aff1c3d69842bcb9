/**
 * What a monitor checks: one object per kind, told apart by `type`, with the wire names and defaults of
 * `decisions.md` ("Wire shapes").
 *
 * These schemas hold the shape only: types, enums, ranges and list sizes, each a 400 `VALIDATION_FAILED` naming
 * the field. Rules that answer with a code of their own (`INVALID_DNS_PARAMS`, `INVALID_IP_VERSION`,
 * `INVALID_FLOW_PARAMS`, `UNRESOLVED_VARIABLE`, interval floors) need several fields or the org's state, so they
 * run on the decoded value rather than in the decode. Every object is a {@link RequestBody.Struct}, so an unknown
 * key anywhere in a check is 422 `INVALID_JSON` with its path.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as RequestBody from "./RequestBody.js"

// `exact`: JSON has no undefined, and accepting it would add "Expected undefined" to every refusal of the field.
const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

const withDefault = <S extends Schema.Schema.Any>(schema: S, value: () => Schema.Schema.Type<S>) =>
  Schema.optionalWith(schema, { exact: true, default: value })

// Heartbeat durations are whole seconds (only a check timeout takes fractions), at most the spec's 30 days.
const thirtyDays = 30 * 24 * 60 * 60

const seconds = (min: number, max: number) => Schema.Int.pipe(Schema.between(min, max))

// A probe timeout is fractional seconds, above 0 (a zero timeout could never succeed) and at most 60 s: a target
// silent for a minute is down by any reading, and a longer wait would hold a probe's per-host slot for minutes.
const probeTimeout = Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(60))

const timeout = withDefault(probeTimeout, () => 10)

// Warning windows in whole days. A year is the widest window anyone renews against; 0 is meaningful for
// critical_days (down only once expired).
const days = Schema.Int.pipe(Schema.between(0, 365))

// Addresses and selectors name something to reach or find; an empty one can only be a mistake.
const name = Schema.NonEmptyString

/**
 * Which address family a probe dials: `any` races IPv6 against IPv4.
 *
 * @since 0.1.0
 * @category models
 */
export const IpVersion = Schema.Literal("any", "ipv4", "ipv6")

/**
 * The decoded form of {@link IpVersion}.
 *
 * @since 0.1.0
 * @category models
 */
export type IpVersion = typeof IpVersion.Type

const ipVersion = withDefault(IpVersion, () => "any" as const)

/**
 * The request methods an http check may send.
 *
 * @since 0.1.0
 * @category models
 */
export const HttpMethod = Schema.Literal("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")

/**
 * The decoded form of {@link HttpMethod}.
 *
 * @since 0.1.0
 * @category models
 */
export type HttpMethod = typeof HttpMethod.Type

/**
 * One HTTP status code.
 *
 * @since 0.1.0
 * @category models
 */
export const StatusCode = Schema.Int.pipe(Schema.between(100, 599))

/**
 * A status class: `"2xx"` accepts 200 to 299.
 *
 * @since 0.1.0
 * @category models
 */
export const StatusClass = Schema.Literal("1xx", "2xx", "3xx", "4xx", "5xx")

/**
 * An inclusive range of status codes, low first: `"200-399"`.
 *
 * @since 0.1.0
 * @category models
 */
export const StatusRange = Schema.String.pipe(
  Schema.pattern(/^[1-5]\d\d-[1-5]\d\d$/),
  Schema.filter((range) => Number(range.slice(0, 3)) <= Number(range.slice(4)) || "the low code comes first")
)

/**
 * The statuses an http check counts as up: a code, a list of codes, a class or a range.
 *
 * @since 0.1.0
 * @category models
 */
export const ExpectedStatus = Schema.Union(
  StatusCode,
  Schema.Array(StatusCode).pipe(Schema.minItems(1)),
  StatusClass,
  StatusRange
).annotations({
  // The members' own messages would report only the first alternative tried ("Expected number"); one sentence
  // naming every accepted form tells the caller what to send instead.
  message: () => ({
    message:
      'must be a status code from 100 to 599, a non-empty list of them, a class such as "2xx" or a range such as "200-399"',
    override: true
  })
})

/**
 * The decoded form of {@link ExpectedStatus}.
 *
 * @since 0.1.0
 * @category models
 */
export type ExpectedStatus = typeof ExpectedStatus.Type

/**
 * Credentials an http check sends as `Authorization: Basic`.
 *
 * @since 0.1.0
 * @category models
 */
export const BasicAuth = RequestBody.Struct({
  username: Schema.String,
  password: Schema.String
}).annotations({ identifier: "BasicAuth" })

/**
 * The decoded form of {@link BasicAuth}.
 *
 * @since 0.1.0
 * @category models
 */
export type BasicAuth = typeof BasicAuth.Type

/**
 * An HTTP request whose answer must match the expected status and, optionally, contain a text.
 *
 * @since 0.1.0
 * @category models
 */
export const HttpCheck = RequestBody.Struct({
  type: Schema.Literal("http"),
  url: name,
  method: withDefault(HttpMethod, () => "GET" as const),
  // Header names are the caller's to choose, so the map is not a strict struct.
  headers: withDefault(Schema.Record({ key: Schema.String, value: Schema.String }), () => ({})),
  body: optional(Schema.String),
  expected_status: withDefault(ExpectedStatus, () => "2xx"),
  expected_body_contains: optional(Schema.String),
  follow_redirects: withDefault(Schema.Boolean, () => true),
  verify_tls: withDefault(Schema.Boolean, () => true),
  // The redaction sentinel is accepted here only so a write that echoes a GET gets 400 REDACTION_SENTINEL
  // (Target.sentinelField) rather than a type error.
  basic_auth: withDefault(Schema.NullOr(Schema.Union(BasicAuth, Schema.Literal("***"))), () => null),
  bearer_token: withDefault(Schema.NullOr(Schema.String), () => null),
  timeout,
  ip_version: ipVersion
}).annotations({ identifier: "HttpCheck" })

/**
 * The decoded form of {@link HttpCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type HttpCheck = typeof HttpCheck.Type

/**
 * A TCP connection that must open.
 *
 * @since 0.1.0
 * @category models
 */
export const TcpCheck = RequestBody.Struct({
  type: Schema.Literal("tcp"),
  host: name,
  port: Schema.Int.pipe(Schema.between(1, 65535)),
  timeout,
  ip_version: ipVersion
}).annotations({ identifier: "TcpCheck" })

/**
 * The decoded form of {@link TcpCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type TcpCheck = typeof TcpCheck.Type

/**
 * An ICMP echo that must be answered.
 *
 * @since 0.1.0
 * @category models
 */
export const PingCheck = RequestBody.Struct({
  type: Schema.Literal("ping"),
  host: name,
  timeout
}).annotations({ identifier: "PingCheck" })

/**
 * The decoded form of {@link PingCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type PingCheck = typeof PingCheck.Type

/**
 * The record types a dns check may query.
 *
 * @since 0.1.0
 * @category models
 */
export const DnsRecordType = Schema.Literal("A", "AAAA", "CNAME", "MX", "NS", "TXT", "SOA", "PTR", "CAA", "SRV")

/**
 * The decoded form of {@link DnsRecordType}.
 *
 * @since 0.1.0
 * @category models
 */
export type DnsRecordType = typeof DnsRecordType.Type

/**
 * A DNS query whose answer must be non-empty and, optionally, contain a value or equal a set.
 *
 * @since 0.1.0
 * @category models
 */
export const DnsCheck = RequestBody.Struct({
  type: Schema.Literal("dns"),
  // Kept as sent: the spec tolerates surrounding whitespace and a trailing dot, so the dns rules normalise it.
  domain: name,
  record_type: DnsRecordType,
  resolver: optional(name),
  expected_contains: optional(Schema.String),
  // At most 50 values of at most 2048 characters: a dns rule (`DnsRules`), 400 INVALID_DNS_PARAMS like the others.
  expected_records: optional(Schema.Array(Schema.String)),
  timeout
}).annotations({ identifier: "DnsCheck" })

/**
 * The decoded form of {@link DnsCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type DnsCheck = typeof DnsCheck.Type

/**
 * A TLS handshake whose leaf certificate must not expire within the warning windows.
 *
 * @since 0.1.0
 * @category models
 */
export const TlsCertCheck = RequestBody.Struct({
  type: Schema.Literal("tls_cert"),
  host: name,
  port: withDefault(Schema.Int.pipe(Schema.between(1, 65535)), () => 443),
  server_name: optional(name),
  warn_days: withDefault(days, () => 21),
  critical_days: withDefault(days, () => 7),
  timeout,
  ip_version: ipVersion
}).annotations({ identifier: "TlsCertCheck" })

/**
 * The decoded form of {@link TlsCertCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type TlsCertCheck = typeof TlsCertCheck.Type

/**
 * A domain registration, read over RDAP, that must not expire within the warning windows.
 *
 * @since 0.1.0
 * @category models
 */
export const DomainExpiryCheck = RequestBody.Struct({
  type: Schema.Literal("domain_expiry"),
  domain: name,
  warn_days: withDefault(days, () => 30),
  critical_days: withDefault(days, () => 7)
}).annotations({ identifier: "DomainExpiryCheck" })

/**
 * The decoded form of {@link DomainExpiryCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type DomainExpiryCheck = typeof DomainExpiryCheck.Type

/**
 * Navigate the browser to a URL.
 *
 * @since 0.1.0
 * @category models
 */
export const GotoStep = RequestBody.Struct({
  action: Schema.Literal("goto"),
  url: name
}).annotations({ identifier: "GotoStep" })

/**
 * Type a value into a field; the value may be empty, to clear the field.
 *
 * @since 0.1.0
 * @category models
 */
export const FillStep = RequestBody.Struct({
  action: Schema.Literal("fill"),
  selector: name,
  value: Schema.String
}).annotations({ identifier: "FillStep" })

/**
 * Click an element.
 *
 * @since 0.1.0
 * @category models
 */
export const ClickStep = RequestBody.Struct({
  action: Schema.Literal("click"),
  selector: name
}).annotations({ identifier: "ClickStep" })

/**
 * Wait until an element appears.
 *
 * @since 0.1.0
 * @category models
 */
export const WaitForStep = RequestBody.Struct({
  action: Schema.Literal("wait_for"),
  selector: name
}).annotations({ identifier: "WaitForStep" })

/**
 * Require a text on the page, or inside one element when `selector` is set.
 *
 * @since 0.1.0
 * @category models
 */
export const AssertTextStep = RequestBody.Struct({
  action: Schema.Literal("assert_text"),
  // An empty text would match every page, so the assert a flow must carry would assert nothing.
  text: Schema.NonEmptyString,
  selector: withDefault(Schema.NullOr(name), () => null)
}).annotations({ identifier: "AssertTextStep" })

/**
 * Require the current URL to contain a text.
 *
 * @since 0.1.0
 * @category models
 */
export const AssertUrlStep = RequestBody.Struct({
  action: Schema.Literal("assert_url"),
  contains: Schema.NonEmptyString
}).annotations({ identifier: "AssertUrlStep" })

/**
 * One step of a flow, told apart by `action`.
 *
 * @since 0.1.0
 * @category models
 */
export const FlowStep = Schema.Union(
  GotoStep,
  FillStep,
  ClickStep,
  WaitForStep,
  AssertTextStep,
  AssertUrlStep
).annotations({
  identifier: "FlowStep"
})

/**
 * The decoded form of {@link FlowStep}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type FlowStep = typeof FlowStep.Type

/**
 * A scripted browser session whose steps must all pass.
 *
 * @since 0.1.0
 * @category models
 */
export const FlowCheck = RequestBody.Struct({
  type: Schema.Literal("flow"),
  start_url: name,
  steps: Schema.Array(FlowStep).pipe(Schema.minItems(1), Schema.maxItems(30)),
  // A browser run loads pages and waits on selectors, so its cap is wider than a probe's (decisions.md): 60 s by
  // default, at most 120 s, well inside the kind's 300 s interval floor so one run ends before the next is due.
  timeout: withDefault(Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(120)), () => 60),
  // Each selector wait: 10 s by default, at most 60 s.
  step_timeout: withDefault(probeTimeout, () => 10),
  verify_tls: withDefault(Schema.Boolean, () => true)
}).annotations({ identifier: "FlowCheck" })

/**
 * The decoded form of {@link FlowCheck}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type FlowCheck = typeof FlowCheck.Type

/**
 * A job that pings Signalman; down when no ping arrives within `period` + `grace` seconds.
 *
 * @since 0.1.0
 * @category models
 */
export const HeartbeatCheck = RequestBody.Struct({
  type: Schema.Literal("heartbeat"),
  period: seconds(60, thirtyDays),
  grace: seconds(0, thirtyDays),
  max_runtime: optional(seconds(60, thirtyDays))
}).annotations({ identifier: "HeartbeatCheck" })

/**
 * The decoded form of {@link HeartbeatCheck}.
 *
 * @since 0.1.0
 * @category models
 */
export type HeartbeatCheck = typeof HeartbeatCheck.Type

/**
 * A status set by hand; nothing is probed.
 *
 * @since 0.1.0
 * @category models
 */
export const ManualCheck = RequestBody.Struct({
  type: Schema.Literal("manual")
}).annotations({ identifier: "ManualCheck" })

/**
 * The decoded form of {@link ManualCheck}.
 *
 * @since 0.1.0
 * @category models
 */
export type ManualCheck = typeof ManualCheck.Type

/**
 * The name of every kind of check.
 *
 * @since 0.1.0
 * @category models
 */
export const CheckKind = Schema.Literal(
  "http",
  "tcp",
  "ping",
  "dns",
  "tls_cert",
  "domain_expiry",
  "flow",
  "heartbeat",
  "manual"
).annotations({ identifier: "CheckKind" })

/**
 * The decoded form of {@link CheckKind}.
 *
 * @since 0.1.0
 * @category models
 */
export type CheckKind = typeof CheckKind.Type

/**
 * A check of any kind. Decoding reads `type` first and tries only that kind, so the issues name that kind's
 * fields and never another's.
 *
 * @since 0.1.0
 * @category models
 */
export const CheckSpec = Schema.Union(
  HttpCheck,
  TcpCheck,
  PingCheck,
  DnsCheck,
  TlsCertCheck,
  DomainExpiryCheck,
  FlowCheck,
  HeartbeatCheck,
  ManualCheck
).annotations({ identifier: "CheckSpec" })

/**
 * The decoded form of {@link CheckSpec}, defaults filled in.
 *
 * @since 0.1.0
 * @category models
 */
export type CheckSpec = typeof CheckSpec.Type
