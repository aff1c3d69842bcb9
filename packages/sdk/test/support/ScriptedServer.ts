/**
 * A real HTTP server on loopback whose answers a test scripts, one handler per request in order (the last one
 * repeats), recording every request it got: what the client sent, and when.
 */
import * as Http from "node:http"

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** `performance.now()` when the request arrived. */
  readonly at: number
}

export type Handler = (request: Received, response: Http.ServerResponse) => void

export interface ScriptedServer {
  readonly url: string
  readonly received: ReadonlyArray<Received>
  readonly close: () => Promise<void>
}

/** Answers with JSON. */
export const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_, response) => {
    response.writeHead(status, { "content-type": "application/json", ...headers })
    response.end(JSON.stringify(body))
  }

/** Answers 204 with no body. */
export const noContent: Handler = (_, response) => {
  response.writeHead(204).end()
}

/** Answers with a body of some other type (a proxy's HTML page). */
export const raw =
  (status: number, contentType: string, body: string): Handler =>
  (_, response) => {
    response.writeHead(status, { "content-type": contentType }).end(body)
  }

/** The service's error envelope. */
export const envelope = (
  status: number,
  code: string,
  headers: Record<string, string> = {},
  extra: { field?: string | null; details?: Record<string, unknown>; trace_id?: string | null } = {}
): Handler =>
  json(
    status,
    {
      error: {
        code,
        message: `${code} from the script`,
        field: extra.field ?? null,
        details: extra.details ?? {},
        trace_id: extra.trace_id === undefined ? "trace-from-script" : extra.trace_id
      }
    },
    headers
  )

/** Cuts the connection without answering. */
export const hangUp: Handler = (_, response) => {
  response.socket?.destroy()
}

/** Never answers (until the server closes). */
export const silence: Handler = () => {}

export const start = async (script: ReadonlyArray<Handler>): Promise<ScriptedServer> => {
  const received: Array<Received> = []
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const got: Received = {
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: performance.now()
      }
      received.push(got)
      const handler = script[Math.min(received.length, script.length) - 1]
      if (handler === undefined) throw new Error("the script is empty")
      handler(got, response)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("the server has no TCP address")
  return {
    url: `http://127.0.0.1:${address.port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/** Runs `use` against a server playing `script`, closed afterwards whatever happens. */
export const using = async <A>(
  script: ReadonlyArray<Handler>,
  use: (server: ScriptedServer) => Promise<A>
): Promise<A> => {
  const server = await start(script)
  try {
    return await use(server)
  } finally {
    await server.close()
  }
}
