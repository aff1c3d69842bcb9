/**
 * The internal-address guard: which addresses a probe may connect to. Unless private targets are allowed, no
 * probe dials loopback, private, link-local, carrier-grade NAT, unique-local, multicast, unspecified, broadcast,
 * documentation or otherwise reserved addresses, cloud metadata endpoints, or any IPv4-mapped, NAT64 or 6to4 form
 * of them. The verdict is made on the address actually dialed (after DNS), so a name that resolves to an internal
 * address is refused the same way as the literal.
 *
 * @since 0.1.0
 */
import ipaddr from "ipaddr.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Verdict =
  | { readonly allowed: true; readonly address: string }
  | { readonly allowed: false; readonly address: string; readonly reason: string }

type Address = ipaddr.IPv4 | ipaddr.IPv6

const words: Record<string, string> = {
  unspecified: "an unspecified address",
  broadcast: "a broadcast address",
  multicast: "a multicast address",
  linkLocal: "a link-local address",
  loopback: "a loopback address",
  carrierGradeNat: "a carrier-grade NAT address",
  private: "a private address",
  reserved: "a reserved or documentation address",
  uniqueLocal: "a unique-local address",
  teredo: "a Teredo address",
  discard: "a discard-only address",
  benchmarking: "a benchmarking address",
  amt: "an AMT relay address",
  as112: "an AS112 address",
  deprecated: "a deprecated address",
  orchid2: "an ORCHID address"
}

// Cloud metadata and host-agent endpoints that sit in ordinary-looking ranges (the link-local and unique-local
// ones, 169.254.169.254 and fd00:ec2::254, are already refused by range).
const metadata = new Set(["168.63.129.16", "100.100.100.200", "192.0.0.192"])

const globalUnicast = ipaddr.IPv6.parse("2000::")

/**
 * An IP literal in any spelling a URL or a resolver accepts (`127.0.0.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`,
 * `[::1]`, `fe80::1%eth0`), or undefined for a name.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseLiteral = (host: string): Address | undefined => {
  let text = host.trim()
  if (text.startsWith("[") && text.endsWith("]")) text = text.slice(1, -1)
  const zone = text.indexOf("%")
  if (zone !== -1 && text.includes(":")) text = text.slice(0, zone)
  // A trailing dot makes a name absolute; on a literal it is still the literal.
  if (text.endsWith(".") && !text.includes(":")) text = text.slice(0, -1)
  if (text === "") return undefined
  if (text.includes(":")) return ipaddr.IPv6.isValid(text) ? ipaddr.IPv6.parse(text) : undefined
  // WHATWG URLs read decimal, octal and hex parts (and fewer than four parts) as IPv4, so the guard must too.
  if (!/^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]+)){0,3}$/i.test(text)) return undefined
  return ipaddr.IPv4.isValid(text) ? ipaddr.IPv4.parse(text) : undefined
}

const embeddedIPv4 = (address: ipaddr.IPv6): ipaddr.IPv4 | undefined => {
  const bytes = address.toByteArray()
  switch (address.range()) {
    case "ipv4Mapped":
      return address.toIPv4Address()
    case "rfc6052": // NAT64, 64:ff9b::/96 and the local-use 64:ff9b:1::/48: the IPv4 address is the last 32 bits
      return new ipaddr.IPv4(bytes.slice(12, 16))
    case "6to4": // 2002:AABB:CCDD::/48 carries AA.BB.CC.DD
      return new ipaddr.IPv4(bytes.slice(2, 6))
    default:
      return undefined
  }
}

/**
 * May a probe connect to this address? `address` is an IP literal in any spelling; anything else is refused.
 *
 * @since 0.1.0
 * @category verdicts
 */
export const check = (address: string): Verdict => {
  const parsed = parseLiteral(address)
  if (parsed === undefined) return { allowed: false, address, reason: "not an IP address" }
  return classify(parsed)
}

const classify = (parsed: Address): Verdict => {
  const shown = parsed.toString()
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6
    const inner = embeddedIPv4(v6)
    if (inner !== undefined) {
      const verdict = classify(inner)
      return verdict.allowed
        ? { allowed: true, address: shown }
        : { ...verdict, address: shown, reason: `${verdict.reason} (embedded in ${shown})` }
    }
  }
  if (metadata.has(shown)) return { allowed: false, address: shown, reason: "a cloud metadata address" }
  const range = parsed.range()
  // ipaddr.js calls every address it has no name for "unicast". For IPv6 only 2000::/3 is allocated as global
  // unicast; the rest is reserved, including the IPv4-compatible ::/96 (`[::127.0.0.1]` parses to ::7f00:1), which
  // some stacks still route to IPv4.
  if (range === "unicast" && parsed instanceof ipaddr.IPv6 && !parsed.match(globalUnicast, 3)) {
    return { allowed: false, address: shown, reason: "a reserved address (outside 2000::/3)" }
  }
  if (range === "unicast") return { allowed: true, address: shown }
  return { allowed: false, address: shown, reason: words[range] ?? `a special-purpose address (${range})` }
}

/**
 * The error text of a check refused by the guard: it starts `blocked:`, which tells users (and the incident
 * engine) that this is not downtime.
 *
 * @since 0.1.0
 * @category verdicts
 */
export const blockedMessage = (host: string, verdict: Extract<Verdict, { allowed: false }>): string =>
  host === verdict.address || parseLiteral(host) !== undefined
    ? `blocked: ${verdict.address} is ${verdict.reason}`
    : `blocked: ${host} resolves to ${verdict.address}, ${verdict.reason}`
