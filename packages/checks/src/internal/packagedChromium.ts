/**
 * The Chromium inside the `@sparticuz/chromium` npm package (a chrome-headless-shell build for x64 Linux): its
 * `executablePath()` unpacks a brotli archive to `<tmpdir>/chromium` on first use and, from then on, returns any
 * file found there as finished. Several processes ask at once in one test run (both e2e projects and the checks
 * tests), and the package writes straight to the final path, so a second process could be handed a half-written
 * binary. The unpack therefore runs under a lock shared between processes, and a marker written once it has
 * finished tells a complete binary of this version from a partial one, or from another version's.
 *
 * @internal
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The unpacked browser and the flags its package recommends.
 *
 * @internal
 */
export interface Unpacked {
  readonly executablePath: string
  readonly version: string
  readonly args: ReadonlyArray<string>
}

/**
 * Unpacking failed; `message` says why in one line.
 *
 * @internal
 */
export class UnpackFailed extends Data.TaggedError("UnpackFailed")<{ readonly message: string }> {}

const firstLine = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.split("\n")[0]?.trim() || "unknown error"
}

const isErrno = (cause: unknown, code: string): boolean =>
  cause instanceof Error && "code" in cause && cause.code === code

const attempt = <A>(what: string, run: () => Promise<A>): Effect.Effect<A, UnpackFailed> =>
  Effect.tryPromise({ try: run, catch: (cause) => new UnpackFailed({ message: `${what}: ${firstLine(cause)}` }) })

/**
 * How long a lock may be held by a process that looks alive before a waiter gives up, and how long a lock without
 * its owner's pid (a holder that died between taking it and writing the pid) is left alone.
 *
 * @internal
 */
export interface LockTiming {
  readonly wait: Duration.DurationInput
  readonly poll: Duration.DurationInput
  readonly ownerlessGrace: Duration.DurationInput
}

const defaultTiming: LockTiming = { wait: "3 minutes", poll: "100 millis", ownerlessGrace: "10 seconds" }

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (cause) {
    // EPERM: the process exists but belongs to another user.
    return !isErrno(cause, "ESRCH")
  }
}

const Pid = Schema.NumberFromString.pipe(Schema.int(), Schema.positive())

// A lock whose holder died (killed mid-unpack, a crashed run) would otherwise block every later process.
const isStale = (dir: string, ownerlessGraceMs: number): Effect.Effect<boolean, UnpackFailed> =>
  Effect.gen(function* () {
    const owner = yield* Effect.promise(() =>
      fs.promises.readFile(path.join(dir, "pid"), "utf8").then(
        (text) => Schema.decodeUnknownOption(Pid)(text.trim()),
        () => undefined
      )
    )
    if (owner !== undefined && owner._tag === "Some") return !alive(owner.value)
    const since = yield* Effect.promise(() =>
      fs.promises.stat(dir).then(
        (stat) => Date.now() - stat.mtimeMs,
        () => 0
      )
    )
    return since > ownerlessGraceMs
  })

// Never fails: a lock that cannot be removed is found stale or waited out by the next process.
const removeLock = (dir: string): Effect.Effect<void> =>
  Effect.promise(() => fs.promises.rm(dir, { recursive: true, force: true }).catch(() => undefined))

const take = (dir: string): Effect.Effect<boolean, UnpackFailed> =>
  attempt(`cannot create the lock ${dir}`, () =>
    fs.promises.mkdir(dir).then(
      () => true,
      (cause: unknown) => {
        if (isErrno(cause, "EEXIST")) return false
        throw cause
      }
    )
  )

const acquire = (dir: string, timing: LockTiming): Effect.Effect<void, UnpackFailed> =>
  Effect.gen(function* () {
    const started = yield* Clock.currentTimeMillis
    const waitMs = Duration.toMillis(timing.wait)
    const graceMs = Duration.toMillis(timing.ownerlessGrace)
    while (!(yield* take(dir))) {
      if (yield* isStale(dir, graceMs)) {
        yield* removeLock(dir)
        continue
      }
      if ((yield* Clock.currentTimeMillis) - started > waitMs) {
        return yield* new UnpackFailed({
          message: `another process has held ${dir} for over ${waitMs / 1000} s; remove it if no unpack is running`
        })
      }
      yield* Effect.sleep(timing.poll)
    }
    yield* attempt(`cannot write ${dir}/pid`, () => fs.promises.writeFile(path.join(dir, "pid"), String(process.pid)))
  })

