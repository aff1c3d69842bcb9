/**
 * Server-rendered pages: escaping and the shared page frame. Every interpolated value goes through `escapeHtml`.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

export const escapeHtml = (value: string): string =>
  value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;")

// The background is said, not left to the browser's canvas: what a reader (and a contrast check) sees behind the
// text is then the same colour the text was chosen for, in either scheme.
const style = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; background: #fff; color: #1a1a1a; }
  body { max-width: 32rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; }
  h1 { font-size: 1.5rem; }
  label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input { font: inherit; padding: .5rem; width: 100%; box-sizing: border-box; }
  button { font: inherit; margin-top: 1rem; padding: .5rem 1rem; cursor: pointer; }
  h2 { font-size: 1.15rem; margin-top: 2rem; }
  .note { color: #555; }
  .providers { list-style: none; padding: 0; margin: 1.5rem 0; }
  .providers a { display: block; margin: .5rem 0; padding: .5rem 1rem; border: 1px solid currentColor;
    border-radius: .25rem; color: inherit; text-decoration: none; font-weight: 600; text-align: center; }
  .providers a:hover, .providers a:focus-visible { text-decoration: underline; }
  @media (prefers-color-scheme: dark) { :root { background: #121212; color: #ececec; } .note { color: #bbb; } }
`

/**
 * A page in the shared frame. `script` is the URL of a same-origin script (the policy allows no inline script);
 * the login page's passkey ceremony is the one that uses it.
 */
export const page = (
  title: string,
  body: string,
  status = 200,
  options: { readonly script?: string | undefined } = {}
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(
    `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Signalman</title>
<style>${style}</style>
${options.script === undefined ? "" : `<script src="${escapeHtml(options.script)}" defer></script>\n`}</head>
<body>
<main>
${body}
</main>
</body>
</html>`,
    {
      status,
      contentType: "text/html; charset=utf-8",
      headers: {
        "cache-control": "no-store",
        "content-security-policy": "default-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'"
      }
    }
  )
