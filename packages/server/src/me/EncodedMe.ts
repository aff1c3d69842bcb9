/**
 * The encoded `/me` document per user, kept while nothing it is made of has changed.
 *
 * Clients poll `GET /api/v1/me` more than any other authenticated route, and encoding the document through its
 * schema was a large share of the request. The document is a function of its sources (the user row, the plan, the
 * memberships) and of the credential (its kind, scopes and org). The in-process caches hand out the same row
 * objects until a row is reloaded or invalidated, so the memo compares those by identity: any reload, however
 * small the change, makes a new document. Nothing here outlives the caches it follows.
 */
import type { CallerShape } from "@signalman/core/api/Authentication"
import { Me } from "@signalman/core/Identity"
import * as Schema from "effect/Schema"
import { build, type Sources } from "./Me.js"

const MAX_ENTRIES = 10_000

interface Entry {
  readonly sources: Sources
  readonly credential: string
  readonly body: Uint8Array
}

const encode = Schema.encodeSync(Me)

// Everything of the caller the document shows besides its sources.
const credentialKey = (caller: CallerShape): string =>
  caller.credential.kind === "session"
    ? `session\u0000${caller.org?.id ?? ""}`
    : `token\u0000${caller.org?.id ?? ""}\u0000${caller.credential.scopes.join("\u0000")}`

export class EncodedMe {
  private readonly entries = new Map<string, Entry>()

  /** The document's JSON bytes, encoded now unless the same sources and credential were encoded last time. */
  body(caller: CallerShape, sources: Sources): Uint8Array {
    const credential = credentialKey(caller)
    const entry = this.entries.get(caller.user.id)
    if (
      entry !== undefined &&
      entry.credential === credential &&
      entry.sources.user === sources.user &&
      entry.sources.plan === sources.plan &&
      entry.sources.orgs === sources.orgs
    ) {
      return entry.body
    }
    const body = new TextEncoder().encode(JSON.stringify(encode(build(caller, sources))))
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear()
    this.entries.set(caller.user.id, { sources, credential, body })
    return body
  }
}
