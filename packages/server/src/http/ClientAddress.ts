/**
 * The client's address when Signalman runs behind reverse proxies or load balancers (`server.trusted_proxies`).
 *
 * Behind a proxy every connection comes from the proxy, so anything keyed on the address (the page-password
 * attempt limit, the hashed address of sign-in attempts, sessions and audit entries) would lump every client
 * together: one stranger's failed passwords would lock everybody out. A proxy names the client in
 * `X-Forwarded-For`, but anybody can send that header, so it is believed only as far as the chain of trusted hops
 * reaches: starting from the connection's peer and walking the header from the right (the nearest hop first), the
 * client is the first address that is not a trusted proxy. An entry that is not an address ends the walk at the
 * last hop that could be believed. With no trusted proxies (the default) the peer is the client and the header is
 * ignored.
 */
import { BlockList, isIP } from "node:net"

/** A parsed `server.trusted_proxies` entry: an address or a CIDR range, IPv4 or IPv6. */
export interface AddressRange {
  readonly address: string
  readonly prefix: number
  readonly family: 4 | 6
}

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i

/** An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, how a dual-stack socket reports it) in its IPv4 form. */
export const normalize = (address: string): string => MAPPED_V4.exec(address)?.[1] ?? address

/** `10.0.0.0/8`, `192.0.2.7`, `fd00::/8` or `::1`, or a reason it is none of them. */
export const parseRange = (text: string): AddressRange | string => {
  const [address = "", prefixText, ...rest] = text.trim().split("/")
  const family = isIP(address)
  if (family !== 4 && family !== 6) return `${JSON.stringify(text)} is not an IP address or CIDR range`
  const max = family === 4 ? 32 : 128
  if (rest.length > 0 || (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText))) {
    return `${JSON.stringify(text)} has a malformed prefix length`
  }
  const prefix = prefixText === undefined ? max : Number(prefixText)
  if (prefix > max) return `${JSON.stringify(text)}: the prefix length of an IPv${family} range is at most ${max}`
  return { address, prefix, family }
}

/** A forwarded entry as an address: plain, or with a port (`192.0.2.1:443`, `[2001:db8::1]:443`) as some proxies add. */
const entryAddress = (entry: string): string | undefined => {
  const text = entry.trim()
  if (isIP(text) !== 0) return normalize(text)
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed?.[1] !== undefined && isIP(bracketed[1]) === 6) return normalize(bracketed[1])
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(text)
  if (withPort?.[1] !== undefined && isIP(withPort[1]) === 4) return withPort[1]
  return undefined
}

/** Resolves a request's client address from its peer address and its `X-Forwarded-For` header(s). */
export type Resolve = (peer: string | undefined, forwardedFor: string | undefined) => string | undefined

/** The resolver for these trusted proxies; with none, the peer is always the client. */
export const resolver = (ranges: ReadonlyArray<AddressRange>): Resolve => {
  if (ranges.length === 0) return (peer) => (peer === undefined ? undefined : normalize(peer))
  const trusted = new BlockList()
  for (const range of ranges) {
    trusted.addSubnet(range.address, range.prefix, range.family === 4 ? "ipv4" : "ipv6")
  }
  const isTrusted = (address: string) => trusted.check(address, isIP(address) === 6 ? "ipv6" : "ipv4")
  return (peer, forwardedFor) => {
    if (peer === undefined) return undefined
    let client = normalize(peer)
    if (forwardedFor === undefined || !isTrusted(client)) return client
    const hops = forwardedFor.split(",")
    for (let i = hops.length - 1; i >= 0; i--) {
      const address = entryAddress(hops[i] ?? "")
      if (address === undefined) return client
      client = address
      if (!isTrusted(client)) return client
    }
    return client
  }
}
