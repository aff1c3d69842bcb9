/**
 * The request id, set by the outermost middleware for the whole handling of a request, so any layer (the
 * error renderer above all) can stamp it without threading it through every signature.
 */
import * as FiberRef from "effect/FiberRef"

export const currentRequestId: FiberRef.FiberRef<string | null> = FiberRef.unsafeMake<string | null>(null)

const wellFormed = /^[A-Za-z0-9._:-]{1,128}$/

/** A caller's or proxy's `X-Request-Id` is kept when it is short and plain; otherwise a fresh one is made. */
export const chooseRequestId = (incoming: string | undefined): string =>
  incoming !== undefined && wellFormed.test(incoming) ? incoming : crypto.randomUUID()
