/**
 * The dns check's value forms: how a queried domain and an expected value are written and normalised, how an
 * answer record is shown, and how an expected set compares with the answers. Pure, so the targets API can refuse
 * a bad value at save time with the same rules the probe compares with.
 *
 * @internal
 */
import { Buffer } from "node:buffer"
import { domainToASCII } from "node:url"
import type { DnsRecordType } from "@signalman/core/CheckSpec"
import type * as DnsPacket from "dns-packet"
import * as Either from "effect/Either"
import ipaddr from "ipaddr.js"

/** @internal */
export type Parsed<A> = Either.Either<A, string>

// RFC 1035 limits: 63 octets a label, 253 characters a name written without its trailing dot.
const maxLabel = 63
const maxName = 253

const ldhLabel = /^[A-Za-z0-9_-]+$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range is the ASCII test itself
const asciiOnly = /^[\x00-\x7f]*$/

// Hostname letters, digits and hyphens, plus underscores (`_dmarc`, `_sip._tcp`) which DNS allows in any label.
// A Unicode label becomes its xn-- form, the spelling the wire carries, so both spellings compare equal.
const toALabel = (label: string): string | undefined => {
  if (ldhLabel.test(label)) return label.toLowerCase()
  if (asciiOnly.test(label)) return undefined
  const ascii = domainToASCII(label)
  return /^[a-z0-9-]+$/.test(ascii) ? ascii : undefined
}

/**
 * A name in its compared form: lower-case, A-labels, no trailing dot (the root stays `.`). `wildcard` lets the
 * leftmost label be `*`, which the domain of a check may be and a value may not.
 *
 * @internal
 */
export const normaliseName = (input: string, wildcard: boolean): Parsed<string> => {
  const text = input.trim()
  if (text === ".") return Either.right(".")
  const bare = text.endsWith(".") ? text.slice(0, -1) : text
  if (bare === "") return Either.left("is empty")
  const labels = bare.split(".")
  const out: Array<string> = []
  for (const [index, label] of labels.entries()) {
    if (label === "") return Either.left(`"${text}" has an empty label`)
    if (label.includes("*")) {
      if (label === "*" && index === 0 && wildcard) {
        out.push("*")
        continue
      }
      return Either.left(
        wildcard ? "* is allowed only as the whole leftmost label" : `"${text}" is not a name (* is not a value)`
      )
    }
    const ascii = toALabel(label)
    if (ascii === undefined) return Either.left(`"${text}" has an invalid label "${label}"`)
    if (ascii.length > maxLabel) return Either.left(`the label "${label}" is longer than ${maxLabel} characters`)
    out.push(ascii)
  }
  const name = out.join(".")
  return name.length > maxName ? Either.left(`is longer than ${maxName} characters`) : Either.right(name)
}

// Zone files and people write addresses with leading zeros (`192.000.002.001`); they are decimal, never octal.
const dottedQuad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/**
 * An IPv4 address in dotted decimal (leading zeros allowed), in its canonical spelling.
 *
 * @internal
 */
export const parseIPv4 = (text: string): string | undefined => {
  const match = dottedQuad.exec(text.trim())
  if (match === null) return undefined
  const parts = match.slice(1, 5).map((part) => Number.parseInt(part, 10))
  return parts.every((part) => part <= 255) ? parts.join(".") : undefined
}

/**
 * An IPv6 address in its RFC 5952 spelling (`2001:0db8:0::1` is `2001:db8::1`). Zone ids have no meaning in a
 * record, so they are refused.
 *
 * @internal
 */
export const parseIPv6 = (text: string): string | undefined => {
  const trimmed = text.trim()
  if (!trimmed.includes(":") || trimmed.includes("%") || !ipaddr.IPv6.isValid(trimmed)) return undefined
  return ipaddr.IPv6.parse(trimmed).toString()
}

