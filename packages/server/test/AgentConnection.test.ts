/**
 * One agent stream's conversation (`agents/Connection.ts`) on stand-in leases and ingest: refusals of frames that do
 * not decode, the bounds on what one connection may lease (the per-stream cap, draining, a disabled region, an
 * agent that does not read its answers), and one-off answers passed on and acknowledged.
 */
import { assert, describe, expect, it } from "@effect/vitest"
import { type AuthenticatedAgent, Job, OneOffJob, type OneOffResult, type Result } from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import * as Connection from "../src/agents/Connection.js"
import { Ingest } from "../src/agents/Ingest.js"
import { Leases } from "../src/agents/Leases.js"
import { OneOffAnswers } from "../src/agents/OneOffAnswers.js"

const agent: AuthenticatedAgent = {
  id: "01900000-0000-7000-8000-0000000000a1",
  name: "fra-1",
  region: "eu",
  flows: false
}

const job = (i: number, deadlineMs = Date.now() + 60_000) =>
  new Job({
    target_id: `01900000-0000-7000-8000-${String(i).padStart(12, "0")}`,
    org_id: "01900000-0000-7000-8000-0000000000b1",
    due: `2026-01-01 00:00:0${i % 10}+00`,
    due_ms: 0,
    deadline_ms: deadlineMs,
    interval_secs: 60,
    check: null,
    error: "unresolved variable"
  })

/** A connection whose leases hand out `available` (as many as asked) and whose ingest acknowledges everything. */
const setup = (
  options: { readonly maxLeased?: number; readonly backlog?: number; readonly deadlineMs?: number } = {}
) => {
  const asked: Array<number> = []
  let next = 0
  const leases = Leases.make({
    lease: (_agent, room) =>
      Effect.sync(() => {
        asked.push(room)
        return Array.from({ length: room }, () => job(next++, options.deadlineMs))
      })
  })
  // The size of each batch ingested.
  const ingested: Array<number> = []
  const ingestThen = (_agent: AuthenticatedAgent, results: ReadonlyArray<Result>) =>
    Effect.sync(() => {
      ingested.push(results.length)
      return { acknowledged: results.map((r) => r.id), afterwards: Effect.void }
    })
  const ingest = Ingest.make({
    ingestThen,
    ingest: (a, results) => Effect.map(ingestThen(a, results), (i) => i.acknowledged)
  })
  const answered: Array<ReadonlyArray<OneOffResult>> = []
  const oneOffs = OneOffAnswers.make({
    answer: (_agent, results) =>
      Effect.sync(() => {
        answered.push(results)
        return results.map((r) => r.id)
      })
  })
  const connection = Connection.make(agent, {
    leases,
    ingest,
    oneOffs,
    maxLeased: options.maxLeased ?? 1000,
    backlog: () => options.backlog ?? 0
  })
  const send = (message: unknown) => connection.receive({ _tag: "Text", text: JSON.stringify(message) })
  return { connection, asked, answered, ingested, send }
}

