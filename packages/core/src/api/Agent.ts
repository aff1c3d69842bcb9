/**
 * The probe agents' surface (`/api/agent/v1/*`, bearer `sm_agent_...`): what an agent and the server say to each
 * other, shared by both sides so neither can drift (DESIGN.md, "Agents"; decisions.md, "Regions, probe agents and
 * browser flows").
 *
 * The conversation:
 * 1. `POST /api/agent/v1/hello` with the agent's version and capabilities. A bad or revoked token is 401
 *    `UNAUTHENTICATED`: the agent stops with one line and a non-zero exit. The answer names the agent, its region and
 *    the lease and polling figures the server wants.
 * 2. `GET /api/agent/v1/stream`, upgraded to a WebSocket with the same bearer, carries the work: the agent asks for
 *    jobs with `pull` (how many it has room for), the server answers `jobs` (leased to this agent, each at most
 *    `lease_secs` past its due time); the agent sends `results` as its checks end and the server answers `ack` with
 *    the ids it has stored (or had stored before). A `draining` agent gets no more jobs. The server closes the socket
 *    with code 4401 when the token is revoked.
 * 3. `POST /api/agent/v1/results` takes the same results over plain HTTP (an agent delivering its buffer while its
 *    socket is down, or draining).
 * 4. One-off checks (`POST /targets/test` with a `region`, check-now in every region of a monitor): the server pushes
 *    `one_off` on the stream, unasked, with checks to run at once; the agent answers each with `one_off_results`, and
 *    the server answers `ack` with the ids it has taken. These messages are additions to the first protocol: an agent
 *    that does not know `one_off` logs it as unreadable and runs nothing, and the person waiting is answered when
 *    the run's time is up.
 *
 * Each result carries an id the agent assigns when the check ends, so a result sent twice (the ack was lost, the
 * agent reconnected) is stored once; a slot run twice (a lease lapsed and a sibling ran it too) is stored once as well.
 *
 * @since 0.1.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { CheckStatus, Phases } from "../CheckResult.js"
import { CheckSpec } from "../CheckSpec.js"

/**
 * The path of the WebSocket, under the group's prefix.
 *
 * @since 0.1.0
 * @category constants
 */
export const STREAM_PATH = "/api/agent/v1/stream"

/**
 * The close code the server ends a stream with when the agent's token stops being valid (revoked, or its region
 * deleted): the agent stops, as for a 401 on `hello`.
 *
 * @since 0.1.0
 * @category constants
 */
export const CLOSE_UNAUTHENTICATED = 4401

/**
 * The most results one `results` message or request may carry.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_RESULTS_PER_BATCH = 1000

/**
 * The most jobs one `pull` may ask for.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_PULL = 1000

/**
 * What an agent says of itself when it connects.
 *
 * @since 0.1.0
 * @category models
 */
export class Hello extends Schema.Class<Hello>("AgentHello")({
  /** The agent's package version. */
  version: Schema.String.pipe(Schema.maxLength(64)),
  /** The browser it runs flows with (`Chromium 153.0.0`), null when it has none (`AGENT__BROWSER_PATH=none`). */
  browser: Schema.NullOr(Schema.String.pipe(Schema.maxLength(200))),
  /** `AGENT__CONCURRENCY`: checks it runs at once. */
  concurrency: Schema.Int.pipe(Schema.between(1, 100_000))
}) {}

/**
 * The server's answer to {@link Hello}.
 *
 * @since 0.1.0
 * @category models
 */
export class Welcome extends Schema.Class<Welcome>("AgentWelcome")({
  agent_id: Schema.UUID,
  name: Schema.String,
  region: Schema.String,
  /** The server's version. */
  server_version: Schema.String,
  /** How long past its due time a job stays leased to the agent: after that a sibling may run it. */
  lease_secs: Schema.Number,
  /** How often an agent with room should pull. */
  poll_ms: Schema.Number,
  /** How far ahead of their due time jobs are handed out, so each can start on time. */
  lookahead_ms: Schema.Number
}) {}

/**
 * One leased check. `check` is ready to run (variables filled, sealed credentials opened, address rules applied on
 * the server); when the server could not make it ready, `check` is null and `error` says why, and the agent reports
 * that error as the run's result at its due time, as the server's own scheduler does.
 *
 * @since 0.1.0
 * @category models
 */
