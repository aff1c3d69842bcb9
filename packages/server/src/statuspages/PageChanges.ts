/**
 * The invalidation tag of a status page (see `auth/Invalidation.ts`): published when its owner changes it (access,
 * slug, domain, branding, components, logo, deletion), so every process drops its cached lookups and the page's
 * public snapshot at once instead of serving the old page for the rest of the cache window: a page just made
 * private must not stay readable to strangers for those seconds.
 */
const PREFIX = "status_page:"

/** The tag to publish when pages of any number changed at once (an account's orgs deleted or restored). */
export const every = `${PREFIX}*`

/** The tag to publish when the page `pageId` changed. */
export const tag = (pageId: string): string => `${PREFIX}${pageId}`

/** The page a published tag names (`*`: every page), or undefined when the tag is about something else. */
export const pageOf = (published: string): string | undefined =>
  published.startsWith(PREFIX) ? published.slice(PREFIX.length) : undefined
