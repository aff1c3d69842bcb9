/**
 * `PublicBytes`: which coding a client gets, when an ETag matches, and the answer's headers.
 */
import * as zlib from "node:zlib"
import { describe, expect, it } from "vitest"
import { answer, chooseCoding, Encoded, matches } from "../src/publicpages/PublicBytes.js"

const big = Encoded.text("text/html; charset=utf-8", "<p>status</p>".repeat(200), { "content-language": "en" })
const small = Encoded.text("image/svg+xml", "<svg/>")

describe("PublicBytes", () => {
  it("chooses the accepted coding with the highest q, brotli on a tie, identity when none", () => {
    expect(chooseCoding(undefined)).toBe("identity")
    expect(chooseCoding("")).toBe("identity")
    expect(chooseCoding("gzip, deflate")).toBe("gzip")
    expect(chooseCoding("gzip, deflate, br")).toBe("br")
    expect(chooseCoding("br;q=0.5, gzip")).toBe("gzip")
    expect(chooseCoding("br;q=0, gzip;q=0")).toBe("identity")
    expect(chooseCoding("*")).toBe("br")
    expect(chooseCoding("*;q=0.1, gzip;q=0.9")).toBe("gzip")
    expect(chooseCoding("deflate")).toBe("identity")
    expect(chooseCoding("GZIP;Q=1")).toBe("gzip")
    expect(chooseCoding("gzip;q=nonsense")).toBe("identity")
  })

  it("matches If-None-Match against every variant's ETag, weak or strong, and *", () => {
    expect(matches(undefined, big)).toBe(false)
    expect(matches(big.etag("identity"), big)).toBe(true)
    expect(matches(`"other", ${big.etag("gzip")}`, big)).toBe(true)
    expect(matches(`W/${big.etag("br")}`, big)).toBe(true)
    expect(matches("*", big)).toBe(true)
    expect(matches('"other"', big)).toBe(false)
    expect(matches(small.etag("identity"), big)).toBe(false)
  })

  it("answers the chosen variant once compressed, 304 when the ETag matches, small bodies as they are", () => {
    const gz = answer(big, { acceptEncoding: "gzip", ifNoneMatch: undefined }, "public, max-age=10")
    expect(gz.status).toBe(200)
    expect(gz.headers).toMatchObject({
      "content-encoding": "gzip",
      "content-type": "text/html; charset=utf-8",
      "content-language": "en",
      "cache-control": "public, max-age=10",
      vary: "Accept-Encoding",
      etag: big.etag("gzip")
    })
    expect(gz.body).toBeDefined()
    expect(zlib.gunzipSync(gz.body ?? new Uint8Array()).equals(Buffer.from(big.identity))).toBe(true)
    // Compressed once: the same bytes again.
    expect(answer(big, { acceptEncoding: "gzip", ifNoneMatch: undefined }, "x").body).toBe(gz.body)
    const notModified = answer(big, { acceptEncoding: "br", ifNoneMatch: big.etag("gzip") }, "public, max-age=10")
    expect(notModified.status).toBe(304)
    expect(notModified.body).toBeUndefined()
    expect(notModified.headers["etag"]).toBe(big.etag("br"))
    expect(notModified.headers["content-length"]).toBeUndefined()
    const plain = answer(small, { acceptEncoding: "gzip, br", ifNoneMatch: undefined }, "no-store")
    expect(plain.headers["content-encoding"]).toBeUndefined()
    expect(plain.headers["content-length"]).toBe("6")
    expect(plain.headers["etag"]).toBe(small.etag("identity"))
  })
})
