/**
 * Whether this process exports traces, read from the OpenTelemetry environment variables as the OTel specification
 * names them (not from Signalman's own settings: an operator's collector setup is the same for every service).
 *
 * Tracing is on when `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or `OTEL_EXPORTER_OTLP_ENDPOINT` is set, unless
 * `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`. Only OTLP over HTTP with JSON bodies is built in, so a
 * protocol or exporter asked for that is not (grpc, http/protobuf, zipkin, console) refuses the start with a line
 * saying so, rather than exporting nothing in silence. Everything else the exporter and the SDK read themselves
 * from the same environment (the endpoint, `OTEL_EXPORTER_OTLP_HEADERS`, timeouts, `OTEL_BSP_*`), and the service's
 * resource comes from `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES` (`TracingLayer`).
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as TraceSampler from "./TraceSampler.js"

/** What a process that traces needs to know beyond what the exporter reads itself. */
export interface Settings {
  /** The traces endpoint, for the start-up line (the exporter reads it again from the same variable). */
  readonly endpoint: string
  readonly sampler: TraceSampler.Choice
}

// Every variable is optional text; an empty one counts as unset (OTel spec, "Configuration").
const Env = Schema.Struct({
  OTEL_SDK_DISABLED: Schema.optional(Schema.String),
  OTEL_TRACES_EXPORTER: Schema.optional(Schema.String),
  OTEL_EXPORTER_OTLP_ENDPOINT: Schema.optional(Schema.String),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Schema.optional(Schema.String),
  OTEL_EXPORTER_OTLP_PROTOCOL: Schema.optional(Schema.String),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: Schema.optional(Schema.String),
  OTEL_TRACES_SAMPLER: Schema.optional(Schema.String),
  OTEL_TRACES_SAMPLER_ARG: Schema.optional(Schema.String)
})
const decodeEnv = Schema.decodeUnknownSync(Env)

const value = (raw: string | undefined): string | undefined => {
  const trimmed = raw?.trim()
  return trimmed === undefined || trimmed === "" ? undefined : trimmed
}

/** Where the exporter will send: the per-signal variable is used as is, the general one gets `/v1/traces`. */
const endpointOf = (env: typeof Env.Type): string | undefined => {
  const traces = value(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  if (traces !== undefined) return traces
  const general = value(env.OTEL_EXPORTER_OTLP_ENDPOINT)
  return general === undefined ? undefined : `${general.replace(/\/+$/, "")}/v1/traces`
}

/**
 * The tracing settings of an environment: `null` when tracing is off, or the message of a variable that asks for
 * something this build cannot do.
 */
export const fromEnv = (raw: Readonly<Record<string, string | undefined>>): Either.Either<Settings | null, string> => {
  const env = decodeEnv(raw, { onExcessProperty: "ignore" })
  if (value(env.OTEL_SDK_DISABLED)?.toLowerCase() === "true") return Either.right(null)
  const exporters = (value(env.OTEL_TRACES_EXPORTER) ?? "otlp").split(",").map((e) => e.trim().toLowerCase())
  if (exporters.includes("none")) return Either.right(null)
  const endpoint = endpointOf(env)
  if (endpoint === undefined) return Either.right(null)
  const unsupported = exporters.filter((e) => e !== "otlp")
  if (unsupported.length > 0) {
    return Either.left(`OTEL_TRACES_EXPORTER=${unsupported.join(",")} is not supported; use otlp (or none)`)
  }
  const protocolOf = URL.canParse(endpoint) ? new URL(endpoint).protocol : undefined
  if (protocolOf !== "http:" && protocolOf !== "https:") {
    return Either.left(`the OTLP traces endpoint ${endpoint} is not an http:// or https:// URL`)
  }
  const protocol = value(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? value(env.OTEL_EXPORTER_OTLP_PROTOCOL)
  if (protocol !== undefined && protocol !== "http/json") {
    const name = value(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) === undefined ? "" : "TRACES_"
    return Either.left(`OTEL_EXPORTER_OTLP_${name}PROTOCOL=${protocol} is not supported; traces are sent as http/json`)
  }
  return Either.map(
    TraceSampler.fromEnv(value(env.OTEL_TRACES_SAMPLER), value(env.OTEL_TRACES_SAMPLER_ARG)),
    (sampler): Settings => ({ endpoint, sampler })
  )
}
