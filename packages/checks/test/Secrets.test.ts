import { assert, describe, it } from "@effect/vitest"
import * as Secrets from "../src/internal/secrets.js"

describe("the flow's secret scrubber", () => {
  it("replaces a value as written, percent-encoded and form-encoded, escapes in either case", () => {
    const scrub = Secrets.scrubber(["p@ss w/rd"])
    assert.strictEqual(scrub("typed p@ss w/rd here"), "typed *** here")
    assert.strictEqual(scrub("/next?pw=p%40ss%20w%2Frd"), "/next?pw=***")
    assert.strictEqual(scrub("/next?pw=p%40ss+w%2Frd"), "/next?pw=***")
    assert.strictEqual(scrub("/next?pw=p%40ss%20w%2frd"), "/next?pw=***")
  })

  it("takes regular-expression characters literally and replaces a longer value whole", () => {
    const scrub = Secrets.scrubber(["a.b", "a.b*c"])
    assert.strictEqual(scrub("a.b*c and a.b, not axb"), "*** and ***, not axb")
  })

  it("an empty value hides nothing, and with no values the text is unchanged", () => {
    assert.strictEqual(Secrets.scrubber([""])("nothing to hide"), "nothing to hide")
    assert.strictEqual(Secrets.scrubber([])("nothing to hide"), "nothing to hide")
  })
})
