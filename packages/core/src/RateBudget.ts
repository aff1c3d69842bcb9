/**
 * Per-minute rate budgets (auth-and-limits.md, "Rate budgets per minute"): which category a request spends, and
 * the limit of that category for an account.
 *
 * @since 0.1.0
 */
import type { Plan } from "./Plan.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Category = "api_writes" | "api_reads" | "bulk_ops" | "test_now" | "check_now" | "support"

/**
 * The support form's budget is fixed, outside the plan.
 *
 * @since 0.1.0
 * @category constants
 */
export const SUPPORT_PER_MINUTE = 2

const isMcp = (pathname: string): boolean => pathname === "/mcp" || pathname.startsWith("/mcp/")

/**
 * The category of a request, derived in the spec's order: `/bulk` anywhere, then the path's ending (`/test`,
 * `/check-now`, `/support`), then the MCP surface (reads whatever the method), then the method.
 *
 * @since 0.1.0
 * @category derivation
 */
export const categoryOf = (method: string, pathname: string): Category => {
  if (pathname.includes("/bulk")) return "bulk_ops"
  if (pathname.endsWith("/test")) return "test_now"
  if (pathname.endsWith("/check-now")) return "check_now"
  if (pathname.endsWith("/support")) return "support"
  if (isMcp(pathname)) return "api_reads"
  return method === "GET" || method === "HEAD" || method === "OPTIONS" ? "api_reads" : "api_writes"
}

/**
 * Requests per minute a category allows under a plan.
 *
 * @since 0.1.0
 * @category derivation
 */
export const limitOf = (plan: Plan, category: Category): number =>
  category === "support" ? SUPPORT_PER_MINUTE : plan.rates[`${category}_per_minute`]

/**
 * The scope name reported with a refusal, for example `per_account_api_writes`.
 *
 * @since 0.1.0
 * @category derivation
 */
export const scopeName = (tier: "account" | "user", category: Category): string => `per_${tier}_${category}`

/**
 * Whether a request of this path spends from a budget: the API (`/api/v1/*`) and the MCP server (`/mcp`), the
 * surfaces an authenticated client drives.
 *
 * @since 0.1.0
 * @category derivation
 */
export const applies = (pathname: string): boolean => pathname.startsWith("/api/v1/") || isMcp(pathname)
