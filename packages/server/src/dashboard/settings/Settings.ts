/**
 * The settings page group: alert channels, variables, tags, the organization, API tokens, the account and
 * billing, each a module of its own; this gathers their routes and layers for `Dashboard.ts`.
 */
import * as Layer from "effect/Layer"
import type { Route } from "../../http/RouteTable.js"
import * as ChannelsPage from "../channels/ChannelsPage.js"
import * as VariablesPage from "../variables/VariablesPage.js"
import * as AccountPage from "./AccountPage.js"
import * as BillingPage from "./BillingPage.js"
import * as OrgPage from "./OrgPage.js"
import * as TagsPage from "./TagsPage.js"
import * as TokensPage from "./TokensPage.js"

export const routes: ReadonlyArray<Route> = [
  ...ChannelsPage.routes,
  ...VariablesPage.routes,
  ...TagsPage.routes,
  ...OrgPage.routes,
  ...TokensPage.routes,
  ...AccountPage.routes,
  ...BillingPage.routes
]

export const layer = Layer.mergeAll(
  ChannelsPage.layer,
  VariablesPage.layer,
  TagsPage.layer,
  OrgPage.layer,
  TokensPage.layer,
  AccountPage.layer,
  BillingPage.layer
)