/**
 * The reverse-lookup name of an address: `4.3.2.1.in-addr.arpa`, or the 32 nibbles of an IPv6 address under
 * `ip6.arpa`.
 *
 * @internal
 */
export const reverseName = (address: string): string | undefined => {
  const v4 = parseIPv4(address)
  if (v4 !== undefined) return `${v4.split(".").reverse().join(".")}.in-addr.arpa`
  const v6 = parseIPv6(address)
  if (v6 === undefined) return undefined
  const nibbles = ipaddr.IPv6.parse(v6)
    .toByteArray()
    .flatMap((byte) => [byte >> 4, byte & 0x0f])
    .map((nibble) => nibble.toString(16))
  return `${nibbles.reverse().join(".")}.ip6.arpa`
}

/**
 * The rules of a check's `domain`: surrounding whitespace and one trailing dot tolerated, underscore labels
 * allowed, `*` only as the whole leftmost label (it then queries the wildcard record itself), an address only
 * for PTR, where it becomes its reverse name. The result is the name queried.
 *
 * @internal
 */
export const queryName = (domain: string, recordType: DnsRecordType): Parsed<string> => {
  const text = domain.trim()
  const unbracketed = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const reverse = reverseName(unbracketed.endsWith(".") ? unbracketed.slice(0, -1) : unbracketed)
  if (reverse !== undefined) {
    return recordType === "PTR"
      ? Either.right(reverse)
      : Either.left(`is an address; only a PTR check takes an address (its reverse name is ${reverse})`)
  }
  if (text === ".") return Either.left("is the root; name a domain")
  return normaliseName(text, true)
}

const uint = (text: string, max: number): number | undefined => {
  if (!/^\d{1,10}$/.test(text)) return undefined
  const value = Number.parseInt(text, 10)
  return value <= max ? value : undefined
}

const fields = (value: string): Array<string> => value.trim().split(/\s+/)

/**
 * The character-strings of a zone-file TXT spelling, `"v=spf1 " "include:example.com -all"`, with the escapes
 * `\"`, `\\` and `\DDD` (one octet, decimal). Undefined when the text is not entirely quoted strings.
 *
 * @internal
 */
export const parseQuotedStrings = (text: string): ReadonlyArray<string> | undefined => {
  const strings: Array<string> = []
  let index = 0
  // Every pass of either loop consumes at least one character, so both end within text.length steps.
  while (index < text.length) {
    while (index < text.length && /\s/.test(text[index]!)) index++
    if (index >= text.length) break
    if (text[index] !== '"') return undefined
    index++
    const bytes: Array<Buffer> = []
    let closed = false
    while (index < text.length) {
      const char = text[index]!
      if (char === '"') {
        closed = true
        index++
        break
      }
      if (char === "\\") {
        const digits = /^\d{3}/.exec(text.slice(index + 1, index + 4))
        if (digits !== null) {
          const octet = Number.parseInt(digits[0], 10)
          if (octet > 255) return undefined
          bytes.push(Buffer.from([octet]))
          index += 4
          continue
        }
        if (index + 1 >= text.length) return undefined
        const escaped = String.fromCodePoint(text.codePointAt(index + 1)!)
        bytes.push(Buffer.from(escaped, "utf8"))
        index += 1 + escaped.length
        continue
      }
      const literal = String.fromCodePoint(text.codePointAt(index)!)
      bytes.push(Buffer.from(literal, "utf8"))
      index += literal.length
    }
    if (!closed) return undefined
    if (index < text.length && !/\s/.test(text[index]!)) return undefined
    strings.push(Buffer.concat(bytes).toString("utf8"))
  }
  return strings.length > 0 ? strings : undefined
}

const quote = (value: string): string => `"${value.replace(/["\\]/g, (char) => `\\${char}`)}"`

const caaForm = /^(\d{1,3})\s+([A-Za-z0-9]{1,15})\s+(.*)$/s

