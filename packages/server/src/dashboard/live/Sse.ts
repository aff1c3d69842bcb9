/**
 * Server-sent events on the wire (the HTML standard's `text/event-stream`): an event is `event:`, `id:` and one
 * `data:` line per line of its data, ended by a blank line; a line starting with a colon is a comment, which the
 * browser ignores and proxies see as traffic (the stream's heartbeat). Names and ids are the code's own; data is
 * JSON, whose own newlines are escaped, so one line carries it.
 */

const encoder = new TextEncoder()

/** One event. `data` may hold newlines: each line becomes a `data:` line, as the standard joins them back. */
export const event = (name: string, id: string | undefined, data: string): string =>
  `event: ${name}\n${id === undefined ? "" : `id: ${id}\n`}${data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}\n`)
    .join("")}\n`

/** A comment line: kept out of the event stream by the browser, kept open by it. */
export const comment = (text: string): string => `: ${text.replace(/[\r\n]+/g, " ")}\n\n`

/** How long the browser waits before reconnecting after the stream ends. */
export const retry = (ms: number): string => `retry: ${Math.max(0, Math.round(ms))}\n\n`

export const bytes = (text: string): Uint8Array => encoder.encode(text)
