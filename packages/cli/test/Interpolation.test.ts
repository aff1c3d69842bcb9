import { assert, describe, it } from "@effect/vitest"
import * as Interpolation from "../src/Interpolation.js"

const ref = (name: string) => `\${env:${name}}`

describe("Interpolation", () => {
  it("replaces every reference in every string value, records where, and leaves keys and other values alone", () => {
    const result = Interpolation.interpolate(
      {
        [ref("KEY")]: "kept",
        url: `https://${ref("HOST")}:${ref("PORT")}/x`,
        token: ref("TOKEN"),
        list: [1, true, null, ref("HOST")],
        nested: { deep: `a${ref("HOST")}b` }
      },
      { HOST: "shop.example", PORT: "8443", TOKEN: "t" }
    )
    assert.deepStrictEqual(result.value, {
      [ref("KEY")]: "kept",
      url: "https://shop.example:8443/x",
      token: "t",
      list: [1, true, null, "shop.example"],
      nested: { deep: "ashop.exampleb" }
    })
    assert.deepStrictEqual(result.unset, [])
    assert.deepStrictEqual(
      result.substitutions.map((s) => [s.path, s.names, s.whole]),
      [
        [["url"], ["HOST", "PORT"], false],
        [["token"], ["TOKEN"], true],
        [["list", 3], ["HOST"], true],
        [["nested", "deep"], ["HOST"], false]
      ]
    )
  })

  it("a name not set is reported at its path and the reference left as written; an empty value is a value", () => {
    const result = Interpolation.interpolate({ a: [ref("NOPE")], b: ref("EMPTY") }, { EMPTY: "" })
    assert.deepStrictEqual(result.value, { a: [ref("NOPE")], b: "" })
    assert.deepStrictEqual(result.unset, [{ path: ["a", 0], name: "NOPE" }])
  })

  it("$${ writes a literal dollar-brace, and text that only looks like a reference is left", () => {
    const result = Interpolation.interpolate(
      { a: `$${ref("HOST")}`, b: `\${HOST}`, c: `\${env:lower-case}`, d: "$5" },
      { HOST: "h" }
    )
    assert.deepStrictEqual(result.value, { a: ref("HOST"), b: `\${HOST}`, c: `\${env:lower-case}`, d: "$5" })
    assert.deepStrictEqual(result.substitutions, [])
  })
})