const caa = (flags: number, tag: string, value: string): string => `${flags} ${tag.toLowerCase()} ${quote(value)}`

/**
 * An expected value after normalisation: an exact value in the form answers show, or (MX only) a bare host that
 * matches one record for that host at any preference.
 *
 * @internal
 */
export type Expected =
  | { readonly _tag: "Exact"; readonly value: string }
  | { readonly _tag: "MxHost"; readonly host: string }

const exact = (value: string): Parsed<Expected> => Either.right({ _tag: "Exact", value })

const named = (value: string, then: (name: string) => Parsed<Expected>): Parsed<Expected> =>
  Either.flatMap(normaliseName(value, false), then)

const numbersThenName = (
  parts: ReadonlyArray<string>,
  limits: ReadonlyArray<number>,
  form: string
): Parsed<{ readonly numbers: ReadonlyArray<number>; readonly name: string }> => {
  if (parts.length !== limits.length + 1) return Either.left(`is not in the form "${form}"`)
  const numbers: Array<number> = []
  for (const [index, max] of limits.entries()) {
    const value = uint(parts[index]!, max)
    if (value === undefined) return Either.left(`is not in the form "${form}" (${parts[index]} is out of range)`)
    numbers.push(value)
  }
  return Either.map(normaliseName(parts[limits.length]!, false), (name) => ({ numbers, name }))
}

const u16 = 65535
const u32 = 4294967295

/**
 * Read an expected value written for a record type, as the result's answers show it or in a zone-file spelling.
 * The error is a sentence fragment: `is not an IPv4 address`.
 *
 * @internal
 */
export const parseExpected = (recordType: DnsRecordType, value: string): Parsed<Expected> => {
  switch (recordType) {
    case "A": {
      const address = parseIPv4(value)
      return address === undefined ? Either.left("is not an IPv4 address") : exact(address)
    }
    case "AAAA": {
      const address = parseIPv6(value)
      return address === undefined ? Either.left("is not an IPv6 address") : exact(address)
    }
    case "CNAME":
    case "NS":
    case "PTR":
      return named(value, exact)
    case "MX": {
      const parts = fields(value)
      if (parts.length === 1) return named(parts[0]!, (host) => Either.right({ _tag: "MxHost", host }))
      return Either.flatMap(numbersThenName(parts, [u16], "preference host"), ({ name, numbers }) =>
        exact(`${numbers[0]} ${name}`)
      )
    }
    case "SRV":
      return Either.flatMap(
        numbersThenName(fields(value), [u16, u16, u16], "priority weight port target"),
        ({ name, numbers }) => exact(`${numbers.join(" ")} ${name}`)
      )
    case "SOA": {
      const parts = fields(value)
      const form = "mname rname serial refresh retry expire minimum"
      if (parts.length !== 7) return Either.left(`is not in the form "${form}"`)
      const numbers = parts.slice(2).map((part) => uint(part, u32))
      if (numbers.some((number) => number === undefined)) return Either.left(`is not in the form "${form}"`)
      return Either.flatMap(normaliseName(parts[0]!, false), (mname) =>
        Either.flatMap(normaliseName(parts[1]!, false), (rname) => exact(`${mname} ${rname} ${numbers.join(" ")}`))
      )
    }
    case "TXT": {
      // Quoted strings are the zone-file spelling and are joined; anything else is the joined text itself.
      const strings = value.trimStart().startsWith('"') ? parseQuotedStrings(value) : undefined
      return exact(strings === undefined ? value : strings.join(""))
    }
    case "CAA": {
      const match = caaForm.exec(value.trim())
      const flags = match === null ? undefined : uint(match[1]!, 255)
      if (match === null || flags === undefined) return Either.left('is not in the form flags tag "value"')
      const raw = match[3]!
      if (raw.startsWith('"')) {
        const strings = parseQuotedStrings(raw)
        if (strings === undefined || strings.length !== 1) return Either.left('is not in the form flags tag "value"')
        return exact(caa(flags, match[2]!, strings[0]!))
      }
      return exact(caa(flags, match[2]!, raw))
    }
  }
}

