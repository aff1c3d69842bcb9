/**
 * The project's own documentation (`docs/*.md` at the repository's root), served under `/docs/<name>`.
 *
 * The folder is listed once, when the server starts, and only regular files with plain names (`billing.md`:
 * lowercase letters, digits and hyphens) are kept, read into memory with their titles. A request names a page, and
 * the page is looked up among those: no request path ever reaches the file system, so `..`, encoded slashes, dot
 * files and symbolic links cannot be asked for.
 *
 * Where the folder is: found from the server package itself (as the dashboard's assets are), so the same code works
 * when the server runs from its sources with tsx (`packages/server/src`) and from its bundle (`packages/server/dist`):
 * `<package>/docs` if a deployment copied the docs beside the package, else `<package>/../../docs`, the repository's
 * folder. When neither exists (an image built without the docs) the list is empty: `/docs` still answers its API
 * reference and its index, and every page under it is 404.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** One page of the documentation. */
export interface DocPage {
  /** The file name without `.md`: the page's path segment (`/docs/<name>`). */
  readonly name: string
  /** The text of the first level-one heading, else the name. */
  readonly title: string
  readonly markdown: string
}

const PLAIN_FILE = /^[a-z0-9][a-z0-9-]*\.md$/
const PLAIN_NAME = /^[a-z0-9][a-z0-9-]*$/

/** Whether a file name is one the docs folder serves (`billing.md`, not `.hidden.md`, `notes.txt` or `A b.md`). */
export const isPlainFile = (file: string): boolean => PLAIN_FILE.test(file)

/** Whether a path segment can name a page at all (`billing`), before it is looked up among the pages. */
export const isPlainName = (segment: string): boolean => PLAIN_NAME.test(segment)

/** The page's title: its first `# ` heading (trailing `#`s of the closed form removed), else its name. */
export const titleOf = (name: string, markdown: string): string => {
  const heading = /^# +(.+?)(?: +#+)? *$/m.exec(markdown)
  return heading?.[1]?.trim() ?? name
}

/** The folders tried, in order, for a server package at `packageDir`. */
export const candidates = (packageDir: string): ReadonlyArray<string> => [
  path.join(packageDir, "docs"),
  path.resolve(packageDir, "..", "..", "docs")
]

const isDirectory = (dir: string) => {
  try {
    return fs.statSync(dir).isDirectory()
  } catch {
    return false
  }
}

/** The docs folder of this installation, if any. */
export const locate: Effect.Effect<string | undefined> = Effect.sync(() => {
  const manifest = createRequire(import.meta.url).resolve("@signalman/server/package.json")
  return candidates(path.dirname(manifest)).find(isDirectory)
})

/** The docs folder could not be listed or one of its pages read. */
export class DocsUnreadable extends Data.TaggedError("DocsUnreadable")<{
  readonly dir: string
  readonly cause: unknown
}> {}

/** The pages of a folder, sorted by name: its regular files with plain names, read once. */
export const read = (dir: string): Effect.Effect<ReadonlyArray<DocPage>, DocsUnreadable> =>
  Effect.try({
    try: () =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isFile() && isPlainFile(entry.name))
        .map((entry) => {
          const name = entry.name.slice(0, -".md".length)
          const markdown = fs.readFileSync(path.join(dir, entry.name), "utf8")
          return { name, title: titleOf(name, markdown), markdown }
        })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    catch: (cause) => new DocsUnreadable({ dir, cause })
  })
