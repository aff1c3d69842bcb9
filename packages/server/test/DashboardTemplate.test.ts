import { describe, expect, it } from "@effect/vitest"
import { attributes, html, join, raw } from "../src/dashboard/Template.js"

describe("dashboard templates", () => {
  it("every interpolated string and number is escaped; Html and raw go in as they are", () => {
    const name = `<script>alert("x")</script> & 'co'`
    const out = html`<p title="${name}">${name} ${42} ${raw("<b>ok</b>")} ${html`<i>${name}</i>`}</p>`
    expect(out.text).toBe(
      `<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;">` +
        `&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39; 42 <b>ok</b> ` +
        `<i>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;co&#39;</i></p>`
    )
  })

  it("arrays are joined, nested arrays too; null, undefined and false render nothing (0 and '' do)", () => {
    const rows = ["a<", "b"].map((v) => html`<li>${v}</li>`)
    expect(html`<ul>${rows}${[[html`<li>c</li>`]]}</ul>`.text).toBe("<ul><li>a&lt;</li><li>b</li><li>c</li></ul>")
    expect(html`[${null}${undefined}${false}${0}${""}]`.text).toBe("[0]")
  })

  it("join escapes a string separator; attributes write bare, escaped or nothing", () => {
    expect(join(["a", html`<b>b</b>`], " & ").text).toBe("a &amp; <b>b</b>")
    expect(attributes({ checked: true, disabled: false, value: `"x"`, max: 3, title: null }).text).toBe(
      ` checked value="&quot;x&quot;" max="3"`
    )
  })
})
