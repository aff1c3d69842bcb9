/**
 * A whole list read a page at a time: the services answer pages of at most 500 (the API's own bound), and a
 * settings page lists everything an org has (its channels, variables, tags), which stays small.
 */
import * as Effect from "effect/Effect"

/** The API's largest page. */
export const PAGE = 500

/** Every item, page after page until `total` is reached or a page comes back short. */
export const everyPage = <A, E, R>(
  read: (
    limit: number,
    offset: number
  ) => Effect.Effect<{ readonly data: ReadonlyArray<A>; readonly total: number }, E, R>
): Effect.Effect<ReadonlyArray<A>, E, R> =>
  Effect.gen(function* () {
    const items: Array<A> = []
    for (;;) {
      const page = yield* read(PAGE, items.length)
      items.push(...page.data)
      if (page.data.length < PAGE || items.length >= page.total) return items
    }
  })
