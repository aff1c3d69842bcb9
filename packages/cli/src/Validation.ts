/**
 * Validating a config (what `signalman validate` runs, and what `plan` runs first): the environment read into it,
 * each item decoded by its schema, then the rules the API applies that need more than the shape (through core's own
 * rule functions), and the references between items. Every problem is listed, not the first: each item is decoded
 * on its own, so one bad item does not hide another's problems.
 *
 * Offline, so what needs the org (its plan's floor and flags, the instance's regions, variables the file does not
 * hold, slugs taken by others) or the probe's record forms (DNS values) is left to the service.
 *
 * @since 0.1.0
 */

import * as Channel from "@signalman/core/Channel"
import * as CheckUrl from "@signalman/core/CheckUrl"
import * as DnsRules from "@signalman/core/DnsRules"
import * as Maintenance from "@signalman/core/MaintenanceWindow"
import * as StatusPage from "@signalman/core/StatusPage"
import * as Target from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Variables from "@signalman/core/Variables"
import * as Arr from "effect/Array"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as ConfigFile from "./ConfigFile.js"
import type * as Desired from "./Desired.js"
import * as Interpolation from "./Interpolation.js"
import { everyPlan } from "./internal/everyPlan.js"
import * as KeyPath from "./KeyPath.js"
import * as Plan from "./Plan.js"
import * as Problem from "./Problem.js"

type Env = Readonly<Record<string, string | undefined>>

const isRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

// A union refused reports one issue per member at the same path ("must be a colour as #rrggbb" and "Expected null"
// for a nullable colour; "Expected undefined" for an optional field). One problem per path: a rule the value broke
// says more than the types it is not, and "undefined" or "null" are never what the file meant to write.
const merge = (group: ReadonlyArray<ParseResult.ArrayFormatterIssue>): string => {
  const rules = group.filter((issue) => issue._tag !== "Type")
  const types = group.filter((issue) => !/^Expected (undefined|null), actual/.test(issue.message))
  const chosen = rules.length > 0 ? rules : types.length > 0 ? types : group
  return [...new Set(chosen.map((issue) => issue.message))].join("; ")
}

const issues = (error: ParseResult.ParseError, at: KeyPath.KeyPath): Arr.NonEmptyReadonlyArray<Problem.Problem> => {
  const groups = new Map<string, { path: KeyPath.KeyPath; issues: Array<ParseResult.ArrayFormatterIssue> }>()
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = [...at, ...issue.path.map((segment) => (typeof segment === "symbol" ? String(segment) : segment))]
    const id = KeyPath.format(path)
    const group = groups.get(id)
    if (group === undefined) groups.set(id, { path, issues: [issue] })
    else group.issues.push(issue)
  }
  const found = [...groups.values()].map((group) => Problem.make(group.path, merge(group.issues)))
  return Arr.isNonEmptyReadonlyArray(found) ? found : [Problem.make(at, error.message)]
}

const decode = <A, I>(
  schema: Schema.Schema<A, I>,
  value: unknown,
  at: KeyPath.KeyPath
): Either.Either<A, Arr.NonEmptyReadonlyArray<Problem.Problem>> =>
  Either.mapLeft(Schema.decodeUnknownEither(schema)(value, ConfigFile.parseOptions), (error) => issues(error, at))

const violationAt = (at: KeyPath.KeyPath, violation: { readonly field: string | null; readonly message: string }) =>
  Problem.make([...at, ...(violation.field === null ? [] : KeyPath.parse(violation.field))], violation.message)

interface Decoded<A> {
  readonly index: number
  readonly value: A
}

// Each item decoded alone, its problems under its own path.
const decodeList = <A, I>(
  list: ConfigFile.ListName,
  schema: Schema.Schema<A, I>,
  raw: ReadonlyArray<unknown>,
  problems: Array<Problem.Problem>
): ReadonlyArray<Decoded<A>> =>
  raw.flatMap((item, index) => {
    const decoded = decode(schema, item, [list, index])
    if (Either.isLeft(decoded)) {
      problems.push(...decoded.left)
      return []
    }
    return [{ index, value: decoded.right }]
  })

// The keys a list declares, read from the raw items so an item that fails to decode still answers for references.
const declaredKeys = (
  list: ConfigFile.ListName,
  raw: ReadonlyArray<unknown>,
  problems: Array<Problem.Problem>
): ReadonlySet<string> => {
  const first = new Map<string, number>()
  raw.forEach((item, index) => {
    const key = isRecord(item) ? item["key"] : undefined
    if (typeof key !== "string") return
    const earlier = first.get(key)
    if (earlier === undefined) first.set(key, index)
    else problems.push(Problem.make([list, index, "key"], `"${key}" is already the key of ${list}[${earlier}]`))
  })
  return new Set(first.keys())
}

