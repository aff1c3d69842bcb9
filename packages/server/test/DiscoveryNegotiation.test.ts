/**
 * `Negotiation`: the representation an `Accept` header asks for, by quality and specificity.
 */
import { describe, expect, it } from "vitest"
import { choose, parseAccept, qualityOf, wantsMarkdown } from "../src/discovery/Negotiation.js"

describe("Accept negotiation", () => {
  it("no header, an empty one and */* get HTML, the first offer", () => {
    expect(choose(undefined)).toBe("html")
    expect(choose("")).toBe("html")
    expect(choose("*/*")).toBe("html")
  })

  it("text/markdown alone, or ranked above HTML, gets Markdown", () => {
    expect(choose("text/markdown")).toBe("markdown")
    expect(choose("text/markdown, text/html;q=0.9")).toBe("markdown")
    expect(choose("text/html;q=0.5, text/markdown;q=0.6")).toBe("markdown")
    expect(choose("text/markdown;charset=utf-8")).toBe("markdown")
    expect(choose("TEXT/Markdown")).toBe("markdown")
  })

  it("a browser's header, HTML ranked above Markdown, and a tie get HTML", () => {
    expect(choose("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")).toBe("html")
    expect(choose("text/markdown;q=0.5, text/html")).toBe("html")
    expect(choose("text/markdown, text/html")).toBe("html")
    expect(choose("text/*")).toBe("html")
  })

  it("the most specific range sets a type's quality, so */* does not lift a refused type", () => {
    expect(choose("text/html;q=0, */*")).toBe("markdown")
    expect(choose("text/markdown;q=0, */*")).toBe("html")
    expect(choose("text/*;q=0.1, text/markdown;q=0.2")).toBe("markdown")
    expect(choose("text/*;q=0.3, text/html;q=0.2")).toBe("markdown")
    expect(qualityOf(parseAccept("text/*;q=0.3, */*;q=0.9"), "text", "markdown")).toBe(0.3)
  })

  it("a header that accepts neither offer, or cannot be read, falls back to HTML", () => {
    expect(choose("application/json")).toBe("html")
    expect(choose("text/markdown;q=0")).toBe("html")
    expect(choose("garbage, ;;;, /")).toBe("html")
    expect(choose("text/markdown;q=2")).toBe("html")
    expect(choose("text/markdown;q=0.0001")).toBe("html")
    expect(choose("text/markdown;q=")).toBe("html")
  })

  it("parses ranges with their qualities, skipping malformed ones", () => {
    expect(parseAccept("text/markdown;q=0.5, */*;Q=0.1, */html, text, a/b/c, text/html")).toEqual([
      { type: "text", subtype: "markdown", q: 0.5 },
      { type: "*", subtype: "*", q: 0.1 },
      { type: "text", subtype: "html", q: 1 }
    ])
  })

  it("wantsMarkdown is the negotiation between the two", () => {
    expect(wantsMarkdown("text/markdown")).toBe(true)
    expect(wantsMarkdown("text/html")).toBe(false)
    expect(wantsMarkdown(undefined)).toBe(false)
  })
})
