import { describe, expect, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Pagination from "../src/Pagination.js"

describe("Pagination", () => {
  const query = Schema.decodeUnknownEither(Schema.Struct(Pagination.query))
  const json = Schema.decodeUnknownEither(Schema.Struct(Pagination.json))

  it("a query string's paging defaults to 50 from 0, within 1 to 500", () => {
    expect(query({})).toEqual(Either.right({ limit: 50, offset: 0 }))
    expect(query({ limit: "500", offset: "10" })).toEqual(Either.right({ limit: 500, offset: 10 }))
    expect(Either.isLeft(query({ limit: "501" }))).toBe(true)
  })

  it("JSON paging takes numbers with the same bounds; settle applies the same defaults", () => {
    expect(json({})).toEqual(Either.right({}))
    expect(json({ limit: 500, offset: 10 })).toEqual(Either.right({ limit: 500, offset: 10 }))
    for (const bad of [{ limit: 0 }, { limit: 501 }, { limit: "5" }, { offset: -1 }, { limit: 1.5 }])
      expect(Either.isLeft(json(bad)), JSON.stringify(bad)).toBe(true)
    expect(Pagination.settle({})).toEqual({ limit: Pagination.DEFAULT_LIMIT, offset: 0 })
    expect(Pagination.settle({ limit: 7, offset: 3 })).toEqual({ limit: 7, offset: 3 })
  })
})
