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
import { type AddressRange, normalize } from "../config/AddressRange.js"

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
