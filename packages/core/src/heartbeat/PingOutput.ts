/**
 * A ping's body kept as its run's output (service-api.md "Ping signals"): at most 4 KiB, truncated and never
 * refused. The cut falls on a code point boundary, so what is stored is always valid UTF-8 text.
 *
 * @since 0.1.0
 */

/**
 * The most output kept per ping, in UTF-8 bytes.
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_OUTPUT_BYTES = 4096

// The UTF-8 length of one code point as TextEncoder writes it; a lone surrogate becomes U+FFFD, three bytes.
const utf8Length = (codePoint: number): number =>
  codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4

/**
 * The longest prefix of `text` whose UTF-8 encoding fits in `maxBytes`, cut between code points (a surrogate pair is
 * never split).
 *
 * @since 0.1.0
 * @category truncation
 */
export const truncateText = (text: string, maxBytes: number = MAX_OUTPUT_BYTES): string => {
  // Cheap exit for the common case: even at the worst three bytes per UTF-16 unit, it fits.
  if (text.length * 3 <= maxBytes) return text
  let bytes = 0
  let end = 0
  // Iterating a string yields code points, with a lone surrogate on its own.
  for (const char of text) {
    const size = utf8Length(char.codePointAt(0) ?? 0)
    if (bytes + size > maxBytes) return text.slice(0, end)
    bytes += size
    end += char.length
  }
  return text
}

// 10xxxxxx: a byte inside a multi-byte sequence.
const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80

/**
 * A raw body as the text to keep: cut at `maxBytes` on a code point boundary, decoded with invalid sequences
 * replaced by U+FFFD (a binary body is kept as what it reads as), and cut again in case a replacement character
 * grew the text past the limit.
 *
 * @since 0.1.0
 * @category truncation
 */
export const fromBody = (body: Uint8Array, maxBytes: number = MAX_OUTPUT_BYTES): string => {
  let end = Math.min(body.length, maxBytes)
  // Step back over a sequence the cut would split, so the decoder does not turn its head into a U+FFFD. A valid
  // sequence has at most three continuation bytes; more in a row is not UTF-8, and cutting there is as good.
  if (end < body.length) {
    let back = 0
    while (back < 3 && end - back > 0 && isContinuation(body[end - back] ?? 0)) back += 1
    if (!isContinuation(body[end - back] ?? 0)) end -= back
  }
  return truncateText(new TextDecoder("utf-8").decode(body.subarray(0, end)), maxBytes)
}
