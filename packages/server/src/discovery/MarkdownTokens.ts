/**
 * The `x-markdown-tokens` size hint of a Markdown answer: about how many tokens a language model's tokenizer makes of
 * it, so an agent can tell whether a page fits its context before reading it.
 *
 * No tokenizer is shipped for this (each model family has its own, and they are megabytes of tables). The estimate
 * follows how byte-pair tokenizers split English prose and code: a run of letters or digits costs one token per four
 * characters (rounded up, so a short word is one token and a long identifier several), every other visible character
 * (punctuation, Markdown syntax, symbols) is a token of its own, and whitespace is absorbed into the next token. It is an
 * estimate, not a count: a given model's tokenizer may differ from it by a fair margin either way, which a size hint
 * can bear; it never depends on anything but the bytes, so it is the same for every request.
 */

const WORD = /[\p{L}\p{N}]+/gu
const SYMBOL = /[^\p{L}\p{N}\s]/gu

/** The estimated token count of `markdown` (0 for an empty text). */
export const estimate = (markdown: string): number => {
  let tokens = 0
  for (const match of markdown.matchAll(WORD)) tokens += Math.ceil([...match[0]].length / 4)
  for (const _ of markdown.matchAll(SYMBOL)) tokens += 1
  return tokens
}