const repeated = <A>(values: ReadonlyArray<A>): ReadonlyArray<number> =>
  values.flatMap((value, i) => (values.indexOf(value) < i ? [i] : []))

/**
 * One place an item names another by key: the list it sits in, the path under the item of each key, and the list the
 * key must be declared in.
 */
interface ReferenceField {
  readonly list: ConfigFile.ListName
  readonly target: "channels" | "monitors"
  readonly keys: (item: Record<string, unknown>) => ReadonlyArray<readonly [KeyPath.KeyPath, unknown]>
  /** What naming the same key twice in one item means. */
  readonly twice: (key: string) => string
}

const listAt = (item: Record<string, unknown>, field: string): ReadonlyArray<unknown> => {
  const value = item[field]
  return Array.isArray(value) ? value : []
}

const referenceFields: ReadonlyArray<ReferenceField> = [
  {
    list: "monitors",
    target: "channels",
    keys: (item) => listAt(item, "alerts").map((key, i) => [["alerts", i], key] as const),
    twice: (key) => `lists "${key}" twice`
  },
  {
    list: "status_pages",
    target: "monitors",
    keys: (item) =>
      listAt(item, "components").map(
        (component, i) =>
          [["components", i, "monitor"], isRecord(component) ? component["monitor"] : undefined] as const
      ),
    twice: (key) => `monitor "${key}" is on this page twice`
  },
  {
    list: "maintenance",
    target: "monitors",
    keys: (item) => listAt(item, "components").map((key, i) => [["components", i], key] as const),
    twice: (key) => `lists "${key}" twice`
  }
]

// References are read from the raw items, so an item refused for its shape still has its references judged.
const referenceProblems = (
  raw: (list: ConfigFile.ListName) => ReadonlyArray<unknown>,
  keys: Readonly<Record<"channels" | "monitors", ReadonlySet<string>>>
): ReadonlyArray<Problem.Problem> =>
  referenceFields.flatMap((field) =>
    raw(field.list).flatMap((item, index) => {
      if (!isRecord(item)) return []
      const named = field.keys(item).flatMap(([path, key]) => (typeof key === "string" ? [[path, key] as const] : []))
      const what = field.target === "channels" ? "channel" : "monitor"
      return named.flatMap(([path, key], i) => {
        const at = [field.list, index, ...path]
        if (!keys[field.target].has(key)) return [Problem.make(at, `no ${what} in this file has the key "${key}"`)]
        return named.findIndex(([, k]) => k === key) < i ? [Problem.make(at, field.twice(key))] : []
      })
    })
  )

// The monitor as a create would store it. The instance's default regions are not known here, so a count policy is
// judged only against regions the file names: without them the policy is put back after the rules ran.
const resolveMonitor = (item: ConfigFile.Monitor) => {
  const { key: _key, alerts: _alerts, ...body } = item
  const judged = item.regions === undefined ? { ...body, region_policy: undefined } : body
  return Either.map(TargetRules.resolveCreate({ ...judged, alerts: [] }, everyPlan, []), (resolved) =>
    item.region_policy === undefined ? resolved : { ...resolved, region_policy: item.region_policy }
  )
}

const checkReferencePath = (field: string): KeyPath.KeyPath => {
  // `Variables.references` names a header as `headers.<name>`, and a header name may hold dots.
  if (field.startsWith("headers.")) return ["check", "headers", field.slice("headers.".length)]
  return ["check", ...KeyPath.parse(field)]
}

const monitorRules = (
  item: ConfigFile.Monitor,
  at: KeyPath.KeyPath,
  secretVariables: ReadonlySet<string>
): { readonly problems: ReadonlyArray<Problem.Problem>; readonly resolved: TargetRules.ResolvedTarget | undefined } => {
  const problems: Array<Problem.Problem> = []
  const sentinel = Target.sentinelField(item.check)
  if (sentinel !== undefined) {
    problems.push(
      violationAt(at, {
        field: sentinel,
        message: `*** is the redaction placeholder, not a credential: write the credential, or read it with ${Interpolation.form}`
      })
    )
  }
  const url = CheckUrl.inCheck(item.check)
  if (url !== undefined) problems.push(violationAt(at, url))
  if (item.check.type === "dns") {
    const limits = DnsRules.expectedRecordsLimits(item.check)
    if (limits !== undefined) problems.push(violationAt(at, limits))
  }
  for (const reference of Variables.references(item.check)) {
    if (secretVariables.has(reference.key) && !reference.secretAllowed) {
      problems.push(
        Problem.make(
          [...at, ...checkReferencePath(reference.field)],
          `{{${reference.key}}} is a secret variable: a secret may appear only in a header value or the body`
        )
      )
    }
  }
  const resolved = resolveMonitor(item)
  if (Either.isLeft(resolved)) problems.push(violationAt(at, resolved.left))
  return { problems, resolved: Either.getOrUndefined(resolved) }
}