/**
 * Run `body` while holding the lock directory `dir` (created with `mkdir`, which is atomic across processes);
 * the lock is removed when `body` ends, however it ends. A lock left by a dead process is broken.
 *
 * @internal
 */
export const withLock = <A, E, R>(
  dir: string,
  body: Effect.Effect<A, E, R>,
  timing: LockTiming = defaultTiming
): Effect.Effect<A, E | UnpackFailed, R> =>
  Effect.acquireUseRelease(
    acquire(dir, timing),
    () => body,
    () => removeLock(dir)
  )

const PackageJson = Schema.parseJson(Schema.Struct({ version: Schema.String }))

// The package's exports map hides its package.json, so it is found from the entry point's location.
const packageVersion: Effect.Effect<string, UnpackFailed> = Effect.gen(function* () {
  const entry = yield* Effect.try({
    try: () => createRequire(import.meta.url).resolve("@sparticuz/chromium"),
    catch: (cause) => new UnpackFailed({ message: `@sparticuz/chromium is not installed: ${firstLine(cause)}` })
  })
  const file = path.join(path.dirname(entry), "..", "package.json")
  const text = yield* attempt(`cannot read ${file}`, () => fs.promises.readFile(file, "utf8"))
  const decoded = yield* Schema.decodeUnknown(PackageJson)(text).pipe(
    Effect.mapError(() => new UnpackFailed({ message: `${file} has no version` }))
  )
  return decoded.version
})

const Marker = Schema.parseJson(Schema.Struct({ size: Schema.Number }))

// Finished when the marker of this version names the size the binary still has.
const finished = (binary: string, marker: string): Effect.Effect<boolean> =>
  Effect.promise(async () => {
    const [text, stat] = await Promise.all([
      fs.promises.readFile(marker, "utf8").catch(() => undefined),
      fs.promises.stat(binary).catch(() => undefined)
    ])
    if (text === undefined || stat === undefined) return false
    const recorded = Schema.decodeUnknownOption(Marker)(text)
    return recorded._tag === "Some" && recorded.value.size === stat.size
  })

/**
 * Unpack the packaged Chromium once per machine (per temporary directory and package version) and return where it
 * is. Only meaningful on x64 Linux with glibc; the caller checks that first.
 *
 * @internal
 */
export const unpack: Effect.Effect<Unpacked, UnpackFailed> = Effect.gen(function* () {
  const version = yield* packageVersion
  // Imported here rather than at the top: it is large, and only this path needs it.
  const { default: Chromium } = yield* attempt("cannot load @sparticuz/chromium", () => import("@sparticuz/chromium"))
  const dir = os.tmpdir()
  const binary = path.join(dir, "chromium")
  const marker = path.join(dir, `.signalman-sparticuz-chromium-${version}.json`)
  if (!(yield* finished(binary, marker))) {
    yield* withLock(
      path.join(dir, ".signalman-sparticuz-chromium.lock"),
      Effect.gen(function* () {
        if (yield* finished(binary, marker)) return
        // Whatever is there is partial or another version's, and the package would return it as it is.
        yield* attempt(`cannot replace ${binary}`, () => fs.promises.rm(binary, { force: true }))
        yield* attempt(`cannot unpack @sparticuz/chromium into ${dir}`, () => Chromium.executablePath())
        const stat = yield* attempt(`cannot read ${binary}`, () => fs.promises.stat(binary))
        yield* attempt(`cannot write ${marker}`, () =>
          fs.promises.writeFile(marker, JSON.stringify({ size: stat.size }))
        )
      })
    )
  }
  // With the binary in place this returns at once; the swiftshader and font archives it checks are small.
  const executablePath = yield* attempt(`cannot unpack @sparticuz/chromium into ${dir}`, () =>
    Chromium.executablePath()
  )
  return { executablePath, version, args: Chromium.args }
})
