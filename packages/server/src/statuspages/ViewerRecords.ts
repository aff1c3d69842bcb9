/**
 * What an owner reads and does about a private page's viewers and its password: the viewer list, blocking, a
 * viewer's history, the password's use record and signing its devices out. The `statusPages` group answers these
 * endpoints, but the records belong to the private viewers (`viewers/Records.ts` provides this port), which read the
 * page through `StatusPages`; the port keeps that dependency one way.
 */
import type * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type * as StatusPage from "@signalman/core/StatusPage"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** A page of the page's viewers. */
export interface ViewerPage {
  readonly data: ReadonlyArray<StatusPage.Viewer>
  readonly total: number
  readonly limit: number
  readonly offset: number
}

export class ViewerRecords extends Context.Tag("statuspages/ViewerRecords")<
  ViewerRecords,
  {
    /** The page's viewers, most recently signed in first; 404 for a page of another org. */
    readonly list: (
      org: ActiveOrg,
      pageId: string,
      query: { readonly limit: number; readonly offset: number }
    ) => Effect.Effect<ViewerPage, ApiError.ApiError>
    /** Signs the viewer out everywhere, ends their subscriptions and keeps them out until unblocked. */
    readonly block: (
      org: ActiveOrg,
      pageId: string,
      viewerId: string,
      userId: string
    ) => Effect.Effect<StatusPage.Viewer, ApiError.ApiError>
    readonly unblock: (
      org: ActiveOrg,
      pageId: string,
      viewerId: string
    ) => Effect.Effect<StatusPage.Viewer, ApiError.ApiError>
    readonly history: (
      org: ActiveOrg,
      pageId: string,
      viewerId: string
    ) => Effect.Effect<typeof StatusPage.ViewerHistory.Type, ApiError.ApiError>
    readonly passwordRecord: (
      org: ActiveOrg,
      pageId: string
    ) => Effect.Effect<StatusPage.PasswordRecord, ApiError.ApiError>
    /** Ends every device signed in with the page password; answers the record afterwards. */
    readonly passwordSignOut: (
      org: ActiveOrg,
      pageId: string
    ) => Effect.Effect<StatusPage.PasswordRecord, ApiError.ApiError>
  }
>() {}
