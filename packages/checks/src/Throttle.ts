/**
 * The per-host throttle: at most `checker.per_host_max_inflight` checks in flight per (org, host, port), so one
 * org's monitors cannot pile onto a host. A tick over the cap is dropped, not queued: the caller writes no result
 * and fires no alert, and the next tick tries again.
 *
 * @since 0.1.0
 */
import type { CheckSpec } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { ProbeSettings } from "./ProbeSettings.js"

/**
 * What the throttle counts by. Build it with {@link key} or {@link keyOf}, which normalise the host.
 *
 * @since 0.1.0
 * @category models
 */
export interface Key {
  readonly org: string
  readonly host: string
  /** null for ping, which has no port. */
  readonly port: number | null
}

/**
 * A throttled run: the check's value, or word that it was dropped because its host was at the cap.
 *
 * @since 0.1.0
 * @category models
 */
export type Admission<A> = { readonly _tag: "Ran"; readonly value: A } | { readonly _tag: "Dropped"; readonly key: Key }

/**
 * A key with the host normalised (case, IPv6 brackets, a trailing dot), so spellings of one host share a count.
 *
 * @since 0.1.0
 * @category constructors
 */
export const key = (org: string, host: string, port: number | null): Key => {
  let bare = host.trim().toLowerCase()
  if (bare.startsWith("[") && bare.endsWith("]")) bare = bare.slice(1, -1)
  if (bare.endsWith(".")) bare = bare.slice(0, -1)
  return { org, host: bare, port }
}

const urlKey = (org: string, text: string): Option.Option<Key> => {
  try {
    const url = new URL(text)
    const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
    return Option.some(key(org, url.hostname, port))
  } catch {
    // An unparsable url never reaches a host; its probe reports it without dialing.
    return Option.none()
  }
}

/**
 * The key a check counts against, or none for the kinds that do not contact one host of the target: dns asks a
 * resolver, domain_expiry an RDAP server (limited per TLD), heartbeat and manual are not probed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const keyOf = (org: string, check: CheckSpec): Option.Option<Key> => {
  switch (check.type) {
    case "http":
      return urlKey(org, check.url)
    case "flow":
      return urlKey(org, check.start_url)
    case "tcp":
    case "tls_cert":
      return Option.some(key(org, check.host, check.port))
    case "ping":
      return Option.some(key(org, check.host, null))
    case "dns":
    case "domain_expiry":
    case "heartbeat":
    case "manual":
      return Option.none()
  }
}

// One string per key: JSON keeps the parts apart whatever characters a host or org id holds.
const slot = (k: Key): string => JSON.stringify([k.org, k.host, k.port])

/**
 * The throttle: `run` admits or drops a check for its key; one per process, since the counts are the process's.
 *
 * @since 0.1.0
 * @category services
 */
export class Throttle extends Effect.Service<Throttle>()("Signalman/Throttle", {
  effect: Effect.gen(function* () {
    const settings = yield* ProbeSettings
    // Counts only for keys in flight: an entry is removed when its count returns to zero, so the map stays as
    // small as the work under way. A plain Map read and written in one synchronous step each time: nothing can
    // interleave with it, and an immutable map rebuilt on every take and give was a cost the benchmark showed.
    const inflight = new Map<string, number>()

    const enter = (k: Key): boolean => {
      const at = slot(k)
      const held = inflight.get(at) ?? 0
      if (held >= settings.perHostMaxInflight) return false
      inflight.set(at, held + 1)
      return true
    }

    const leave = (k: Key): void => {
      const at = slot(k)
      const held = inflight.get(at) ?? 0
      if (held <= 1) inflight.delete(at)
      else inflight.set(at, held - 1)
    }

    return {
      /**
       * Runs `check` if `k` is under the cap, holding a slot until it ends however it ends (success, failure,
       * interruption); otherwise answers Dropped at once without running it.
       */
      run: <A, E, R>(k: Key, check: Effect.Effect<A, E, R>): Effect.Effect<Admission<A>, E, R> =>
        Effect.uninterruptibleMask((restore) =>
          Effect.suspend(() => {
            if (!enter(k)) return Effect.succeed<Admission<A>>({ _tag: "Dropped", key: k })
            return Effect.onExit(
              Effect.map(restore(check), (value): Admission<A> => ({ _tag: "Ran", value })),
              () => Effect.sync(() => leave(k))
            )
          })
        ),
      /**
       * Takes a slot for `k` if it is under the cap (true) or refuses (false), in one synchronous step. For a
       * caller that already runs the check in an uninterruptible region with its own finalizer (the Runner, which
       * frees its permit there too): it must call {@link leave} exactly once for each slot taken.
       */
      enter,
      /** Gives back a slot {@link enter} took. */
      leave,
      /** How many checks hold a slot for `k` now. */
      inflight: (k: Key): Effect.Effect<number> => Effect.sync(() => inflight.get(slot(k)) ?? 0)
    }
  })
}) {}