export class Job extends Schema.Class<Job>("AgentJob")({
  target_id: Schema.UUID,
  org_id: Schema.UUID,
  /** The slot: the due time exactly as the server stores it, handed back with the result. */
  due: Schema.String,
  /** The due time in epoch milliseconds (the server's clock). */
  due_ms: Schema.Number,
  /** The lease's end in epoch milliseconds: a job not started by then is not run (a sibling may have taken it). */
  deadline_ms: Schema.Number,
  interval_secs: Schema.Int,
  check: Schema.NullOr(CheckSpec),
  error: Schema.NullOr(Schema.String)
}) {}

/**
 * A check to run once, now: a person is waiting for its outcome (`POST /targets/test` in the agent's region, or
 * check-now of a monitor that runs there). `check` is ready to run, as a leased job's; it is never written to a log.
 * The agent runs it at once (it has no due time), under the same runner and per-host throttle as its leased jobs.
 *
 * @since 0.2.0
 * @category models
 */
export class OneOffJob extends Schema.Class<OneOffJob>("AgentOneOffJob")({
  /** The run's id, handed back with its outcome: a run answered twice counts once. */
  id: Schema.UUID,
  org_id: Schema.UUID,
  /**
   * The latest the agent may start it, in epoch milliseconds of the server's clock: past it, the person asking would
   * stop waiting before the check could end, so it is answered with an `error` outcome saying it was not run.
   */
  deadline_ms: Schema.Number,
  check: CheckSpec
}) {}

/**
 * A failed flow's evidence: the PNG screenshot of the page at the failing step, base64 on the wire.
 *
 * @since 0.1.0
 * @category models
 */
export const Evidence = Schema.Struct({
  screenshot_png: Schema.Uint8ArrayFromBase64
}).annotations({ identifier: "AgentEvidence" })

/**
 * What one run found, stamped with when it ended on the agent.
 *
 * @since 0.1.0
 * @category models
 */
export const Outcome = Schema.Struct({
  checked_at: Schema.DateTimeUtc,
  status: CheckStatus,
  duration_ms: Schema.Number,
  error: Schema.NullOr(Schema.String),
  details: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  phases: Schema.NullOr(Phases),
  evidence: Schema.NullOr(Evidence)
}).annotations({ identifier: "AgentOutcome" })

/**
 * @since 0.1.0
 * @category models
 */
export type Outcome = typeof Outcome.Type

/**
 * A job's end. `outcome` is null when the job was not run (the per-host throttle dropped it, or it could not start
 * before its deadline): the server then only moves the slot on, as for its own scheduler.
 *
 * @since 0.1.0
 * @category models
 */
export class Result extends Schema.Class<Result>("AgentResult")({
  /** Assigned by the agent when the job ends: the key that makes a resent result count once. */
  id: Schema.UUID,
  target_id: Schema.UUID,
  /** The job's `due`, unchanged. */
  due: Schema.String,
  outcome: Schema.NullOr(Outcome)
}) {}

/**
 * A one-off job's end: always an outcome (a check the agent could not run, or not in time, is an `error` outcome
 * saying why), since someone is waiting for it.
 *
 * @since 0.2.0
 * @category models
 */
export class OneOffResult extends Schema.Class<OneOffResult>("AgentOneOffResult")({
  /** The {@link OneOffJob}'s `id`. */
  id: Schema.UUID,
  outcome: Outcome
}) {}

/**
 * A batch of results over HTTP.
 *
 * @since 0.1.0
 * @category models
 */
export const Results = Schema.Struct({
  results: Schema.Array(Result).pipe(Schema.maxItems(MAX_RESULTS_PER_BATCH))
}).annotations({ identifier: "AgentResults" })

/**
 * What the server did with a batch: `acknowledged` lists every id it now holds (stored by this batch or an earlier
 * one, or refused for good: a result for a monitor since deleted), so the agent can drop them from its buffer.
 *
 * @since 0.1.0
 * @category models
 */
export const Acknowledged = Schema.Struct({
  acknowledged: Schema.Array(Schema.UUID)
}).annotations({ identifier: "AgentAcknowledged" })

// The stream's messages.

/**
 * Agent to server: lease me up to `room` due jobs.
 *
 * @since 0.1.0
 * @category messages
 */
