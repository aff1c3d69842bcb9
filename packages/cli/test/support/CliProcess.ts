/**
 * The `signalman` command as its own process, in a working directory of the test's choosing: the run's bundle of it
 * (test-support/Bundles.ts) by default, from source the way `pnpm signalman` runs it (node with tsx's loader on
 * src/bin.ts) when asked, or a built bin.js.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs/promises"
import { createRequire } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import * as Effect from "effect/Effect"
import { inject } from "vitest"

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's bundle of the CLI (test-support/Bundles.ts). */
    readonly cliBin: string
  }
}

export const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href

export interface Exited {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs `signalman <args>` in `cwd` with only the environment given (and PATH), to its exit; bounded by 60 s. The
 * run's bundle by default; `source` runs src/bin.ts through tsx, `bin` names a built bin.js to run with plain node.
 */
export const run = (
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env?: Readonly<Record<string, string>>
    readonly bin?: string
    readonly source?: boolean
  }
): Effect.Effect<Exited> =>
  Effect.async<Exited>((resume) => {
    const entry =
      options.bin !== undefined
        ? [options.bin]
        : options.source === true
          ? ["--import", tsxLoader, path.join(cliDir, "src/bin.ts")]
          : [inject("cliBin")]
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd: options.cwd,
      env: { PATH: process.env["PATH"] ?? "", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 60_000
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("close", (code) => resume(Effect.succeed({ code, stdout, stderr })))
    return Effect.sync(() => child.kill())
  })

/** A fresh directory holding `files`, removed when the scope closes. */
export const directory = (files: Readonly<Record<string, string>>) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), "signalman-cli-"))
      for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(dir, name), text)
      return dir
    }),
    (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
  )
