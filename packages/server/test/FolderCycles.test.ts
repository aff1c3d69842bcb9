import { readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"

// The server's folders are its features and shared layers (docs/architecture.md). A folder-level import cycle means
// two features cannot be understood, tested or moved apart, so none is allowed; the files at the root (App.ts,
// main.ts and what only they use) are the composition and may import any folder, but no folder imports them.
const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src")
const ROOT = "(root)"

const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return entry.name.endsWith(".ts") ? [full] : []
  })

const folderOf = (file: string): string => {
  const relative = path.relative(src, file)
  return relative.includes(path.sep) ? (relative.split(path.sep)[0] ?? ROOT) : ROOT
}

/** Folder -> folders it imports, each edge with one import that makes it, to name in a failure. */
const folderGraph = () => {
  const edges = new Map<string, Map<string, string>>()
  for (const file of sourceFiles(src)) {
    const from = folderOf(file)
    for (const match of readFileSync(file, "utf8").matchAll(/from "(\.{1,2}\/[^"]+)"/g)) {
      const target = path.resolve(path.dirname(file), match[1] ?? "")
      const to = folderOf(target)
      if (to === from) continue
      const out = edges.get(from) ?? new Map<string, string>()
      out.set(to, `${path.relative(src, file)} -> ${match[1]}`)
      edges.set(from, out)
    }
  }
  return edges
}

/** Tarjan's strongly connected components with more than one folder: each is a cycle (or several). */
const cycles = (edges: Map<string, Map<string, string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const onStack = new Set<string>()
  const found: Array<Array<string>> = []
  let next = 0
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next)
    next++
    stack.push(v)
    onStack.add(v)
    for (const w of edges.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0))
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: Array<string> = []
      let w: string | undefined
      do {
        w = stack.pop()
        if (w !== undefined) {
          onStack.delete(w)
          component.push(w)
        }
      } while (w !== undefined && w !== v)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const v of edges.keys()) if (!index.has(v)) visit(v)
  return found
}

describe("the server's folders", () => {
  it("no folder imports the composition root", () => {
    const intoRoot = [...folderGraph()]
      .filter(([from]) => from !== ROOT)
      .flatMap(([, out]) => (out.has(ROOT) ? [out.get(ROOT)] : []))
    expect(intoRoot).toEqual([])
  })

  it("no folder-level import cycle", () => {
    const edges = folderGraph()
    edges.delete(ROOT)
    const described = cycles(edges).map((component) =>
      component.flatMap((from) =>
        component.flatMap((to) => {
          const via = edges.get(from)?.get(to)
          return via === undefined ? [] : [`${from} -> ${to} (${via})`]
        })
      )
    )
    expect(described).toEqual([])
  })
})