describe("an agent stream's conversation", () => {
  it.effect("a frame that is not JSON, binary, or not a message is refused; the stream goes on", () =>
    Effect.gen(function* () {
      const { connection, send } = setup()
      expect(yield* connection.receive({ _tag: "Text", text: "{oops" })).toEqual({
        _tag: "refused",
        code: "INVALID_JSON",
        message: "The frame is not JSON"
      })
      expect(yield* connection.receive({ _tag: "Binary" })).toMatchObject({ _tag: "refused", code: "INVALID_JSON" })
      const wrong = yield* send({ _tag: "pull", room: "ten" })
      expect(wrong).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
      expect(wrong?._tag === "refused" && wrong.message).toContain("room")
      expect(yield* send({ _tag: "pull", room: 1001 })).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
      expect(yield* send({ room: 1 })).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
      expect(yield* send({ _tag: "pull", room: 2 })).toMatchObject({ _tag: "jobs", jobs: [{}, {}] })
    })
  )

  it.effect("jobs leased and unanswered are bounded per stream; answering them makes room again", () =>
    Effect.gen(function* () {
      const { connection, asked, send } = setup({ maxLeased: 5 })
      const first = yield* send({ _tag: "pull", room: 3 })
      const second = yield* send({ _tag: "pull", room: 3 })
      expect(asked).toEqual([3, 2])
      expect(connection.leased()).toBe(5)
      expect(yield* send({ _tag: "pull", room: 3 })).toEqual({ _tag: "jobs", jobs: [] })
      const jobs = [...(first?._tag === "jobs" ? first.jobs : []), ...(second?._tag === "jobs" ? second.jobs : [])]
      const results = jobs.slice(0, 2).map((j) => ({
        id: crypto.randomUUID(),
        target_id: j.target_id,
        due: j.due,
        outcome: null
      }))
      expect(yield* send({ _tag: "results", results })).toEqual({
        _tag: "ack",
        acknowledged: results.map((r) => r.id)
      })
      expect(connection.leased()).toBe(3)
      yield* send({ _tag: "pull", room: 10 })
      expect(asked.at(-1)).toBe(2)
    })
  )

  it.effect("results messages taken together are one ingest and one ack naming every id; they free their jobs", () =>
    Effect.gen(function* () {
      const { connection, send, ingested } = setup({ maxLeased: 10 })
      const pulled = yield* send({ _tag: "pull", room: 4 })
      const jobs = pulled?._tag === "jobs" ? pulled.jobs : []
      expect(jobs.length).toBe(4)
      const resultOf = (j: (typeof jobs)[number]) => ({
        id: crypto.randomUUID(),
        target_id: j.target_id,
        due: j.due,
        outcome: null
      })
      const messages = [jobs.slice(0, 1), jobs.slice(1, 3)].map((part) => {
        const decoded = connection.decode({
          _tag: "Text",
          text: JSON.stringify({ _tag: "results", results: part.map(resultOf) })
        })
        assert(decoded._tag === "Message" && decoded.message._tag === "results")
        return decoded.message
      })
      const { answer } = yield* connection.deliver(messages)
      const ids = messages.flatMap((m) => m.results.map((r) => r.id))
      expect(answer).toEqual({ _tag: "ack", acknowledged: ids })
      expect(ingested).toEqual([ids.length])
      expect(connection.leased()).toBe(1)
      // A bad frame decodes to its refusal, with no message to handle.
      expect(connection.decode({ _tag: "Binary" })).toMatchObject({
        _tag: "Answer",
        answer: { _tag: "refused", code: "INVALID_JSON" }
      })
    })
  )

  it.effect("a lease that ran out stops counting against the bound", () =>
    Effect.gen(function* () {
      const { connection, asked, send } = setup({ maxLeased: 2, deadlineMs: Date.now() - 1 })
      yield* send({ _tag: "pull", room: 2 })
      expect(connection.leased()).toBe(2)
      yield* send({ _tag: "pull", room: 2 })
      expect(asked).toEqual([2, 2])
    })
  )

  it.effect("draining, a disabled region and an agent behind on reading get no jobs", () =>
    Effect.gen(function* () {
      const draining = setup()
      expect(yield* draining.send({ _tag: "draining" })).toBeUndefined()
      expect(yield* draining.send({ _tag: "pull", room: 5 })).toEqual({ _tag: "jobs", jobs: [] })
      expect(draining.asked).toEqual([])

      const disabled = setup()
      disabled.connection.setRegionEnabled(false)
      expect(yield* disabled.send({ _tag: "pull", room: 5 })).toEqual({ _tag: "jobs", jobs: [] })
      disabled.connection.setRegionEnabled(true)
      expect(yield* disabled.send({ _tag: "pull", room: 1 })).toMatchObject({ _tag: "jobs", jobs: [{}] })

      const behind = setup({ backlog: Connection.SEND_BACKLOG_BYTES + 1 })
      expect(yield* behind.send({ _tag: "pull", room: 5 })).toEqual({ _tag: "jobs", jobs: [] })
      expect(behind.asked).toEqual([])
    })
  )

  it.effect("one-off answers are passed on and acknowledged; a draining stream says so", () =>
    Effect.gen(function* () {
      const { connection, answered, send } = setup()
      const result = {
        id: crypto.randomUUID(),
        outcome: {
          checked_at: new Date().toISOString(),
          status: "up",
          duration_ms: 3,
          error: null,
          details: null,
          phases: null,
          evidence: null
        }
      }
      expect(yield* send({ _tag: "one_off_results", results: [result] })).toEqual({
        _tag: "ack",
        acknowledged: [result.id]
      })
      expect(answered.map((batch) => batch.map((r) => r.id))).toEqual([[result.id]])
      const bad = yield* send({ _tag: "one_off_results", results: [{ id: result.id, outcome: null }] })
      expect(bad).toMatchObject({ _tag: "refused", code: "VALIDATION_FAILED" })
      expect(answered).toHaveLength(1)
      expect(connection.draining()).toBe(false)
      yield* send({ _tag: "draining" })
      expect(connection.draining()).toBe(true)
    })
  )

  it.effect("answers encode as the protocol's messages", () =>
    Effect.gen(function* () {
      const text = yield* Connection.encode({ _tag: "jobs", jobs: [job(1)] })
      expect(JSON.parse(text)).toMatchObject({ _tag: "jobs", jobs: [{ error: "unresolved variable", check: null }] })
      const oneOff = new OneOffJob({
        id: "01900000-0000-7000-8000-0000000000c1",
        org_id: "01900000-0000-7000-8000-0000000000b1",
        deadline_ms: 1,
        check: { type: "tcp", host: "example.com", port: 443, timeout: 5, ip_version: "any" }
      })
      expect(JSON.parse(yield* Connection.encode({ _tag: "one_off", jobs: [oneOff] }))).toEqual({
        _tag: "one_off",
        jobs: [{ id: oneOff.id, org_id: oneOff.org_id, deadline_ms: 1, check: oneOff.check }]
      })
    })
  )
})
