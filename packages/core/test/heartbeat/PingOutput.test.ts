import { describe, expect, it } from "@effect/vitest"
import * as FastCheck from "effect/FastCheck"
import * as PingOutput from "../../src/heartbeat/PingOutput.js"

const encoder = new TextEncoder()
const bytes = (text: string): number => encoder.encode(text).length

const isHigh = (unit: number): boolean => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number): boolean => unit >= 0xdc00 && unit <= 0xdfff

// Cutting `text` at `cut` separates the two halves of a surrogate pair.
const splitsPair = (text: string, cut: number): boolean =>
  cut > 0 && cut < text.length && isHigh(text.charCodeAt(cut - 1)) && isLow(text.charCodeAt(cut))

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

describe("PingOutput", () => {
  it("keeps a body within 4 KiB as it is", () => {
    expect(PingOutput.truncateText("done in 3 s\n")).toBe("done in 3 s\n")
    const exact = "x".repeat(4096)
    expect(PingOutput.truncateText(exact)).toBe(exact)
  })

  it("cuts an oversize body at 4096 bytes, before a code point that would cross the limit", () => {
    expect(PingOutput.truncateText("x".repeat(5000))).toBe("x".repeat(4096))
    // 4095 bytes, then a 2-byte "é": it does not fit and is left out whole.
    expect(PingOutput.truncateText(`${"x".repeat(4095)}é`)).toBe("x".repeat(4095))
    // 4094 bytes, then a 4-byte emoji (two UTF-16 units): left out whole, never half a pair.
    expect(PingOutput.truncateText(`${"x".repeat(4094)}😀tail`)).toBe("x".repeat(4094))
    expect(PingOutput.truncateText(`${"x".repeat(4092)}😀tail`)).toBe(`${"x".repeat(4092)}😀`)
  })

  it.prop(
    "truncation never exceeds 4096 bytes, never splits a code point, and keeps as much as fits",
    [FastCheck.string({ unit: "binary", maxLength: 3000 }), FastCheck.integer({ min: 0, max: 4096 })],
    ([text, max]) => {
      const kept = PingOutput.truncateText(text, max)
      expect(bytes(kept)).toBeLessThanOrEqual(max)
      expect(text.startsWith(kept)).toBe(true)
      if (kept.length < text.length) {
        // The cut is between code points, and the next code point would not have fitted.
        expect(splitsPair(text, kept.length)).toBe(false)
        const next = String.fromCodePoint(text.codePointAt(kept.length) ?? 0)
        expect(bytes(kept + next)).toBeGreaterThan(max)
      }
    }
  )

  // Bodies near the limit: ASCII filler up to just below 4096 bytes, then arbitrary content across the cut. Small
  // tails keep shrinking fast when a property fails.
  const filler = FastCheck.integer({ min: 4080, max: 4096 })

  it.prop(
    "a raw body is kept as well-formed text of at most 4096 bytes",
    [filler, FastCheck.uint8Array({ maxLength: 40 })],
    ([length, tail]) => {
      const body = new Uint8Array([...encoder.encode("x".repeat(length)), ...tail])
      const kept = PingOutput.fromBody(body)
      expect(bytes(kept)).toBeLessThanOrEqual(PingOutput.MAX_OUTPUT_BYTES)
      expect(loneSurrogate.test(kept)).toBe(false)
    }
  )

  it.prop(
    "a UTF-8 body is cut on a code point boundary: what is kept is a prefix of its text, short of the limit by less than a code point",
    [filler, FastCheck.string({ unit: "binary", maxLength: 20 })],
    ([length, tail]) => {
      // TextEncoder writes a lone surrogate as U+FFFD, so compare with the text the bytes really hold.
      const text = new TextDecoder().decode(encoder.encode(`${"x".repeat(length)}${tail}`))
      const kept = PingOutput.fromBody(encoder.encode(text))
      expect(text.startsWith(kept)).toBe(true)
      expect(bytes(kept)).toBeLessThanOrEqual(PingOutput.MAX_OUTPUT_BYTES)
      if (kept.length < text.length) expect(bytes(kept)).toBeGreaterThan(PingOutput.MAX_OUTPUT_BYTES - 4)
    }
  )

  it("a cut inside a multi-byte sequence drops the sequence instead of decoding its head as U+FFFD", () => {
    const body = encoder.encode(`${"x".repeat(4093)}😀`)
    expect(PingOutput.fromBody(body)).toBe("x".repeat(4093))
  })
})
