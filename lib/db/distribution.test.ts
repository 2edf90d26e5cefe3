import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, createTestContext, type TestContext } from "@/lib/testing/harness";
import { CHANGES_FOR_DISTRIBUTION, TABLE_ROLES } from "./distribution";
import { rowsOf } from "./rows";

interface KeyRow {
  table: string;
  name: string;
  kind: "primary key" | "unique index" | "foreign key";
  columns: string[];
  referencedColumns: string[] | null;
}

/**
 * Every primary key, unique index and foreign key of the public schema, with its columns in order
 * (as text: the app's postgres.js pool does not parse arrays).
 */
async function keysOf(ctx: TestContext): Promise<KeyRow[]> {
  const indexes = rowsOf<{ table: string; name: string; primary: boolean; columns: string }>(
    await ctx.db.execute(sql`
    select t.relname as "table", c.relname as name, i.indisprimary as primary,
      array_to_string(array(select a.attname::text from unnest(i.indkey) with ordinality k(attnum, n)
            join pg_attribute a on a.attrelid = t.oid and a.attnum = k.attnum order by k.n), ',') as columns
    from pg_index i
    join pg_class c on c.oid = i.indexrelid
    join pg_class t on t.oid = i.indrelid
    join pg_namespace s on s.oid = t.relnamespace
    where s.nspname = 'public' and i.indisunique`),
  );
  const foreign = rowsOf<{ table: string; name: string; columns: string; referenced: string }>(
    await ctx.db.execute(sql`
    select t.relname as "table", con.conname as name,
      array_to_string(array(select a.attname::text from unnest(con.conkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum order by k.n), ',') as columns,
      array_to_string(array(select a.attname::text from unnest(con.confkey) with ordinality k(attnum, n)
        join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum order by k.n), ',') as referenced
    from pg_constraint con
    join pg_class t on t.oid = con.conrelid
    join pg_namespace s on s.oid = t.relnamespace
    where s.nspname = 'public' and con.contype = 'f'`),
  );
  return [
    ...indexes.map((row) => ({
      table: row.table,
      name: row.name,
      kind: row.primary ? ("primary key" as const) : ("unique index" as const),
      columns: row.columns.split(","),
      referencedColumns: null,
    })),
    ...foreign.map((row) => ({
      table: row.table,
      name: row.name,
      kind: "foreign key" as const,
      columns: row.columns.split(","),
      referencedColumns: row.referenced.split(","),
    })),
  ];
}

describe.each(backends())("the schema, read as Citus would distribute it by organisation (%s)", (backend) => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext(backend);
  });
  afterAll(async () => ctx?.close());

  it("gives every table a role: an organisation's rows, distributed, or kept apart and why", async () => {
    const tables = rowsOf<{ name: string }>(
      await ctx.db.execute(sql`
        select c.relname as name from pg_class c join pg_namespace s on s.oid = c.relnamespace
        where s.nspname = 'public' and c.relkind = 'r' order by 1`),
    ).map((row) => row.name);
    expect(tables).toEqual(Object.keys(TABLE_ROLES).sort());
  });

  it("lists each key and unique index that leaves the organisation out, and nothing that is gone", async () => {
    const keys = await keysOf(ctx);
    const blocking = keys
      .filter((key) => {
        const role = TABLE_ROLES[key.table];
        if (role?.kind !== "distributed") return false;
        if (!key.columns.includes(role.by)) return true;
        // A foreign key to another distributed table must carry the organisation on both sides.
        if (key.kind === "foreign key") {
          const position = key.columns.indexOf(role.by);
          const referenced = key.referencedColumns?.[position];
          return referenced !== "id" && referenced !== "organization_id";
        }
        return false;
      })
      .map((key) => key.name)
      .sort();
    expect(blocking).toEqual(Object.keys(CHANGES_FOR_DISTRIBUTION).sort());
  });

  it("leaves no identity or serial column on a distributed table (its ids are made by the service)", async () => {
    const generated = rowsOf<{ table: string; column: string }>(
      await ctx.db.execute(sql`
        select t.relname as "table", a.attname as "column"
        from pg_attribute a join pg_class t on t.oid = a.attrelid join pg_namespace s on s.oid = t.relnamespace
        left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
        where s.nspname = 'public' and a.attnum > 0 and not a.attisdropped
          and (a.attidentity <> '' or pg_get_expr(d.adbin, d.adrelid) like 'nextval(%')`),
    );
    const onDistributed = generated.filter((row) => TABLE_ROLES[row.table]?.kind === "distributed");
    expect(onDistributed).toEqual([]);
    // The sign-in throttle's identity stays on the coordinator.
    expect(generated.map((row) => `${row.table}.${row.column}`)).toEqual(["sign_in_failures.id"]);
  });
});

describe("docs/scaling.md", () => {
  it("names every change the schema needs before it can be distributed", () => {
    const text = fs.readFileSync(path.join(process.cwd(), "docs", "scaling.md"), "utf8");
    const missing = Object.keys(CHANGES_FOR_DISTRIBUTION).filter((name) => !text.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});
