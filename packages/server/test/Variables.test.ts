import { describe, expect, it } from "@effect/vitest"
import type { OrgId } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import { Variables } from "../src/variables/Variables.js"

const org = "00000000-0000-7000-8000-000000000001" as OrgId
const other = "00000000-0000-7000-8000-000000000002" as OrgId

const failure = <A, E>(effect: Effect.Effect<A, E>) => Effect.flip(effect)

describe("Variables", () => {
  it.effect("a key that is not a lowercase identifier is 400 INVALID_VARIABLE_KEY on key, naming the pattern", () =>
    Effect.gen(function* () {
      const variables = yield* Variables
      for (const key of ["Bad", "1x", "a-b", `a${"b".repeat(63)}`]) {
        const error = yield* failure(variables.create(org, { key, is_secret: false, value: "v" }))
        expect(error.code).toBe("INVALID_VARIABLE_KEY")
        expect(error.field).toBe("key")
        expect(error.details).toHaveProperty("pattern")
      }
    }).pipe(Effect.provide(Variables.Test()))
  )

  it.effect("a key the org has already is 409 VARIABLE_KEY_EXISTS; another org may use it", () =>
    Effect.gen(function* () {
      const variables = yield* Variables
      yield* variables.create(org, { key: "api_host", is_secret: false, value: "a" })
      const error = yield* failure(variables.create(org, { key: "api_host", is_secret: false, value: "b" }))
      expect(error.code).toBe("VARIABLE_KEY_EXISTS")
      expect(error.field).toBe("key")
      const elsewhere = yield* variables.create(other, { key: "api_host", is_secret: false, value: "c" })
      expect(elsewhere.value).toBe("c")
    }).pipe(Effect.provide(Variables.Test()))
  )

  it.effect("a secret's value is null on create, get, list and rotate; a plain one reads back", () =>
    Effect.gen(function* () {
      const variables = yield* Variables
      const secret = yield* variables.create(org, { key: "token", is_secret: true, value: "s3cret" })
      const plain = yield* variables.create(org, { key: "host", is_secret: false, value: "example.com" })
      expect(secret.value).toBeNull()
      expect((yield* variables.get(org, secret.id)).value).toBeNull()
      expect((yield* variables.rotate(org, secret.id, "again")).value).toBeNull()
      const page = yield* variables.list(org, { limit: 50, offset: 0 })
      expect(page.total).toBe(2)
      expect(page.data.map((v) => [v.key, v.value])).toEqual([
        ["host", "example.com"],
        ["token", null]
      ])
      expect((yield* variables.get(org, plain.id)).value).toBe("example.com")
    }).pipe(Effect.provide(Variables.Test()))
  )

  it.effect("a referenced variable is 409 VARIABLE_IN_USE with used_by; another org's is 404 NOT_FOUND", () =>
    Effect.gen(function* () {
      const variables = yield* Variables
      const used = yield* variables.create(org, { key: "port", is_secret: false, value: "443" })
      const error = yield* failure(variables.remove(org, used.id))
      expect(error.code).toBe("VARIABLE_IN_USE")
      expect(error.details).toEqual({ used_by: 2 })
      expect(error.message).toContain("{{port}}")
      expect((yield* failure(variables.remove(other, used.id))).code).toBe("NOT_FOUND")
      expect((yield* failure(variables.rotate(other, used.id, "80"))).code).toBe("NOT_FOUND")
    }).pipe(Effect.provide(Variables.Test({ port: 2 })))
  )

  it.effect(
    "managed_by: stamped by create and by a change without a value, one holder per key, listed by project",
    () =>
      Effect.gen(function* () {
        const variables = yield* Variables
        const infra = (key: string) => ({ project: "infra", key })
        const held = yield* variables.create(org, { key: "region", is_secret: false, value: "eu" }, infra("region"))
        expect(held.managed_by).toEqual(infra("region"))
        const plain = yield* variables.create(org, { key: "zone", is_secret: false, value: "a" })
        expect(plain.managed_by).toBeNull()
        const taken = yield* failure(
          variables.create(org, { key: "other", is_secret: false, value: "x" }, infra("region"))
        )
        expect(taken).toMatchObject({ code: "MANAGED_KEY_TAKEN", field: "Signalman-Managed-By" })
        expect(taken.details).toEqual({ project: "infra", key: "region", id: held.id })
        expect((yield* failure(variables.rotate(org, plain.id, undefined, infra("region")))).code).toBe(
          "MANAGED_KEY_TAKEN"
        )
        const adopted = yield* variables.rotate(org, plain.id, undefined, infra("zone"))
        expect(adopted).toMatchObject({ value: "a", managed_by: infra("zone") })
        expect((yield* variables.rotate(org, plain.id, "b")).managed_by).toEqual(infra("zone"))
        const elsewhere = yield* variables.create(
          other,
          { key: "region", is_secret: false, value: "us" },
          infra("region")
        )
        expect(elsewhere.managed_by).toEqual(infra("region"))
        const listed = yield* variables.list(org, { limit: 50, offset: 0, managed_by: "infra" })
        expect(listed.data.map((v) => v.key)).toEqual(["region", "zone"])
        expect((yield* variables.list(org, { limit: 50, offset: 0, managed_by: "edge" })).total).toBe(0)
      }).pipe(Effect.provide(Variables.Test()))
  )
})
