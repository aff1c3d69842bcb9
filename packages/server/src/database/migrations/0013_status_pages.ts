import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Status pages (docs/status-pages.md).
//
// status_pages: one row per page. The slug is globally unique in lower case (it is the page's address under
// <base>/p/<slug>); a custom domain, when set, is unique too (the page is served on it). account_id is the org's
// account, kept here so max_status_pages counts across the account without a join. branding is the whole
// `{ primary_color, theme, hide_powered_by }` object. access_* columns belong to private pages: `access` is the
// stored access object without the password value (null on a page never made private); the password is a hash
// with its own record (who set it, when) and a version that moves when it changes, so a feed link signed with an
// older version stops working.
//
// status_page_components: the monitors curated onto a page, with their public fields. A monitor deleted is gone
// from every page (cascade). Unique per page and target.
//
// status_page_logos: the uploaded logo, sniffed and (for SVG) sanitised before it is stored; served from the
// database so every API process answers it the same. `sha256` names the version in the logo URL (cache busting).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE status_pages (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      slug text NOT NULL,
      name text NOT NULL,
      published boolean NOT NULL DEFAULT false,
      public_locale text NOT NULL DEFAULT 'en',
      custom_domain text,
      branding jsonb NOT NULL,
      access jsonb,
      password_hash text,
      password_set_at timestamptz,
      password_set_by uuid REFERENCES users(id) ON DELETE SET NULL,
      password_version integer NOT NULL DEFAULT 0,
      write_source text NOT NULL CHECK (write_source IN ('ui', 'api', 'iac')),
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE UNIQUE INDEX status_pages_slug ON status_pages (lower(slug))`
  yield* sql`CREATE UNIQUE INDEX status_pages_custom_domain ON status_pages (lower(custom_domain))`
  yield* sql`CREATE INDEX status_pages_org ON status_pages (org_id, created_at, id)`
  yield* sql`CREATE INDEX status_pages_account ON status_pages (account_id)`

  yield* sql`
    CREATE TABLE status_page_components (
      page_id uuid NOT NULL REFERENCES status_pages(id) ON DELETE CASCADE,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      public_name text,
      public_description text,
      public_group text,
      sort_order integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (page_id, target_id)
    )
  `
  yield* sql`CREATE INDEX status_page_components_target ON status_page_components (target_id)`

  yield* sql`
    CREATE TABLE status_page_logos (
      page_id uuid PRIMARY KEY REFERENCES status_pages(id) ON DELETE CASCADE,
      content_type text NOT NULL,
      bytes bytea NOT NULL,
      sha256 text NOT NULL,
      uploaded_at timestamptz NOT NULL DEFAULT now()
    )
  `
})
