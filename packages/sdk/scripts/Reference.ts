/**
 * The SDK's reference page, generated: every public module's exports with their TSDoc (read with the TypeScript
 * compiler API from the sources), and every method of the Promise client (read from the contract: the route, and
 * the description the OpenAPI document shows). Exports without TSDoc are listed, so the generator and its test can
 * refuse them.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"
import ts from "typescript"
import { place } from "../src/Layout.js"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..")
const src = path.join(root, "src")

/** The generated page and what it found undocumented. */
export interface Reference {
  readonly markdown: string
  /** `Module.export` for each export without TSDoc. */
  readonly undocumented: ReadonlyArray<string>
}

// The public modules: every file of src/ but the internals the exports map hides.
const modules = (): ReadonlyArray<string> =>
  fs
    .readdirSync(src)
    .filter((file) => file.endsWith(".ts"))
    .sort((a, b) => (a === "index.ts" ? -1 : b === "index.ts" ? 1 : a.localeCompare(b)))
    .map((file) => path.join(src, file))

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  resolveJsonModule: true,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: ["node"]
}

const docOf = (symbol: ts.Symbol, checker: ts.TypeChecker): string =>
  ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()

const tagsOf = (symbol: ts.Symbol): ReadonlyMap<string, string> =>
  new Map(symbol.getJsDocTags().map((tag) => [tag.name, ts.displayPartsToString(tag.text).trim()]))

const flags = ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.UseSingleQuotesForStringLiteralType

// The declaration as a reader wants it: a function's signature, a type's or an interface's source.
const signature = (symbol: ts.Symbol, checker: ts.TypeChecker): string => {
  const declaration = symbol.declarations?.[0]
  if (declaration === undefined) return symbol.name
  if (ts.isInterfaceDeclaration(declaration) || ts.isTypeAliasDeclaration(declaration)) {
    return declaration.getText().replace(/\/\*\*[\s\S]*?\*\/\s*/g, "")
  }
  if (ts.isClassDeclaration(declaration)) {
    const heritage = declaration.heritageClauses?.map((clause) => clause.getText()).join(" ") ?? ""
    return `class ${symbol.name}${declaration.typeParameters ? `<${declaration.typeParameters.map((p) => p.getText()).join(", ")}>` : ""} ${heritage}`.trim()
  }
  const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
  const kind = ts.isFunctionDeclaration(declaration) ? "function" : "const"
  return `${kind} ${symbol.name}: ${checker.typeToString(type, declaration, flags)}`
}

// A class's or an interface's documented members, one line each.
const members = (symbol: ts.Symbol, checker: ts.TypeChecker): ReadonlyArray<string> => {
  const declaration = symbol.declarations?.[0]
  if (declaration === undefined || !(ts.isClassDeclaration(declaration) || ts.isInterfaceDeclaration(declaration))) {
    return []
  }
  return declaration.members.flatMap((member) => {
    const name = member.name?.getText()
    const memberSymbol = member.name === undefined ? undefined : checker.getSymbolAtLocation(member.name)
    if (name === undefined || memberSymbol === undefined || name.startsWith("#")) return []
    if (ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Private) return []
    const doc = docOf(memberSymbol, checker).replace(/\s+/g, " ")
    return [`- \`${name}\`${doc === "" ? "" : `: ${doc}`}`]
  })
}

const exportsOf = (file: ts.SourceFile, checker: ts.TypeChecker): ReadonlyArray<ts.Symbol> => {
  const moduleSymbol = checker.getSymbolAtLocation(file)
  return moduleSymbol === undefined ? [] : checker.getExportsOfModule(moduleSymbol)
}

