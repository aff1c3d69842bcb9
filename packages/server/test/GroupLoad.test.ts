import { describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as GroupLoad from "../src/heartbeats/GroupLoad.js"

/** A load the test finishes by hand, recording the keys of each call. */
const manual = () => {
  const calls: Array<ReadonlyArray<string>> = []
  const pending: Array<{ resolve: (found: ReadonlyMap<string, number>) => void; reject: (e: unknown) => void }> = []
  const load: GroupLoad.Load<string, number> = (keys) =>
    new Promise((resolve, reject) => {
      calls.push(keys)
      pending.push({ resolve, reject })
    })
  return { calls, pending, load }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("GroupLoad", () => {
  it.effect("the first key loads alone at once; keys asked meanwhile go together in the next load", () =>
    Effect.promise(async () => {
      const { calls, pending, load } = manual()
      const group = GroupLoad.make(load)
      const first = group.get("a")
      expect(calls).toEqual([["a"]])
      const later = [group.get("b"), group.get("c"), group.get("b")]
      await settle()
      expect(calls.length).toBe(1)
      pending[0]?.resolve(new Map([["a", 1]]))
      expect(await first).toBe(1)
      await settle()
      expect(calls).toEqual([["a"], ["b", "c"]])
      pending[1]?.resolve(new Map([["b", 2]]))
      // A key the load did not find is undefined; a key asked twice is loaded once and answers both.
      expect(await Promise.all(later)).toEqual([2, undefined, 2])
    })
  )

  it.effect("a failed load rejects its own callers only; the next group loads", () =>
    Effect.promise(async () => {
      const { calls, pending, load } = manual()
      const group = GroupLoad.make(load)
      const failing = group.get("a")
      const next = group.get("b")
      pending[0]?.reject(new Error("database gone"))
      await expect(failing).rejects.toThrow("database gone")
      await settle()
      expect(calls).toEqual([["a"], ["b"]])
      pending[1]?.resolve(new Map([["b", 7]]))
      expect(await next).toBe(7)
      // Quiet again: the next key goes at once.
      void group.get("c")
      expect(calls.length).toBe(3)
    })
  )
})
