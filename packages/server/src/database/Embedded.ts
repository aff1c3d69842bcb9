/**
 * The embedded database: PGlite (PostgreSQL compiled to WebAssembly) in `data_dir`, served on a private unix
 * socket by `pglite-socket`, so the same `@effect/sql-pg` client and the same SQL serve it and a real PostgreSQL.
 */

import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { PGlite } from "@electric-sql/pglite"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"

export class EmbeddedDatabaseError extends Data.TaggedError("EmbeddedDatabaseError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface Embedded {
  /** Directory holding the socket `.s.PGSQL.5432`: the client's `host`. */
  readonly socketDir: string
  readonly port: 5432
  /** The database's files as one image (PGlite's `dumpDataDir`), which a later in-memory start may begin from. */
  readonly image: Effect.Effect<Blob, EmbeddedDatabaseError>
}

/**
 * An image an in-memory database starts from instead of an empty cluster. Running initdb and every migration costs
 * seconds of WebAssembly per start; the test suite starts hundreds of servers, so it migrates one database, keeps
 * its image and starts each server's database from it. Unset (the default), a database starts empty.
 */
export class Seed extends Context.Reference<Seed>()("Signalman/EmbeddedSeed", {
  defaultValue: (): Option.Option<Blob> => Option.none()
}) {}

const MEMORY = "memory://"

// Two processes writing one PGlite directory would corrupt it: a lock file holds the owner's pid.
const lock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const lockPath = path.join(dataDir, "signalman.lock")
        try {
          fs.writeFileSync(lockPath, String(process.pid), { flag: "wx" })
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
          const owner = Number(fs.readFileSync(lockPath, "utf8").trim())
          if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner)) {
            throw new Error(`the data directory ${dataDir} is in use by process ${owner}`)
          }
          fs.writeFileSync(lockPath, String(process.pid))
        }
        return lockPath
      },
      catch: (cause) =>
        new EmbeddedDatabaseError({ message: cause instanceof Error ? cause.message : String(cause), cause })
    }),
    (lockPath) => Effect.sync(() => fs.rmSync(lockPath, { force: true }))
  )

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

export const start = (
  dataDir: string,
  maxConnections: number
): Effect.Effect<Embedded, EmbeddedDatabaseError, Scope.Scope> =>
  Effect.gen(function* () {
    const inMemory = dataDir === MEMORY
    if (!inMemory) {
      yield* Effect.try({
        try: () => fs.mkdirSync(dataDir, { recursive: true }),
        catch: (cause) => new EmbeddedDatabaseError({ message: `cannot create data_dir ${dataDir}`, cause })
      })
      yield* lock(dataDir)
    }
    const seed = inMemory ? yield* Seed : Option.none<Blob>()
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          Option.match(seed, {
            onNone: () => PGlite.create(inMemory ? MEMORY : path.resolve(dataDir, "pg")),
            onSome: (loadDataDir) => PGlite.create({ dataDir: MEMORY, loadDataDir })
          }),
        catch: (cause) =>
          new EmbeddedDatabaseError({ message: `cannot open the embedded database in ${dataDir}`, cause })
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.timeout("10 seconds"), Effect.ignore)
    )
    // Unix socket paths are limited to ~100 bytes, so the socket lives in a short private temp directory.
    const socketDir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "sm-pg-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          const server = new PGLiteSocketServer({ db, path: path.join(socketDir, ".s.PGSQL.5432"), maxConnections })
          await server.start()
          return server
        },
        catch: (cause) => new EmbeddedDatabaseError({ message: "cannot start the embedded database socket", cause })
      }),
      (server) => Effect.promise(() => server.stop()).pipe(Effect.timeout("5 seconds"), Effect.ignore)
    )
    const image = Effect.tryPromise({
      try: () => db.dumpDataDir("none"),
      catch: (cause) => new EmbeddedDatabaseError({ message: "cannot take an image of the embedded database", cause })
    })
    return { socketDir, port: 5432, image } as const
  })
