/**
 * The contract read at run time: for every endpoint a client offers, where it sits (`Layout.ts`), how its request
 * is made (method, path parameters, query keys, body kind) and how its answers decode (core's schemas, by status).
 * Built once, on first use, by reflecting `SignalmanApi`: a new endpoint in the contract is a new method with no
 * change here.
 *
 * @internal
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { place } from "../Layout.js"

/**
 * A success body read: the decoded value, or why it does not match the contract.
 *
 * @internal
 */
export type Decode = (body: Uint8Array) => Either.Either<unknown, string>

/**
 * One endpoint as a client calls it.
 *
 * @internal
 */
export interface EndpointPlan {
  /** The namespace on the client; null for the top level. */
  readonly namespace: string | null
  /** The method's name in its namespace. */
  readonly name: string
  /** `group.endpoint` in the contract, for messages. */
  readonly id: string
  /** The HTTP method. */
  readonly method: string
  /** The path with its `:parameters`, prefix included. */
  readonly path: string
  /** The path's parameters in order. */
  readonly pathParams: ReadonlyArray<string>
  /** The query's keys as the URL carries them; undefined when the endpoint takes no query. */
  readonly queryKeys: ReadonlySet<string> | undefined
  /** How the body travels; undefined when the endpoint takes none. */
  readonly body: "json" | "multipart" | undefined
  /** How each success status decodes. */
  readonly successes: ReadonlyMap<number, Decode>
  /** A list answering `{ data, total, limit, offset }` to a query with `offset`: the client pages through it. */
  readonly paginated: boolean
}

const PARAM = /:(\w+)/g

const keysOf = (ast: AST.AST): ReadonlyArray<string> =>
  AST.getPropertySignatures(ast).flatMap(({ name }) => (typeof name === "string" ? [name] : []))

const decoder = (ast: Option.Option<AST.AST>): Decode => {
  if (Option.isNone(ast)) return () => Either.right(undefined)
  const schema = Schema.make(ast.value)
  const decode = Schema.decodeUnknownEither(schema, { errors: "all" })
  const issue = (error: ParseResult.ParseError) => ParseResult.TreeFormatter.formatErrorSync(error)
  switch (HttpApiSchema.getEncoding(ast.value).kind) {
    case "Uint8Array":
      return (body) => Either.mapLeft(decode(body), issue)
    case "Text":
      return (body) => Either.mapLeft(decode(new TextDecoder().decode(body)), issue)
    default:
      return (body) => {
        const text = new TextDecoder().decode(body)
        let json: unknown
        try {
          json = text === "" ? undefined : JSON.parse(text)
        } catch {
          return Either.left("the body is not JSON")
        }
        return Either.mapLeft(decode(json), issue)
      }
  }
}

const PAGE_KEYS = ["data", "total", "limit", "offset"]

const build = (): ReadonlyArray<EndpointPlan> => {
  const plans: Array<EndpointPlan> = []
  HttpApi.reflect(SignalmanApi, {
    onGroup() {},
    onEndpoint({ group, endpoint, payloads, successes }) {
      const placed = place(group.identifier, endpoint.name)
      if (placed === null) return
      const queryKeys = Option.map(endpoint.urlParamsSchema, (schema) => new Set(keysOf(AST.encodedAST(schema.ast))))
      const firstSuccess = [...successes.values()][0]?.ast ?? Option.none()
      const pageShaped = Option.match(firstSuccess, {
        onNone: () => false,
        onSome: (ast) => PAGE_KEYS.every((key) => keysOf(ast).includes(key))
      })
      plans.push({
        ...placed,
        id: `${group.identifier}.${endpoint.name}`,
        method: endpoint.method,
        path: endpoint.path,
        pathParams: [...endpoint.path.matchAll(PARAM)].map((match) => match[1] ?? ""),
        queryKeys: Option.getOrUndefined(queryKeys),
        body: payloads.has("multipart/form-data") ? "multipart" : payloads.size > 0 ? "json" : undefined,
        successes: new Map([...successes].map(([status, { ast }]) => [status, decoder(ast)])),
        paginated: pageShaped && Option.exists(queryKeys, (keys) => keys.has("offset"))
      })
    }
  })
  return plans
}

let cached: ReadonlyArray<EndpointPlan> | undefined

/**
 * Every endpoint a client offers.
 *
 * @internal
 */
export const plans = (): ReadonlyArray<EndpointPlan> => {
  cached ??= build()
  return cached
}
