/**
 * The MCP tool over status pages: the org's pages, as `GET /status-pages` lists them (`StatusPages.list`).
 */
import { ListStatusPages, StatusPageList } from "@signalman/core/api/StatusPages"
import * as Pagination from "@signalman/core/Pagination"
import * as Effect from "effect/Effect"
import { requireOrg } from "../auth/Policy.js"
import { StatusPages } from "../statuspages/StatusPages.js"
import * as Tool from "./Tool.js"

export const statusPages = Tool.make({
  name: "list_status_pages",
  title: "Status pages",
  description:
    "The org's status pages: name, slug, whether published, the public URL (live_url), a custom domain and " +
    "private access if any. Page with `limit` and `offset`.",
  endpoint: { method: "GET", path: "/api/v1/status-pages" },
  input: Tool.Arguments({
    managed_by: ListStatusPages.fields.managed_by.annotations({
      description: "Only pages a monitoring-as-code project manages"
    }),
    ...Pagination.json
  }),
  output: StatusPageList,
  run: (query) =>
    Effect.flatMap(StatusPages, (pages) =>
      Effect.flatMap(requireOrg, (org) => pages.list(org, { ...query, ...Pagination.settle(query) }))
    )
})
