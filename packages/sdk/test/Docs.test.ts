/**
 * Every export of the SDK carries TSDoc, and so does every public member of an exported interface or class: the
 * reference page (`pnpm --filter @signalman/sdk docs`) is generated from it. Read by parsing the sources (no type
 * check), so the test takes milliseconds.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "@effect/vitest"
import ts from "typescript"

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src")

const files = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return files(full)
    return entry.name.endsWith(".ts") ? [full] : []
  })

const documented = (node: ts.Node): boolean =>
  ts
    .getJSDocCommentsAndTags(node)
    .some((doc) => ts.isJSDoc(doc) && (doc.comment !== undefined || (doc.tags?.length ?? 0) > 0))

const exported = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)

const nameOf = (node: ts.Node): string => {
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.map((d) => d.name.getText()).join(", ")
  if (ts.isExportDeclaration(node)) return node.getText().split("\n")[0] ?? "export"
  const name = (node as { readonly name?: ts.Node }).name
  return name === undefined ? ts.SyntaxKind[node.kind] : name.getText()
}

const missing = (file: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.ES2022, true)
  const where = path.relative(src, file)
  const out: Array<string> = []
  for (const statement of source.statements) {
    const isExport = exported(statement) || ts.isExportDeclaration(statement)
    if (!isExport) continue
    if (!documented(statement)) out.push(`${where}: ${nameOf(statement)}`)
    if (ts.isInterfaceDeclaration(statement) || ts.isClassDeclaration(statement)) {
      for (const member of statement.members) {
        const hidden =
          member.name === undefined ||
          ts.isPrivateIdentifier(member.name) ||
          (ts.getCombinedModifierFlags(member as ts.Declaration) & ts.ModifierFlags.Private) !== 0
        if (!hidden && !documented(member)) out.push(`${where}: ${nameOf(statement)}.${member.name?.getText()}`)
      }
    }
  }
  return out
}

describe("TSDoc", () => {
  it("every export of src/ and every public member of an exported interface or class is documented", () => {
    const all = files(src)
    assert.isAbove(all.length, 10)
    assert.deepStrictEqual(all.flatMap(missing), [])
  })
})
