/**
 * Where the contract's endpoints sit on a Promise client: each group is a namespace of the same name, its endpoints
 * methods of the same names, with the few exceptions below. The operator and agent surfaces are not for API tokens
 * or sessions and are left out; the operations group (`healthz`, `readyz`) sits at the top.
 *
 * @since 0.2.0
 */
import type { GroupName } from "./Inputs.js"

/**
 * The groups a client does not offer: the operator surface (its own admin secret) and the probe agents' protocol.
 *
 * @since 0.2.0
 * @category constants
 */
export const skippedGroups = ["operator", "agent"] as const satisfies ReadonlyArray<GroupName>

/**
 * The groups whose endpoints sit on the client itself rather than in a namespace.
 *
 * @since 0.2.0
 * @category constants
 */
export const topLevelGroups = ["operations"] as const satisfies ReadonlyArray<GroupName>

/**
 * Groups that live in another group's namespace, and endpoints renamed there: a monitor's results, latency and
 * uptime are read from `targets`, and declining an invitation sits beside accepting one in `orgs`.
 *
 * @since 0.2.0
 * @category constants
 */
export const placements = {
  results: { namespace: "targets", rename: {} },
  invitationsPublic: { namespace: "orgs", rename: { decline: "declineInvitation" } }
} as const satisfies Partial<Record<GroupName, { readonly namespace: string; readonly rename: Record<string, string> }>>

/**
 * The groups a client offers.
 *
 * @since 0.2.0
 * @category models
 */
export type ClientGroup = Exclude<GroupName, (typeof skippedGroups)[number]>

/**
 * The namespace group `G` sits in; `never` for the top-level group.
 *
 * @since 0.2.0
 * @category models
 */
export type NamespaceOf<G extends ClientGroup> = G extends (typeof topLevelGroups)[number]
  ? never
  : G extends keyof typeof placements
    ? (typeof placements)[G]["namespace"]
    : G

/**
 * The method name of endpoint `E` of group `G`.
 *
 * @since 0.2.0
 * @category models
 */
export type MethodNameOf<G extends ClientGroup, E extends string> = G extends keyof typeof placements
  ? E extends keyof (typeof placements)[G]["rename"]
    ? (typeof placements)[G]["rename"][E]
    : E
  : E

/**
 * The namespace and method name of an endpoint, at run time.
 *
 * @since 0.2.0
 * @category constructors
 */
export const place = (
  group: string,
  endpoint: string
): { readonly namespace: string | null; readonly name: string } | null => {
  if (skipped.has(group)) return null
  if (topLevel.has(group)) return { namespace: null, name: endpoint }
  const placement = placed.get(group)
  if (placement === undefined) return { namespace: group, name: endpoint }
  return { namespace: placement.namespace, name: placement.rename.get(endpoint) ?? endpoint }
}

const skipped: ReadonlySet<string> = new Set(skippedGroups)
const topLevel: ReadonlySet<string> = new Set(topLevelGroups)
const placed: ReadonlyMap<string, { readonly namespace: string; readonly rename: ReadonlyMap<string, string> }> =
  new Map(
    Object.entries(placements).map(([group, { namespace, rename }]) => [
      group,
      { namespace, rename: new Map(Object.entries(rename)) }
    ])
  )
