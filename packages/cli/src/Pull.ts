/**
 * `signalman pull [--out FILE] [--project NAME] [--adopt]`: writes the org's resources as a config file
 * (`PullConfig`): YAML, or JSON when the file ends in `.json`; `signalman.yaml` by default, never over an existing
 * file. Nothing on the service changes unless `--adopt`, which stamps each pulled resource with `<project>/<key>`
 * (`PATCH {}` with `Signalman-Managed-By`), after which `plan` on the file shows no changes. `--project` names the
 * project (required with `--adopt`; `default` otherwise). Exit 0 when written (and adopted), 1 otherwise.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as YAML from "yaml"
import * as CurrentRead from "./CurrentRead.js"
import { Failed } from "./ExitCode.js"
import * as Import from "./Import.js"
import * as Planning from "./Planning.js"
import * as PullConfig from "./PullConfig.js"
import * as ServiceClient from "./ServiceClient.js"
import * as ServiceOptions from "./ServiceOptions.js"

/**
 * The project of a pull without `--project`.
 *
 * @since 0.1.0
 * @category constants
 */
export const DEFAULT_PROJECT = "default"

/**
 * The file's text: JSON for a `.json` file, else YAML with a comment naming the environment variables it reads.
 *
 * @since 0.1.0
 * @category formatting
 */
export const render = (file: string, result: PullConfig.Result, source: string): string => {
  if (path.extname(file).toLowerCase() === ".json") return `${JSON.stringify(result.config, null, 2)}\n`
  const header = [
    `# Pulled from ${source} by signalman pull.`,
    ...(result.env.length === 0 ? [] : [`# Secrets are read from the environment: ${result.env.join(", ")}.`])
  ]
  return `${header.join("\n")}\n${YAML.stringify(result.config, { lineWidth: 0 })}`
}

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "pull",
  {
    out: Options.text("out").pipe(
      Options.withAlias("o"),
      Options.withDescription("The file to write (.yaml, .yml or .json); it must not exist"),
      Options.withDefault("signalman.yaml")
    ),
    project: Options.text("project").pipe(
      Options.withDescription(`The file's project (default ${DEFAULT_PROJECT}; required with --adopt)`),
      Options.optional
    ),
    adopt: Options.boolean("adopt").pipe(
      Options.withDescription("Stamp every pulled resource as managed by the project under its key")
    ),
    ...ServiceOptions.options
  },
  ({ out, project: named, adopt, ...given }) =>
    Effect.gen(function* () {
      if (adopt && Option.isNone(named)) return yield* Planning.fail("pull", "--adopt needs --project NAME")
      const project = Option.getOrElse(named, () => DEFAULT_PROJECT)
      if (!ManagedBy.PROJECT_PATTERN.test(project)) {
        return yield* Planning.fail("pull", `--project "${project}": must be 1 to 64 of a-z, 0-9 and -`)
      }
      if (![".yaml", ".yml", ".json"].includes(path.extname(out).toLowerCase())) {
        return yield* Planning.fail("pull", `--out ${out}: name a .yaml, .yml or .json file`)
      }
      const target = path.resolve(process.cwd(), out)
      const exists = yield* Effect.promise(() =>
        fs.stat(target).then(
          () => true,
          () => false
        )
      )
      if (exists) return yield* Planning.fail("pull", `${out} already exists: name another file with --out`)
      const { credentials, client } = yield* Planning.connect(given)
      const failed = Planning.serviceFailed("pull", credentials.url)
      const org = yield* CurrentRead.read(client, undefined).pipe(Effect.catchAll(failed))
      const result = PullConfig.build(project, org)
      yield* Effect.tryPromise(() => fs.writeFile(target, render(out, result, credentials.url), { flag: "wx" })).pipe(
        Effect.catchAll((error) => Planning.fail("pull", `could not write ${out}: ${String(error.error)}`))
      )
      for (const note of result.notes) yield* Console.error(`signalman pull: left out: ${note}`)
      yield* Console.log(
        `Wrote ${out}: project "${project}", ${result.pulled.length} resources` +
          (result.env.length === 0 ? "." : `; set ${result.env.join(", ")} in the environment before plan or apply.`)
      )
      if (!adopt) return
      const adopted: Array<string> = []
      for (const [i, resource] of result.pulled.entries()) {
        const outcome = yield* Effect.either(
          Import.adopt(client, resource.type, resource.id, { project, key: resource.key })
        )
        if (Either.isLeft(outcome)) {
          const rest = result.pulled.slice(i).map((r) => `${r.type} ${r.key}`)
          yield* Console.error(
            `signalman pull: adopting ${resource.type} ${resource.key} failed: ${ServiceClient.describe(outcome.left)}\n` +
              `Adopted ${adopted.length}: ${adopted.join(", ") || "none"}\nNot adopted ${rest.length}: ${rest.join(", ")}`
          )
          return yield* new Failed({ code: 1 })
        }
        adopted.push(`${resource.type} ${resource.key}`)
      }
      yield* Console.log(`Adopted ${adopted.length} resources into project "${project}".`)
    })
).pipe(Command.withDescription("Write the org's resources as a config file; --adopt makes the project manage them"))