const pageRules = (
  item: ConfigFile.Page,
  at: KeyPath.KeyPath
): { readonly problems: ReadonlyArray<Problem.Problem>; readonly access: StatusPage.AccessInput | null } => {
  const problems: Array<Problem.Problem> = []
  let access: StatusPage.AccessInput | null = null
  if (item.access !== undefined && item.access !== null) {
    // The file describes the page whole (a create needs the password itself), and the plan's private-pages flag is
    // the service's to judge: so no password on file, and the page counts as already protected.
    const judged = Either.flatMap(StatusPage.decodeAccess(item.access), (input) =>
      StatusPage.resolveAccess(input, { passwordStored: false, wasProtected: true, plan: everyPlan })
    )
    if (Either.isLeft(judged)) problems.push(violationAt(at, judged.left))
    else access = judged.right
  }
  return { problems, access }
}

const windowRules = (item: ConfigFile.MaintenanceWindow, at: KeyPath.KeyPath): ReadonlyArray<Problem.Problem> => {
  const problems: Array<Problem.Problem> = []
  // Only the range is judged: whether the window is still ahead depends on the day the file is applied, and a
  // window kept in the file after it ended is history, not a mistake. Scheduled "now" at its own start, a window
  // breaks no other rule.
  const scheduled = Maintenance.schedule(
    {
      title: item.title,
      description: item.description,
      starts_at: item.starts_at,
      ends_at: item.ends_at,
      components: [],
      suppress_alerts: item.suppress_alerts
    },
    item.starts_at
  )
  if (Either.isLeft(scheduled)) problems.push(violationAt(at, scheduled.left))
  return problems
}

const samePath = (a: KeyPath.KeyPath, b: KeyPath.KeyPath) => a.length === b.length && a.every((s, i) => s === b[i])

// A value read from the environment never shows in a problem: schema messages quote the value they refused, so each
// substituted text is put back as written. Values shorter than four characters are left (replacing "1" everywhere
// would garble messages, and so short a value hides nothing), except a secret variable's, always hidden in the
// problems of its own path, the only place its value sits.
const scrub = (
  problems: ReadonlyArray<Problem.Problem>,
  substitutions: ReadonlyArray<Interpolation.Substitution>,
  secrets: ReadonlyArray<{ readonly path: KeyPath.KeyPath; readonly value: string }>
): ReadonlyArray<Problem.Problem> => {
  const hide = (message: string, replacements: ReadonlyArray<readonly [string, string]>) =>
    [...replacements]
      .sort((a, b) => b[0].length - a[0].length)
      .reduce(
        (text, [value, shown]) => text.split(JSON.stringify(value).slice(1, -1)).join(shown).split(value).join(shown),
        message
      )
  const everywhere = substitutions.filter((s) => s.value.length >= 4).map((s) => [s.value, s.written] as const)
  return problems.map((problem) => {
    const own = secrets.filter((s) => s.value !== "" && samePath(s.path, problem.path))
    const replacements = [...everywhere, ...own.map((s) => [s.value, Plan.SECRET] as const)]
    return replacements.length === 0 ? problem : { ...problem, message: hide(problem.message, replacements) }
  })
}

const topLevel = ["project", ...ConfigFile.lists]

// Problems by list (in the order of `ConfigFile.lists`), then by item, each item's as found: positions, where the
// file has them, order them again.
const inFileOrder = (problems: ReadonlyArray<Problem.Problem>): ReadonlyArray<Problem.Problem> => {
  const rank = (problem: Problem.Problem) => {
    const list = topLevel.indexOf(String(problem.path[0] ?? ""))
    return [list === -1 ? topLevel.length : list, typeof problem.path[1] === "number" ? problem.path[1] : -1] as const
  }
  return problems
    .map((problem, index) => ({ problem, index, rank: rank(problem) }))
    .sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1] || a.index - b.index)
    .map(({ problem }) => problem)
}

