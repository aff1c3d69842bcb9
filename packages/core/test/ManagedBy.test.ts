import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as DecodeFailure from "../src/DecodeFailure.js"
import * as ManagedBy from "../src/ManagedBy.js"

const issues = <A, I>(schema: Schema.Schema<A, I>, value: unknown) => {
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all" })(value)
  return Either.isLeft(decoded) ? ParseResult.ArrayFormatter.formatErrorSync(decoded.left) : []
}

describe("ManagedBy.parse", () => {
  it("reads <project>/<key> at the first slash", () => {
    expect(ManagedBy.parse("infra/web-api")).toEqual(Either.right({ project: "infra", key: "web-api" }))
    expect(ManagedBy.parse("a/0")).toEqual(Either.right({ project: "a", key: "0" }))
    expect(ManagedBy.parse(`${"p".repeat(64)}/${"k".repeat(63)}`)).toEqual(
      Either.right({ project: "p".repeat(64), key: "k".repeat(63) })
    )
    expect(ManagedBy.format({ project: "infra", key: "web_api" })).toBe("infra/web_api")
  })

  it("says a project alone is the bulk create's form", () => {
    const left = Either.flip(ManagedBy.parse("infra"))
    expect(Either.getOrThrow(left)).toContain("POST /api/v1/targets/bulk")
    expect(Either.getOrThrow(Either.flip(ManagedBy.parse("Infra")))).toBe("must be <project>/<key>")
  })

  it("refuses a project or key outside its pattern, and anything after a second slash", () => {
    for (const value of [
      "/web",
      "infra/",
      "Infra/web",
      "in_fra/web",
      `${"p".repeat(65)}/web`,
      "infra/-web",
      "infra/_web",
      "infra/Web",
      `infra/${"k".repeat(64)}`,
      "infra/web/extra",
      "infra/we b",
      " infra/web"
    ]) {
      expect(Either.isLeft(ManagedBy.parse(value)), value).toBe(true)
    }
  })
})

describe("ManagedBy header schemas", () => {
  it("the single form takes <project>/<key> and refuses a project alone, naming the header's key", () => {
    expect(Schema.decodeUnknownSync(ManagedBy.Headers)({ "signalman-managed-by": "infra/web" })).toEqual({
      "signalman-managed-by": "infra/web"
    })
    expect(Schema.decodeUnknownSync(ManagedBy.Headers)({ other: "x" })).toEqual({})
    const [issue] = issues(ManagedBy.Headers, { "signalman-managed-by": "infra" })
    expect(issue?.path).toEqual(["signalman-managed-by"])
    expect(issue?.message).toContain("a project alone is for POST /api/v1/targets/bulk")
  })

  it("the bulk form takes the project alone and refuses <project>/<key>", () => {
    expect(Schema.decodeUnknownSync(ManagedBy.BulkHeaders)({ "signalman-managed-by": "infra" })).toEqual({
      "signalman-managed-by": "infra"
    })
    const [slash] = issues(ManagedBy.BulkHeaders, { "signalman-managed-by": "infra/web" })
    expect(slash?.message).toContain("the keys go in managed_keys")
    const [bad] = issues(ManagedBy.BulkHeaders, { "signalman-managed-by": "In fra" })
    expect(bad?.message).toContain("1 to 64 lowercase letters")
  })

  it("a refused header is 400 VALIDATION_FAILED naming it as documented", () => {
    const error = DecodeFailure.toApiError(issues(ManagedBy.Headers, { "signalman-managed-by": "x" }), "headers")
    expect(error).toMatchObject({ status: 400, code: "VALIDATION_FAILED", field: "Signalman-Managed-By" })
    expect(DecodeFailure.headerName("idempotency-key")).toBe("Idempotency-Key")
  })

  it("fromHeaders reads the parts, or leaves managed_by alone without the header", () => {
    expect(ManagedBy.fromHeaders({ "signalman-managed-by": "infra/web" })).toEqual(
      Either.right({ project: "infra", key: "web" })
    )
    expect(ManagedBy.fromHeaders({})).toEqual(Either.right(undefined))
    const refused = Either.flip(ManagedBy.fromHeaders({ "signalman-managed-by": "infra" }))
    expect(Either.getOrThrow(refused)).toMatchObject({ code: "VALIDATION_FAILED", field: "Signalman-Managed-By" })
  })

  it("the response field is an object or null, and keys follow their pattern", () => {
    expect(Schema.decodeUnknownSync(ManagedBy.Field)(null)).toBeNull()
    expect(Schema.decodeUnknownSync(ManagedBy.Field)({ project: "infra", key: "web" })).toEqual({
      project: "infra",
      key: "web"
    })
    expect(Schema.is(ManagedBy.Key)("0-web_api")).toBe(true)
    expect(Schema.is(ManagedBy.Key)("-web")).toBe(false)
    expect(Schema.is(ManagedBy.Project)("my-project-2")).toBe(true)
    expect(Schema.is(ManagedBy.Project)("")).toBe(false)
  })
})

describe("ManagedBy.assignKeys", () => {
  const refused = (result: ReturnType<typeof ManagedBy.assignKeys>) => Either.getOrThrow(Either.flip(result))

  it("gives each target its key in order, or nobody without header and keys", () => {
    expect(ManagedBy.assignKeys("infra", ["a", "b"], 2)).toEqual(
      Either.right([
        { project: "infra", key: "a" },
        { project: "infra", key: "b" }
      ])
    )
    expect(ManagedBy.assignKeys(undefined, undefined, 3)).toEqual(Either.right([undefined, undefined, undefined]))
  })

  it("refuses keys without the header, the header without keys, a count that differs and a key twice", () => {
    expect(refused(ManagedBy.assignKeys(undefined, ["a"], 1))).toMatchObject({
      status: 400,
      code: "VALIDATION_FAILED",
      field: "Signalman-Managed-By"
    })
    expect(refused(ManagedBy.assignKeys("infra", undefined, 1))).toMatchObject({ field: "managed_keys" })
    expect(refused(ManagedBy.assignKeys("infra", ["a"], 2))).toMatchObject({ field: "managed_keys" })
    expect(refused(ManagedBy.assignKeys("infra", ["a", "b", "c"], 2))).toMatchObject({ field: "managed_keys" })
    const twice = refused(ManagedBy.assignKeys("infra", ["a", "b", "c", "b"], 4))
    expect(twice).toMatchObject({ field: "managed_keys[3]" })
    expect(twice.message).toContain("managed_keys[1]")
  })
})

describe("ManagedBy.taken", () => {
  it("is 409 MANAGED_KEY_TAKEN naming the field, the claim and the holder", () => {
    const error = ManagedBy.taken("monitor", { project: "infra", key: "web" }, { holder: "id-1" })
    expect(error).toMatchObject({
      status: 409,
      code: "MANAGED_KEY_TAKEN",
      field: "Signalman-Managed-By",
      details: { project: "infra", key: "web", id: "id-1" }
    })
    expect(error.message).toContain("infra/web")
    const raced = ManagedBy.taken("monitor", { project: "infra" }, { field: "managed_keys" })
    expect(raced).toMatchObject({ field: "managed_keys", details: { project: "infra" } })
  })
})