const moduleSection = (file: ts.SourceFile, checker: ts.TypeChecker, undocumented: Array<string>): string => {
  const name = path.basename(file.fileName, ".ts")
  const importPath = name === "index" ? "@signalman/sdk" : `@signalman/sdk/${name}`
  const statement = file.statements[0]
  const ranges = statement === undefined ? [] : (ts.getLeadingCommentRanges(file.text, statement.getFullStart()) ?? [])
  const header = ranges[0] === undefined ? "" : file.text.slice(ranges[0].pos, ranges[0].end)
  const intro = header
    .replace(/^\/\*\*|\*\/$/g, "")
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .filter((line) => !line.startsWith("@"))
    .join("\n")
    .trim()
  const lines = [`## \`${importPath}\``, "", intro, ""]
  for (const exported of exportsOf(file, checker)) {
    const aliased = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported
    const doc = docOf(exported, checker) || docOf(aliased, checker)
    const home = aliased.declarations?.[0]?.getSourceFile().fileName
    // The index re-exports what other modules declare: named here, documented where they are.
    if (home !== undefined && home !== file.fileName) {
      const from = `@signalman/sdk/${path.basename(home, ".ts")}`
      const first = doc.split(/(?<=\.)\s/)[0] ?? ""
      lines.push(`- \`${exported.name}\` (\`${from}\`)${first === "" ? "" : `: ${first.replace(/\s+/g, " ")}`}`)
      continue
    }
    if (aliased.flags & ts.SymbolFlags.ValueModule) continue
    if (doc === "") undocumented.push(`${name}.${exported.name}`)
    const category = tagsOf(aliased).get("category")
    lines.push(`### ${exported.name}${category === undefined ? "" : ` (${category})`}`, "")
    lines.push("```ts", signature(aliased, checker), "```", "")
    if (doc !== "") lines.push(doc, "")
    const list = members(aliased, checker)
    if (list.length > 0) lines.push(...list, "")
  }
  return [...lines, ""].join("\n")
}

const description = (annotations: Context.Context<never>): string =>
  Option.getOrElse(
    Option.orElse(Context.getOption(annotations, OpenApi.Description), () =>
      Context.getOption(annotations, OpenApi.Summary)
    ),
    () => ""
  )

// Whether an input object needs at least one field: then the method's input argument is required.
const required = (ast: AST.AST): boolean =>
  AST.encodedAST(ast)._tag === "Union" || AST.getPropertySignatures(AST.encodedAST(ast)).some((p) => !p.isOptional)

const methods = (): string => {
  const rows = new Map<string, Array<string>>()
  HttpApi.reflect(SignalmanApi, {
    onGroup() {},
    onEndpoint({ group, endpoint }) {
      const placed = place(group.identifier, endpoint.name)
      if (placed === null) return
      const params = [...endpoint.path.matchAll(/:(\w+)/g)].map((match) => match[1])
      const args: Array<string> = []
      if (params.length === 1) args.push(params[0] ?? "id")
      if (params.length > 1) args.push(`{ ${params.join(", ")} }`)
      const inputs = [endpoint.payloadSchema, endpoint.urlParamsSchema].flatMap((schema) =>
        Option.isSome(schema) ? [schema.value.ast] : []
      )
      if (inputs.length > 0) args.push(inputs.some(required) ? "input" : "input?")
      args.push("options?")
      const call = `${placed.namespace === null ? "" : `${placed.namespace}.`}${placed.name}(${args.join(", ")})`
      const text = description(endpoint.annotations).replace(/\|/g, "\\|").replace(/\s+/g, " ")
      const route = endpoint.path.replace(/:(\w+)/g, "{$1}")
      const row = `| \`${call}\` | \`${endpoint.method} ${route}\` | ${text} |`
      const key = placed.namespace ?? "(top level)"
      rows.set(key, [...(rows.get(key) ?? []), row])
    }
  })
  return [...rows]
    .map(([namespace, list]) =>
      [`### ${namespace}`, "", "| method | route | what it does |", "|---|---|---|", ...list, ""].join("\n")
    )
    .join("\n")
}

/** Builds the page. */
export const render = (): Reference => {
  const files = modules()
  const program = ts.createProgram(files, compilerOptions)
  const checker = program.getTypeChecker()
  const undocumented: Array<string> = []
  const sections = files.flatMap((file) => {
    const source = program.getSourceFile(file)
    return source === undefined ? [] : [moduleSection(source, checker, undocumented)]
  })
  const markdown = [
    "# `@signalman/sdk` reference",
    "",
    "<!-- Generated by `pnpm --filter @signalman/sdk docs` (packages/sdk/scripts/docs.ts) from the sources' TSDoc and",
    "     the contract. Not committed: generate it. The guide is packages/sdk/README.md. -->",
    "",
    "## Methods of the Promise client",
    "",
    "Every method takes the path's parameter (or an object of several), then its input when it has one (the JSON",
    "body, the query, or both in one object), then `RequestOptions`; it answers the decoded success, or a",
    "`PageRequest` for a paginated list. See `@signalman/sdk/Signalman` below.",
    "",
    methods(),
    ...sections
  ].join("\n")
  return { markdown, undocumented }
}