/**
 * How an expected value reads once normalised; two values that read the same are the same value.
 *
 * @internal
 */
export const showExpected = (expected: Expected): string => (expected._tag === "Exact" ? expected.value : expected.host)

const showName = (name: string): string => {
  const lower = name.toLowerCase()
  return lower === "." || lower === "" ? "." : lower.endsWith(".") ? lower.slice(0, -1) : lower
}

const txtText = (data: DnsPacket.TxtData): string => {
  const parts = Array.isArray(data) ? data : [data]
  return Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part, "utf8") : part))).toString(
    "utf8"
  )
}

/**
 * One answer record as the result shows it; MX records also keep their parts for bare-host matching.
 *
 * @internal
 */
export interface Shown {
  readonly text: string
  readonly mx?: { readonly preference: number; readonly host: string }
}

/**
 * The shown form of an answer record of one of the check's types; undefined for any other type.
 *
 * @internal
 */
export const showAnswer = (answer: DnsPacket.Answer): Shown | undefined => {
  switch (answer.type) {
    case "A":
      return { text: parseIPv4(answer.data) ?? answer.data }
    case "AAAA":
      return { text: parseIPv6(answer.data) ?? answer.data.toLowerCase() }
    case "CNAME":
    case "NS":
    case "PTR":
      return { text: showName(answer.data) }
    case "MX": {
      const preference = answer.data.preference ?? 0
      const host = showName(answer.data.exchange)
      return { text: `${preference} ${host}`, mx: { preference, host } }
    }
    case "SRV": {
      const { port, priority, target, weight } = answer.data
      return { text: `${priority ?? 0} ${weight ?? 0} ${port} ${showName(target)}` }
    }
    case "SOA": {
      const { expire, minimum, mname, refresh, retry, rname, serial } = answer.data
      const numbers = [serial, refresh, retry, expire, minimum].map((number) => number ?? 0)
      return { text: `${showName(mname)} ${showName(rname)} ${numbers.join(" ")}` }
    }
    case "TXT":
      return { text: txtText(answer.data) }
    case "CAA":
      return { text: caa(answer.data.flags ?? 0, answer.data.tag, answer.data.value) }
    default:
      return undefined
  }
}

/**
 * An expected value beside the text the user wrote, which is what `missing` reports.
 *
 * @internal
 */
export interface ExpectedEntry {
  readonly written: string
  readonly expected: Expected
}

/**
 * The strict comparison of `expected_records`: which expected values no answer carries and which answers nothing
 * expected. Exact values pair first; a bare MX host then takes the lowest-preference record of that host left.
 *
 * @internal
 */
export const compare = (
  entries: ReadonlyArray<ExpectedEntry>,
  answers: ReadonlyArray<Shown>
): { readonly missing: ReadonlyArray<string>; readonly unexpected: ReadonlyArray<string> } => {
  const taken = answers.map(() => false)
  const missing: Array<string> = []
  for (const entry of entries) {
    if (entry.expected._tag !== "Exact") continue
    const value = entry.expected.value
    const index = answers.findIndex((answer, i) => !taken[i] && answer.text === value)
    if (index === -1) missing.push(entry.written)
    else taken[index] = true
  }
  for (const entry of entries) {
    if (entry.expected._tag !== "MxHost") continue
    const host = entry.expected.host
    let best = -1
    for (const [i, answer] of answers.entries()) {
      if (taken[i] || answer.mx?.host !== host) continue
      if (best === -1 || answer.mx.preference < answers[best]!.mx!.preference) best = i
    }
    if (best === -1) missing.push(entry.written)
    else taken[best] = true
  }
  return { missing, unexpected: answers.filter((_, i) => !taken[i]).map((answer) => answer.text) }
}