/**
 * A config as read from its file (before the environment is read into it) judged whole: the desired state, or every
 * problem found.
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (
  raw: unknown,
  env: Env
): Either.Either<Desired.Desired, Arr.NonEmptyReadonlyArray<Problem.Problem>> => {
  const { value, substitutions, unset } = Interpolation.interpolate(raw, env)
  if (!isRecord(value)) {
    return Either.left([
      Problem.make(
        [],
        "the file must hold a map: project, then any of variables, channels, monitors, status_pages and maintenance"
      )
    ])
  }
  const problems: Array<Problem.Problem> = []
  const outline = decode(ConfigFile.Outline, value, [])
  if (Either.isLeft(outline)) problems.push(...outline.left)
  const rawList = (list: ConfigFile.ListName): ReadonlyArray<unknown> => {
    const items = value[list]
    return Array.isArray(items) ? items : []
  }

  const keys = {
    variables: declaredKeys("variables", rawList("variables"), problems),
    channels: declaredKeys("channels", rawList("channels"), problems),
    monitors: declaredKeys("monitors", rawList("monitors"), problems),
    status_pages: declaredKeys("status_pages", rawList("status_pages"), problems),
    maintenance: declaredKeys("maintenance", rawList("maintenance"), problems)
  }

  problems.push(...referenceProblems(rawList, keys))

  const variables = decodeList("variables", ConfigFile.OrgVariable, rawList("variables"), problems)
  const secretValues: Array<{ readonly path: KeyPath.KeyPath; readonly value: string }> = []
  for (const { index, value: item } of variables) {
    if (!item.is_secret) continue
    const path = ["variables", index, "value"]
    const substituted = substitutions.find((s) => samePath(s.path, path))
    if (substituted === undefined || !substituted.whole) {
      problems.push(
        Problem.make(path, `a secret variable's value must come from the environment: ${Interpolation.form}`)
      )
    } else if (!unset.some((u) => samePath(u.path, path))) {
      secretValues.push({ path, value: item.value })
    }
  }
  const secretKeys = new Set(variables.filter(({ value: v }) => v.is_secret).map(({ value: v }) => v.key))

  const channels = decodeList("channels", ConfigFile.NotificationChannel, rawList("channels"), problems).flatMap(
    ({ index, value: item }): ReadonlyArray<Desired.DesiredChannel> => {
      const split = Channel.split(item, {})
      if (Either.isLeft(split)) {
        problems.push(
          violationAt(["channels", index], {
            field: split.left,
            message: `*** is the redaction placeholder, not a credential: write the secret, or read it with ${Interpolation.form}`
          })
        )
        return []
      }
      return [{ key: item.key, item, shown: split.right.shown }]
    }
  )

  const monitors = decodeList("monitors", ConfigFile.Monitor, rawList("monitors"), problems).flatMap(
    ({ index, value: item }): ReadonlyArray<Desired.DesiredMonitor> => {
      const judged = monitorRules(item, ["monitors", index], secretKeys)
      problems.push(...judged.problems)
      return judged.resolved === undefined || judged.problems.length > 0
        ? []
        : [{ key: item.key, item, resolved: judged.resolved }]
    }
  )

  const pages = decodeList("status_pages", ConfigFile.Page, rawList("status_pages"), problems)
  const slugs = pages.map(({ value: item }) => item.slug)
  for (const i of repeated(slugs)) {
    const page = pages[i]!
    problems.push(
      Problem.make(["status_pages", page.index, "slug"], `"${page.value.slug}" is the slug of another page`)
    )
  }
  const statusPages = pages.flatMap(({ index, value: item }): ReadonlyArray<Desired.DesiredPage> => {
    const judged = pageRules(item, ["status_pages", index])
    problems.push(...judged.problems)
    const branding = StatusPage.patchBranding(StatusPage.defaultBranding, item.branding ?? {})
    return [{ key: item.key, item, access: judged.access, branding }]
  })

  const maintenance = decodeList("maintenance", ConfigFile.MaintenanceWindow, rawList("maintenance"), problems).map(
    ({ index, value: item }): Desired.DesiredWindow => {
      problems.push(...windowRules(item, ["maintenance", index]))
      return { key: item.key, item }
    }
  )

  // A value left as `${env:NAME}` because NAME is not set would be refused again by its schema: one problem is enough.
  const found = [
    ...unset.map((u) => Problem.make(u.path, `\${env:${u.name}}: ${u.name} is not set in the environment`)),
    ...problems.filter((problem) => !unset.some((u) => samePath(u.path, problem.path)))
  ]
  const scrubbed = scrub(inFileOrder(found), substitutions, secretValues)
  if (Arr.isNonEmptyReadonlyArray(scrubbed)) return Either.left(scrubbed)
  if (Either.isLeft(outline)) return Either.left(outline.left)
  return Either.right({
    project: outline.right.project,
    variables: variables.map(({ value: item }) => ({ key: item.key, item })),
    channels,
    monitors,
    status_pages: statusPages,
    maintenance
  })
}