export const Pull = Schema.TaggedStruct("pull", {
  room: Schema.Int.pipe(Schema.between(0, MAX_PULL))
})

/**
 * Agent to server: results, as over HTTP.
 *
 * @since 0.1.0
 * @category messages
 */
export const Deliver = Schema.TaggedStruct("results", {
  results: Schema.Array(Result).pipe(Schema.maxItems(MAX_RESULTS_PER_BATCH))
})

/**
 * Agent to server: the outcomes of one-off jobs, answered with `ack` naming the run ids the server has taken (or
 * never will: a run whose person stopped waiting, or answered already).
 *
 * @since 0.2.0
 * @category messages
 */
export const DeliverOneOff = Schema.TaggedStruct("one_off_results", {
  results: Schema.Array(OneOffResult).pipe(Schema.maxItems(MAX_RESULTS_PER_BATCH))
})

/**
 * Agent to server: this agent is shutting down; lease it nothing more.
 *
 * @since 0.1.0
 * @category messages
 */
export const Draining = Schema.TaggedStruct("draining", {})

/**
 * Everything an agent may send on the stream.
 *
 * @since 0.1.0
 * @category messages
 */
export const AgentMessage = Schema.Union(Pull, Deliver, DeliverOneOff, Draining)

/**
 * @since 0.1.0
 * @category messages
 */
export type AgentMessage = typeof AgentMessage.Type

/**
 * Server to agent: the jobs leased for a `pull` (possibly none).
 *
 * @since 0.1.0
 * @category messages
 */
export const Jobs = Schema.TaggedStruct("jobs", {
  jobs: Schema.Array(Job)
})

/**
 * Server to agent, unasked: checks to run once, at once (see {@link OneOffJob}).
 *
 * @since 0.2.0
 * @category messages
 */
export const OneOff = Schema.TaggedStruct("one_off", {
  jobs: Schema.Array(OneOffJob)
})

/**
 * Server to agent: the ids of a `results` or `one_off_results` message the server now holds.
 *
 * @since 0.1.0
 * @category messages
 */
export const Ack = Schema.TaggedStruct("ack", {
  acknowledged: Schema.Array(Schema.UUID)
})

/**
 * Server to agent: a message could not be taken (it did not decode); `code` and `message` as in the API's errors.
 *
 * @since 0.1.0
 * @category messages
 */
export const Refused = Schema.TaggedStruct("refused", {
  code: Schema.String,
  message: Schema.String
})

/**
 * Everything the server may send on the stream.
 *
 * @since 0.1.0
 * @category messages
 */
export const ServerMessage = Schema.Union(Jobs, OneOff, Ack, Refused)

/**
 * @since 0.1.0
 * @category messages
 */
export type ServerMessage = typeof ServerMessage.Type

/**
 * The agent a request comes from, as its token names it.
 *
 * @since 0.1.0
 * @category models
 */
export interface AuthenticatedAgent {
  readonly id: string
  readonly name: string
  readonly region: string
  /** Whether its last hello reported a browser: only such agents are leased browser flows. */
  readonly flows: boolean
}

/**
 * @since 0.1.0
 * @category middleware
 */
export class CurrentAgent extends Context.Tag("Signalman/CurrentAgent")<CurrentAgent, AuthenticatedAgent>() {}

/**
 * A bad or revoked token, or one whose region is gone, is 401 `UNAUTHENTICATED`.
 *
 * @since 0.1.0
 * @category middleware
 */
export class AgentAuthentication extends HttpApiMiddleware.Tag<AgentAuthentication>()("Signalman/AgentAuthentication", {
  failure: ApiError.Wire.Unauthorized,
  provides: CurrentAgent
}) {}

/**
 * The HTTP half of the surface (the stream is upgraded outside the contract, at {@link STREAM_PATH}).
 *
 * @since 0.1.0
 * @category groups
 */
export class AgentApi extends HttpApiGroup.make("agent")
  .add(HttpApiEndpoint.post("hello", "/hello").setPayload(Hello).addSuccess(Welcome))
  .add(HttpApiEndpoint.post("results", "/results").setPayload(Results).addSuccess(Acknowledged))
  .middleware(AgentAuthentication)
  .prefix("/api/agent/v1")
  .annotate(OpenApi.Exclude, true) {}
