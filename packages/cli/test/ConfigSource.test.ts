import { assert, describe, it } from "@effect/vitest"
import * as Either from "effect/Either"
import * as ConfigSource from "../src/ConfigSource.js"

const parsed = (text: string, format: ConfigSource.Format) => {
  const result = ConfigSource.parse(text, format)
  if (Either.isLeft(result)) assert.fail(JSON.stringify(result.left))
  return result.right
}

const failed = (text: string, format: ConfigSource.Format) => {
  const result = ConfigSource.parse(text, format)
  if (Either.isRight(result)) assert.fail("parsed")
  return result.left
}

const yaml = [
  "project: shop", // 1
  "monitors:", // 2
  "  - key: api", // 3
  "    name: API", // 4
  "    check:", // 5
  "      type: http", // 6
  "      url: https://shop.example", // 7
  "  - key: db", // 8
  "    check: &tcp { type: tcp, host: db.example, port: 5432 }", // 9
  "  - key: db2", // 10
  "    check: *tcp", // 11
  "    alerts: [ops, pager]" // 12
].join("\n")

describe("ConfigSource", () => {
  it("YAML: the value, and the line and column of each key path", () => {
    const source = parsed(yaml, "yaml")
    assert.deepStrictEqual(source.value, {
      project: "shop",
      monitors: [
        { key: "api", name: "API", check: { type: "http", url: "https://shop.example" } },
        { key: "db", check: { type: "tcp", host: "db.example", port: 5432 } },
        { key: "db2", check: { type: "tcp", host: "db.example", port: 5432 }, alerts: ["ops", "pager"] }
      ]
    })
    assert.deepStrictEqual(source.locate(["project"]), { line: 1, column: 1 })
    assert.deepStrictEqual(source.locate(["monitors", 0, "check", "url"]), { line: 7, column: 7 })
    assert.deepStrictEqual(source.locate(["monitors", 1]), { line: 8, column: 5 })
    assert.deepStrictEqual(source.locate(["monitors", 1, "check", "port"]), { line: 9, column: 48 })
    assert.deepStrictEqual(source.locate(["monitors", 2, "alerts", 1]), { line: 12, column: 19 })
    // Through an alias, to where the anchored map is written.
    assert.deepStrictEqual(source.locate(["monitors", 2, "check", "host"]), { line: 9, column: 30 })
    // A missing key: the closest enclosing node that is there.
    assert.deepStrictEqual(source.locate(["monitors", 0, "interval"]), { line: 3, column: 5 })
    assert.deepStrictEqual(source.locate(["monitors", 0, "check", "port"]), { line: 5, column: 5 })
  })

  it("YAML 1.2: yes, on and dates stay text", () => {
    assert.deepStrictEqual(parsed("a: yes\nb: on\nc: 2026-05-01T22:00:00Z\nd: 010", "yaml").value, {
      a: "yes",
      b: "on",
      c: "2026-05-01T22:00:00Z",
      d: 10
    })
  })

  it("YAML syntax errors and repeated keys name their line", () => {
    const errors = failed("project: shop\nmonitors:\n  - key: a\n  key: b\n", "yaml")
    assert.isAbove(errors.length, 0)
    assert.strictEqual(errors[0]!.position?.line, 4)
    const repeated = failed("project: shop\nproject: other\n", "yaml")
    assert.match(repeated[0]!.message, /unique/)
    assert.deepStrictEqual(repeated[0]!.position, { line: 2, column: 1 })
    assert.strictEqual(failed("a: 1\n---\nb: 2\n", "yaml")[0]!.position?.line, 2)
  })

  it("aliases are bounded: a few anchors cannot expand into gigabytes", () => {
    const lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for (let i = 0; i < 8; i++) {
      const prev = String.fromCharCode(97 + i)
      const next = String.fromCharCode(98 + i)
      lines.push(`${next}: &${next} [${Array(10).fill(`*${prev}`).join(", ")}]`)
    }
    assert.match(failed(lines.join("\n"), "yaml")[0]!.message, /alias/i)
  })

  it("JSON: positions too, and held to strict JSON", () => {
    const text = '{\n  "project": "shop",\n  "monitors": [\n    { "key": "api", "interval": 5 }\n  ]\n}\n'
    const source = parsed(text, "json")
    assert.deepStrictEqual(source.locate(["monitors", 0, "interval"]), { line: 4, column: 21 })
    assert.deepStrictEqual(source.locate(["monitors", 0, "key"]), { line: 4, column: 7 })
    const trailing = failed('{\n  "project": "shop",\n}\n', "json")
    assert.match(trailing[0]!.message, /^not valid JSON: /)
    const broken = failed('{\n  "project": "shop"\n  "monitors": []\n}\n', "json")
    assert.strictEqual(broken[0]!.position?.line, 3)
  })
})
