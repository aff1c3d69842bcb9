/**
 * A process whose clock is off (the fault suite's clock skew, docs/faults.md): loaded before anything else with
 * `NODE_OPTIONS=--import <this file>`, it shifts `Date` by `SIGNALMAN_TEST_CLOCK_OFFSET_MS` milliseconds (positive:
 * ahead, negative: behind). `Date.now()`, `new Date()` and `Date()` read the shifted time; a `Date` made from a
 * given time is that time, unshifted. Effect's `Clock` reads `Date.now()` (and anchors its nanosecond clock on it at
 * its first read), so the engine, its logs and everything else in the process see the shifted time, as on a machine
 * whose clock is that far off; timers (`setTimeout`) count real durations, as they do there.
 *
 * Plain JavaScript, not TypeScript: it is loaded before the process's `--import tsx` has registered the loader.
 */
const offset = Number(process.env["SIGNALMAN_TEST_CLOCK_OFFSET_MS"] ?? "0")
if (!Number.isFinite(offset)) throw new Error("SIGNALMAN_TEST_CLOCK_OFFSET_MS is not a number")

const RealDate = globalThis.Date
const shiftedNow = () => RealDate.now() + offset

globalThis.Date = new Proxy(RealDate, {
  // `new Date()` is now; `new Date(x)` is x, as with the real one.
  construct: (target, args, newTarget) =>
    Reflect.construct(target, args.length === 0 ? [shiftedNow()] : args, newTarget),
  // `Date()` called as a function answers the current time as a string.
  apply: () => new RealDate(shiftedNow()).toString(),
  get: (target, property, receiver) => (property === "now" ? shiftedNow : Reflect.get(target, property, receiver))
})
