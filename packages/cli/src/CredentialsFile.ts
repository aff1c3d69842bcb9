/**
 * The credentials `signalman login` stores: one file, `signalman/credentials.json` under the user's config
 * directory (`$XDG_CONFIG_HOME`, else `~/.config`; `~/Library/Application Support` on macOS; `%APPDATA%` on
 * Windows), readable by its owner only (mode 0600, in a directory of mode 0700).
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * What the file holds: the service, the token, and the org to act on (for a token not bound to one).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Stored = Schema.Struct({
  url: Schema.String,
  token: Schema.String,
  org: Schema.optionalWith(Schema.String, { exact: true })
}).annotations({ identifier: "StoredCredentials" })

/**
 * @since 0.1.0
 * @category models
 */
export type Stored = typeof Stored.Type

/**
 * Where the user's config directory is: what the platform's conventions say, from the environment.
 *
 * @since 0.1.0
 * @category locations
 */
export const configDirectory = (
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  home: string
): string => {
  if (platform === "win32") return env["APPDATA"] ?? path.join(home, "AppData", "Roaming")
  if (platform === "darwin") return path.join(home, "Library", "Application Support")
  const xdg = env["XDG_CONFIG_HOME"]
  // The XDG spec ignores a relative XDG_CONFIG_HOME.
  return xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(home, ".config")
}

/**
 * The credentials file's path.
 *
 * @since 0.1.0
 * @category locations
 */
export const location = (env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform, home: string) =>
  path.join(configDirectory(env, platform, home), "signalman", "credentials.json")

/**
 * The file cannot be read or written, or does not hold what `login` writes.
 *
 * @since 0.1.0
 * @category errors
 */
export class FileError extends Data.TaggedError("CredentialsFileError")<{
  readonly file: string
  readonly reason: string
}> {
  override get message() {
    return `${this.file}: ${this.reason}`
  }
}

/**
 * The stored credentials, or none when there is no file.
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (file: string): Effect.Effect<Stored | undefined, FileError> =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => fs.readFile(file, "utf8"),
      catch: (error) => error
    }).pipe(
      Effect.catchAll((error) =>
        error instanceof Error && "code" in error && error.code === "ENOENT"
          ? Effect.succeed(undefined)
          : Effect.fail(new FileError({ file, reason: error instanceof Error ? error.message : String(error) }))
      )
    )
    if (text === undefined) return undefined
    const decoded = Schema.decodeUnknownEither(Schema.parseJson(Stored))(text)
    if (Either.isLeft(decoded)) {
      return yield* new FileError({
        file,
        reason: `is not what signalman login writes (run it again): ${ParseResult.TreeFormatter.formatErrorSync(decoded.left)}`
      })
    }
    return decoded.right
  })

/**
 * Writes the credentials, readable by the owner only. The file is written beside its final name and renamed into
 * place, so a reader never sees half of it, and it is 0600 from its first byte.
 *
 * @since 0.1.0
 * @category writing
 */
export const write = (file: string, stored: Stored): Effect.Effect<void, FileError> =>
  Effect.tryPromise({
    try: async () => {
      await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
      const temporary = `${file}.${process.pid}.tmp`
      await fs.writeFile(temporary, `${JSON.stringify(Schema.encodeSync(Stored)(stored), null, 2)}\n`, {
        mode: 0o600
      })
      // writeFile's mode passes through the umask, which may only take bits away; set it exactly anyway.
      await fs.chmod(temporary, 0o600)
      await fs.rename(temporary, file)
    },
    catch: (error) =>
      new FileError({ file, reason: `could not write: ${error instanceof Error ? error.message : String(error)}` })
  })
