/**
 * A list call of the Promise client: a Promise of one page (`await`), and an async iterable of every item of every
 * page from there on (`for await`), fetched a page at a time as the loop asks.
 *
 * ```ts
 * const first = await signalman.targets.list({ tag: "prod", limit: 20 })   // { data, total, limit, offset }
 * for await (const target of signalman.targets.list({ tag: "prod" })) console.log(target.name)
 * for await (const page of signalman.targets.list({ tag: "prod" }).pages()) console.log(page.data.length)
 * ```
 *
 * @since 0.2.0
 */

/**
 * A page of a paginated list, as the service answers it (decisions.md, "Wire shapes").
 *
 * @since 0.2.0
 * @category models
 */
export interface Page<Item> {
  /** The items of this page. */
  readonly data: ReadonlyArray<Item>
  /** How many items the whole list holds. */
  readonly total: number
  /** The page size asked for. */
  readonly limit: number
  /** Where this page starts in the whole list. */
  readonly offset: number
}

/**
 * The page size an iteration asks for when the call names none: larger than the service's default of 50 to save
 * round trips, far below its cap of 500 so one page stays quick.
 *
 * @since 0.2.0
 * @category constants
 */
export const ITERATION_PAGE_SIZE = 100

/**
 * Fetches the page starting at `offset` with `limit` items.
 *
 * @since 0.2.0
 * @category models
 */
export type FetchPage<P> = (offset: number | undefined, limit: number | undefined) => Promise<P>

/**
 * A list call: awaited, the page the call asked for; iterated, every item from the call's `offset` (default 0) to
 * the end of the list. Nothing is sent until it is awaited or iterated, and each does its own requests. The list is
 * read by offset, so items created or deleted during an iteration can shift it: one may be skipped or seen twice.
 *
 * @since 0.2.0
 * @category models
 */
export class PageRequest<Item, P extends Page<Item> = Page<Item>> implements PromiseLike<P>, AsyncIterable<Item> {
  readonly #fetch: FetchPage<P>
  readonly #offset: number | undefined
  readonly #limit: number | undefined
  #first: Promise<P> | undefined

  /** A list call over `fetch`, starting at `offset` with pages of `limit` (the call's own, when it gave them). */
  constructor(fetch: FetchPage<P>, offset: number | undefined, limit: number | undefined) {
    this.#fetch = fetch
    this.#offset = offset
    this.#limit = limit
  }

  /** Sends the call (once, however often it is awaited) and settles with its page. */
  // biome-ignore lint/suspicious/noThenProperty: awaiting a list call for its page is the point (PromiseLike).
  then<A = P, B = never>(
    onfulfilled?: ((page: P) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null
  ): Promise<A | B> {
    this.#first ??= this.#fetch(this.#offset, this.#limit)
    return this.#first.then(onfulfilled, onrejected)
  }

  /** As `Promise.prototype.catch` on the page. */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<P | B> {
    return this.then(undefined, onrejected)
  }

  /** As `Promise.prototype.finally` on the page. */
  finally(onfinally?: (() => void) | null): Promise<P> {
    return this.then().finally(onfinally)
  }

  /** Every page from the call's offset to the end of the list, each fetched when the loop asks for it. */
  async *pages(): AsyncGenerator<P, void, undefined> {
    const limit = this.#limit ?? ITERATION_PAGE_SIZE
    let offset = this.#offset ?? 0
    // Bounded: every turn moves `offset` forward by at least one item or ends.
    for (;;) {
      const page = await this.#fetch(offset, limit)
      yield page
      offset += page.data.length
      if (page.data.length === 0 || offset >= page.total) return
    }
  }

  /** Every item from the call's offset to the end of the list. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Item, void, undefined> {
    for await (const page of this.pages()) yield* page.data
  }
}
