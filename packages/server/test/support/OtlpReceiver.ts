/**
 * A loopback OTLP/HTTP traces receiver, as a collector would be: it takes `POST /v1/traces` with the JSON encoding
 * the exporter sends (`@opentelemetry/exporter-trace-otlp-http`), decodes every request with the schema of
 * `ExportTraceServiceRequest` (opentelemetry-proto's JSON mapping: ids as hex, 64-bit integers as strings or
 * numbers), keeps the spans flattened with their resource, and answers 200 `{}`. A body that does not decode is
 * answered 400 and counted, so a test sees an exporter sending something else.
 */
import * as Http from "node:http"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { eventually } from "./Eventually.js"

const AnyValue = Schema.Struct({
  stringValue: Schema.optional(Schema.String),
  boolValue: Schema.optional(Schema.Boolean),
  intValue: Schema.optional(Schema.Union(Schema.Number, Schema.NumberFromString)),
  doubleValue: Schema.optional(Schema.Number)
})
const KeyValue = Schema.Struct({ key: Schema.String, value: AnyValue })
const Attributes = Schema.optionalWith(Schema.Array(KeyValue), { default: () => [] })

const OtlpSpan = Schema.Struct({
  traceId: Schema.String,
  spanId: Schema.String,
  parentSpanId: Schema.optional(Schema.String),
  name: Schema.String,
  kind: Schema.Number,
  attributes: Attributes
})

/** `ExportTraceServiceRequest` in OTLP/JSON, as much of it as the tests read. */
export const ExportTraceServiceRequest = Schema.Struct({
  resourceSpans: Schema.Array(
    Schema.Struct({
      resource: Schema.Struct({ attributes: Attributes }),
      scopeSpans: Schema.Array(Schema.Struct({ spans: Schema.Array(OtlpSpan) }))
    })
  )
})
const decodeRequest = Schema.decodeUnknownEither(Schema.parseJson(ExportTraceServiceRequest))

export type AttributeValue = string | number | boolean

/** One received span, with its attributes and its resource's as plain records. */
export interface Span {
  readonly traceId: string
  readonly spanId: string
  /** Absent on a trace's root. */
  readonly parentSpanId: string | undefined
  readonly name: string
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client. */
  readonly kind: number
  readonly attributes: Readonly<Record<string, AttributeValue>>
  readonly resource: Readonly<Record<string, AttributeValue>>
}

/** OTLP's `SPAN_KIND_SERVER`. */
export const SERVER = 2

const flatten = (list: ReadonlyArray<typeof KeyValue.Type>): Record<string, AttributeValue> => {
  const out: Record<string, AttributeValue> = {}
  for (const { key, value } of list) {
    const v = value.stringValue ?? value.intValue ?? value.doubleValue ?? value.boolValue
    if (v !== undefined) out[key] = v
  }
  return out
}

export interface OtlpReceiver {
  /** The base URL, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string
  readonly spans: () => ReadonlyArray<Span>
  /** The headers of every export request, in order. */
  readonly headers: () => ReadonlyArray<Http.IncomingHttpHeaders>
  /** Requests whose body did not decode, and requests to another path or method. */
  readonly rejected: () => number
  /** Waits (bounded) until some received span satisfies `where`; answers the spans then received. */
  readonly waitFor: (where: (span: Span) => boolean, timeoutMs?: number) => Effect.Effect<ReadonlyArray<Span>>
}

export const make: Effect.Effect<OtlpReceiver, never, Scope.Scope> = Effect.gen(function* () {
  const spans: Array<Span> = []
  const headers: Array<Http.IncomingHttpHeaders> = []
  let rejected = 0
  const server = yield* Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<Http.Server>((resolve) => {
          const s = Http.createServer((request, response) => {
            const chunks: Array<Buffer> = []
            request.on("data", (chunk: Buffer) => chunks.push(chunk))
            request.on("end", () => {
              const decoded =
                request.method === "POST" && request.url === "/v1/traces"
                  ? decodeRequest(Buffer.concat(chunks).toString("utf8"))
                  : undefined
              if (decoded === undefined || decoded._tag === "Left") {
                rejected++
                response.writeHead(400, { "content-type": "application/json" }).end("{}")
                return
              }
              headers.push(request.headers)
              for (const { resource, scopeSpans } of decoded.right.resourceSpans) {
                const resourceAttributes = flatten(resource.attributes)
                for (const scope of scopeSpans) {
                  for (const span of scope.spans) {
                    spans.push({
                      traceId: span.traceId,
                      spanId: span.spanId,
                      parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
                      name: span.name,
                      kind: span.kind,
                      attributes: flatten(span.attributes),
                      resource: resourceAttributes
                    })
                  }
                }
              }
              response.writeHead(200, { "content-type": "application/json" }).end("{}")
            })
          })
          s.listen(0, "127.0.0.1", () => resolve(s))
        })
    ),
    (s) =>
      Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            s.closeAllConnections()
            s.close(() => resolve())
          })
      )
  )
  const address = server.address()
  if (address === null || typeof address === "string")
    return yield* Effect.dieMessage("the receiver has no TCP address")
  return {
    url: `http://127.0.0.1:${address.port}`,
    spans: () => spans,
    headers: () => headers,
    rejected: () => rejected,
    waitFor: (where, timeoutMs = 30_000) =>
      eventually(
        Effect.sync(() => [...spans]),
        (received) => received.some(where),
        { timeoutMs }
      )
  }
})

/** The spans of `traceId` under `root` (its children, theirs, ...), in the order received. */
export const descendants = (spans: ReadonlyArray<Span>, root: Span): ReadonlyArray<Span> => {
  const inTrace = spans.filter((s) => s.traceId === root.traceId)
  const found = new Set([root.spanId])
  let grew = true
  while (grew) {
    grew = false
    for (const span of inTrace) {
      if (span.parentSpanId !== undefined && found.has(span.parentSpanId) && !found.has(span.spanId)) {
        found.add(span.spanId)
        grew = true
      }
    }
  }
  return inTrace.filter((s) => s.spanId !== root.spanId && found.has(s.spanId))
}
