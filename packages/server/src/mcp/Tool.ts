/**
 * An MCP tool: a name and a description for the model, its arguments as an Effect Schema (shown to the client as
 * JSON Schema, decoded with the same schema), the REST endpoint whose rules it follows (its scope is that
 * endpoint's, as the contract declares it), and what it runs. A tool's answer is its output encoded by the
 * contract's schema, as the REST endpoint would answer it; a refusal is the API's error envelope, marked as a tool
 * error.
 */
import type { HttpMethod } from "@effect/platform/HttpMethod"
import * as ApiError from "@signalman/core/ApiError"
import * as DecodeFailure from "@signalman/core/DecodeFailure"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { currentRequestId } from "../http/RequestContext.js"

/** A JSON object, as MCP carries arguments and structured results. */
export type JsonObject = { readonly [key: string]: unknown }

/** The REST endpoint a tool stands for: its method and its path as the contract declares it. */
export interface Endpoint {
  readonly method: HttpMethod
  readonly path: string
}

/** What a call came to: the structured answer, and whether it is a refusal. */
export interface Outcome {
  readonly isError: boolean
  readonly structured: JsonObject
}

/** A tool with its types settled: what the MCP server lists and calls. */
export interface Tool<R> {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly endpoint: Endpoint
  /** Whether the tool changes anything (MCP's `readOnlyHint` is its negation). */
  readonly writes: boolean
  /** The arguments' JSON Schema, an object schema as MCP requires. */
  readonly inputSchema: JsonObject & { readonly type: "object" }
  /** Decodes the arguments, runs, and encodes the answer or the refusal; never fails. */
  readonly call: (args: unknown) => Effect.Effect<Outcome, never, R>
}

/** The arguments object a tool takes; unknown keys are refused and every problem is reported. */
export const Arguments = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error", errors: "all" } })

const isObjectSchema = (json: unknown): json is JsonObject & { readonly type: "object" } =>
  typeof json === "object" && json !== null && "type" in json && json.type === "object"

/** The arguments' JSON Schema without the `$schema` line, which MCP clients neither need nor all accept. */
const inputSchemaOf = (schema: Schema.Schema.AnyNoContext): JsonObject & { readonly type: "object" } => {
  const { $schema: _, ...json } = JSONSchema.make(schema)
  if (!isObjectSchema(json)) throw new Error("A tool's arguments must be an object schema")
  return json
}

/** The API's error envelope as a tool's structured answer, stamped with the request id. */
export const refusal = (error: ApiError.ApiError): Effect.Effect<Outcome> =>
  Effect.map(currentRequestId, (traceId) => ({
    isError: true,
    structured: ApiError.toEnvelope(error, traceId)
  }))

/** A tool's definition, its types checked against each other here and settled in the `Tool` it makes. */
export const make = <I, II, O, OI extends JsonObject, R>(definition: {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly endpoint: Endpoint
  readonly writes?: boolean
  readonly input: Schema.Schema<I, II>
  readonly output: Schema.Schema<O, OI>
  readonly run: (input: I) => Effect.Effect<O, ApiError.ApiError, R>
}): Tool<R> => {
  const decode = Schema.decodeUnknown(definition.input)
  const encode = Schema.encode(definition.output)
  return {
    name: definition.name,
    title: definition.title,
    description: definition.description,
    endpoint: definition.endpoint,
    writes: definition.writes ?? false,
    inputSchema: inputSchemaOf(definition.input),
    call: (args) =>
      decode(args ?? {}).pipe(
        Effect.mapError((error) =>
          DecodeFailure.toApiError(ParseResult.ArrayFormatter.formatErrorSync(error), "arguments")
        ),
        Effect.flatMap(definition.run),
        // The answer is encoded as the REST endpoint encodes it; a value that does not encode is our defect.
        Effect.flatMap((output) => Effect.orDie(encode(output))),
        Effect.matchEffect({
          onFailure: refusal,
          onSuccess: (structured) => Effect.succeed<Outcome>({ isError: false, structured })
        }),
        // A defect is logged with its cause and answered as the API answers one (500 INTERNAL_ERROR there), never
        // with its message, which the SDK would otherwise pass to the client.
        Effect.catchAllCause((cause) =>
          Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause)
            : Effect.zipRight(
                Effect.logError("MCP tool failed", cause).pipe(Effect.annotateLogs({ tool: definition.name })),
                refusal(ApiError.make("INTERNAL_ERROR", "Something went wrong on our side"))
              )
        )
      )
  }
}
